#pragma once
// The pack layer: copies between boxes of strided 3D arrays of float or
// double. Packing a field's halo region into a message, unpacking it, pulling
// a neighbour's region straight into this rank's halo and gathering a block's
// interior are all lists of RegionCopy run by copy_regions: every copy of a
// call runs in one launch (device) or one loop (host).
#include <cstdint>
#include <vector>

#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw {

enum class ScalarType { Float32, Float64 };

// Element (i, j, k) of a box (absolute indices) sits at
// base[origin + i + j * sy + k * sz].
struct StridedRegion {
  void* base = nullptr;
  std::int64_t origin = 0, sy = 0, sz = 0;
  Int3 lo;
};

// `box` of a field laid out as `layout`.
StridedRegion field_region(void* field, const FieldLayout& layout, const Box& box);
// `box` stored densely (x fastest) in a message buffer.
StridedRegion dense_region(void* buffer, const Box& box);

struct RegionCopy {
  StridedRegion src, dst;
  Int3 size;  // of both boxes
};

// Up to six copies (one per face) held in place: a list built for every
// step's exchange allocates nothing.
struct RegionCopyList {
  static constexpr int kMax = 6;
  RegionCopy item[kMax];
  int count = 0;

  // Appends `c` after the copies already listed; copies of no cells are skipped.
  void add(const RegionCopy& c);
};

// Copies of one element type, where the memory lives, in the order given.
void copy_regions(Backend space, ScalarType type, const RegionCopy* copies, int count);
inline void copy_regions(Backend space, ScalarType type, const std::vector<RegionCopy>& copies) {
  copy_regions(space, type, copies.data(), static_cast<int>(copies.size()));
}
inline void copy_regions(Backend space, ScalarType type, const RegionCopyList& copies) {
  copy_regions(space, type, copies.item, copies.count);
}

// Copies within fields of doubles laid out as FieldLayouts.

// `src_box` of `src` (another rank's field mapped here, say) into `dst_box` of
// `dst`. Throws when a copy that moves cells has boxes of different shapes.
RegionCopy field_copy(const double* src, const FieldLayout& src_layout, const Box& src_box,
                      double* dst, const FieldLayout& dst_layout, const Box& dst_box);

// Boxes of a field packed one after another into one dense buffer (each box
// x fastest): the layout of a message, or of a block's interior on the host.
struct PackedBoxes {
  static constexpr int kMax = RegionCopyList::kMax;
  Box box[kMax];
  std::int64_t offset[kMax] = {};  // where each box starts in the buffer, in doubles
  int count = 0;
  std::int64_t cells = 0;  // total, = the buffer length

  // Appends `b` after the boxes already listed; empty boxes are skipped.
  void add(const Box& b);
};

// The copies that pack `boxes` of `field` into `buffer`, and that unpack
// `buffer` into those boxes, in the order of the boxes.
RegionCopyList pack_copies(const double* field, const FieldLayout& layout, const PackedBoxes& boxes,
                           double* buffer);
RegionCopyList unpack_copies(double* field, const FieldLayout& layout, const PackedBoxes& boxes,
                             const double* buffer);

namespace detail {
void cuda_copy_regions(ScalarType type, const RegionCopy* copies, int count);
}  // namespace detail

}  // namespace mpsfw
