#pragma once
// Copies between boxes of strided 3D arrays of float or double: packing a
// field's halo region into a message, unpacking it, and pulling a
// neighbour's region straight into this rank's halo. Every copy of a call
// runs in one launch (device) or one loop (host).
#include <cstdint>
#include <vector>

#include "core/base/backend.hpp"
#include "core/base/hd.hpp"
#include "core/mesh/box.hpp"
#include "core/mesh/field_layout.hpp"

namespace mpsfw {

enum class ScalarType;

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

// Copies of one element type, where the memory lives.
void copy_regions(Backend space, ScalarType type, const std::vector<RegionCopy>& copies);

namespace detail {
void cuda_copy_regions(ScalarType type, const std::vector<RegionCopy>& copies);
}  // namespace detail

}  // namespace mpsfw
