#include <cstdint>

#include "box_copy.hpp"

namespace mpsfw::detail {

void host_pack_box(const double* field, const FieldLayout& layout, const Box& box, double* buffer) {
  const Int3 s = box.size();
#pragma omp parallel for collapse(2) schedule(static)
  for (int k = 0; k < s.z; ++k) {
    for (int j = 0; j < s.y; ++j) {
      const std::int64_t row = (static_cast<std::int64_t>(k) * s.y + j) * s.x;
      const double* src = field + layout.index(box.lo.x, box.lo.y + j, box.lo.z + k);
      for (int i = 0; i < s.x; ++i) buffer[row + i] = src[i];
    }
  }
}

void host_unpack_box(double* field, const FieldLayout& layout, const Box& box,
                     const double* buffer) {
  const Int3 s = box.size();
#pragma omp parallel for collapse(2) schedule(static)
  for (int k = 0; k < s.z; ++k) {
    for (int j = 0; j < s.y; ++j) {
      const std::int64_t row = (static_cast<std::int64_t>(k) * s.y + j) * s.x;
      double* dst = field + layout.index(box.lo.x, box.lo.y + j, box.lo.z + k);
      for (int i = 0; i < s.x; ++i) dst[i] = buffer[row + i];
    }
  }
}

}  // namespace mpsfw::detail
