#include "box_copy.hpp"

#include "error.hpp"

namespace mpsfw {

void BoxList::add(const Box& b) {
  if (b.empty()) return;
  if (count == kMax) throw Error("BoxList holds at most six boxes");
  box[count] = b;
  offset[count] = cells;
  cells += b.cells();
  ++count;
}

static void copy_boxes(Backend space, double* field, const FieldLayout& layout,
                       const BoxList& boxes, double* buffer, bool to_buffer) {
  if (boxes.count == 0) return;
  if (space == Backend::Cuda) {
    detail::cuda_copy_boxes(field, layout, boxes, buffer, to_buffer);
  } else {
    detail::host_copy_boxes(field, layout, boxes, buffer, to_buffer);
  }
}

void pack_boxes(Backend space, const double* field, const FieldLayout& layout, const BoxList& boxes,
                double* buffer) {
  // The field is only read when packing.
  copy_boxes(space, const_cast<double*>(field), layout, boxes, buffer, true);
}

void unpack_boxes(Backend space, double* field, const FieldLayout& layout, const BoxList& boxes,
                  const double* buffer) {
  // The buffer is only read when unpacking.
  copy_boxes(space, field, layout, boxes, const_cast<double*>(buffer), false);
}

void pack_box(Backend space, const double* field, const FieldLayout& layout, const Box& box,
              double* buffer) {
  BoxList one;
  one.add(box);
  pack_boxes(space, field, layout, one, buffer);
}

void PeerBoxList::add(const PeerBox& b) {
  if (b.dst_box.empty()) return;
  if (!(b.src_box.size() == b.dst_box.size())) throw Error("PeerBoxList: boxes differ in shape");
  if (count == kMax) throw Error("PeerBoxList holds at most six boxes");
  item[count++] = b;
}

void copy_from_peers(Backend space, double* field, const FieldLayout& layout,
                     const PeerBoxList& boxes) {
  if (boxes.count == 0) return;
  if (space == Backend::Cuda) {
    detail::cuda_copy_from_peers(field, layout, boxes);
  } else {
    detail::host_copy_from_peers(field, layout, boxes);
  }
}

}  // namespace mpsfw
