#include "region_copy.hpp"

#include <utility>

#include <mpsfw/core/base/error.hpp>

namespace mpsfw {

StridedRegion field_region(void* field, const FieldLayout& layout, const Box& box) {
  return {field, layout.first, layout.stride_y(), layout.stride_z(), box.lo};
}

StridedRegion dense_region(void* buffer, const Box& box) {
  const Int3 s = box.size();
  const std::int64_t sy = s.x, sz = static_cast<std::int64_t>(s.x) * s.y;
  return {buffer, -(box.lo.x + box.lo.y * sy + box.lo.z * sz), sy, sz, box.lo};
}

void RegionCopyList::add(const RegionCopy& c) {
  if (c.size.x <= 0 || c.size.y <= 0 || c.size.z <= 0) return;
  if (count == kMax) throw Error("RegionCopyList holds at most six copies");
  item[count++] = c;
}

namespace {

template <class T>
void host_copy(const RegionCopy* copies, int count) {
  for (int n = 0; n < count; ++n) {
    const RegionCopy& c = copies[n];
    const T* src = static_cast<const T*>(c.src.base);
    T* dst = static_cast<T*>(c.dst.base);
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < c.size.z; ++k) {
      for (int j = 0; j < c.size.y; ++j) {
        const T* from = src + c.src.origin + c.src.lo.x + (c.src.lo.y + j) * c.src.sy +
                        (c.src.lo.z + k) * c.src.sz;
        T* to = dst + c.dst.origin + c.dst.lo.x + (c.dst.lo.y + j) * c.dst.sy +
                (c.dst.lo.z + k) * c.dst.sz;
        for (int i = 0; i < c.size.x; ++i) to[i] = from[i];
      }
    }
  }
}

}  // namespace

void copy_regions(Backend space, ScalarType type, const RegionCopy* copies, int count) {
  if (count == 0) return;
  if (space == Backend::Cuda) {
    detail::cuda_copy_regions(type, copies, count);
  } else if (type == ScalarType::Float32) {
    host_copy<float>(copies, count);
  } else {
    host_copy<double>(copies, count);
  }
}

RegionCopy field_copy(const double* src, const FieldLayout& src_layout, const Box& src_box,
                      double* dst, const FieldLayout& dst_layout, const Box& dst_box) {
  if (!dst_box.empty() && !(src_box.size() == dst_box.size())) {
    throw Error("field_copy: the boxes differ in shape");
  }
  // The source is only read.
  return {field_region(const_cast<double*>(src), src_layout, src_box),
          field_region(dst, dst_layout, dst_box), dst_box.size()};
}

void PackedBoxes::add(const Box& b) {
  if (b.empty()) return;
  if (count == kMax) throw Error("PackedBoxes holds at most six boxes");
  box[count] = b;
  offset[count] = cells;
  cells += b.cells();
  ++count;
}

RegionCopyList pack_copies(const double* field, const FieldLayout& layout, const PackedBoxes& boxes,
                           double* buffer) {
  RegionCopyList copies;
  for (int b = 0; b < boxes.count; ++b) {
    // The field is only read.
    copies.add({field_region(const_cast<double*>(field), layout, boxes.box[b]),
                dense_region(buffer + boxes.offset[b], boxes.box[b]), boxes.box[b].size()});
  }
  return copies;
}

RegionCopyList unpack_copies(double* field, const FieldLayout& layout, const PackedBoxes& boxes,
                             const double* buffer) {
  // The packing copies run the other way; the buffer is only read.
  RegionCopyList copies = pack_copies(field, layout, boxes, const_cast<double*>(buffer));
  for (int n = 0; n < copies.count; ++n) std::swap(copies.item[n].src, copies.item[n].dst);
  return copies;
}

}  // namespace mpsfw
