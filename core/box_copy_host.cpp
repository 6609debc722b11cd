#include <cstdint>

#include "box_copy.hpp"

namespace mpsfw::detail {

void host_copy_boxes(double* field, const FieldLayout& layout, const BoxList& boxes, double* buffer,
                     bool to_buffer) {
  for (int b = 0; b < boxes.count; ++b) {
    const Box& box = boxes.box[b];
    const Int3 s = box.size();
    double* base = buffer + boxes.offset[b];
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < s.z; ++k) {
      for (int j = 0; j < s.y; ++j) {
        double* row = base + (static_cast<std::int64_t>(k) * s.y + j) * s.x;
        double* cells = field + layout.index(box.lo.x, box.lo.y + j, box.lo.z + k);
        for (int i = 0; i < s.x; ++i) {
          if (to_buffer) {
            row[i] = cells[i];
          } else {
            cells[i] = row[i];
          }
        }
      }
    }
  }
}

void host_copy_from_peers(double* field, const FieldLayout& layout, const PeerBoxList& boxes) {
  for (int b = 0; b < boxes.count; ++b) {
    const PeerBox& p = boxes.item[b];
    const Int3 s = p.dst_box.size();
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < s.z; ++k) {
      for (int j = 0; j < s.y; ++j) {
        const double* from =
            p.src + p.src_layout.index(p.src_box.lo.x, p.src_box.lo.y + j, p.src_box.lo.z + k);
        double* to = field + layout.index(p.dst_box.lo.x, p.dst_box.lo.y + j, p.dst_box.lo.z + k);
        for (int i = 0; i < s.x; ++i) to[i] = from[i];
      }
    }
  }
}

}  // namespace mpsfw::detail
