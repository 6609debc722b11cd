#include "box_copy.hpp"

#include <vector>

#include "core/base/error.hpp"
#include "field_halos.hpp"
#include "region_copy.hpp"

namespace mpsfw {

void BoxList::add(const Box& b) {
  if (b.empty()) return;
  if (count == kMax) throw Error("BoxList holds at most six boxes");
  box[count] = b;
  offset[count] = cells;
  cells += b.cells();
  ++count;
}

// Every copy here is one of the pack layer's region copies (comm/region_copy.hpp).
static void copy_boxes(Backend space, double* field, const FieldLayout& layout,
                       const BoxList& boxes, double* buffer, bool to_buffer) {
  std::vector<RegionCopy> copies;
  for (int b = 0; b < boxes.count; ++b) {
    const StridedRegion cells = field_region(field, layout, boxes.box[b]);
    const StridedRegion packed = dense_region(buffer + boxes.offset[b], boxes.box[b]);
    copies.push_back({to_buffer ? cells : packed, to_buffer ? packed : cells, boxes.box[b].size()});
  }
  copy_regions(space, ScalarType::Float64, copies);
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
  std::vector<RegionCopy> copies;
  for (int b = 0; b < boxes.count; ++b) {
    const PeerBox& p = boxes.item[b];
    // The neighbour's field is only read.
    copies.push_back({field_region(const_cast<double*>(p.src), p.src_layout, p.src_box),
                      field_region(field, layout, p.dst_box), p.dst_box.size()});
  }
  copy_regions(space, ScalarType::Float64, copies);
}

}  // namespace mpsfw
