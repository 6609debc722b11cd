#pragma once
// Memory layout of one rank's block of a 3D field with a one-cell halo.
// Interior cells are i in [1, n.x], j in [1, n.y], k in [1, n.z]; the halo is
// index 0 and n+1. x is the fastest index, so x rows are contiguous.
#include <cstdint>

#include "box.hpp"
#include "hd.hpp"

namespace mpsfw {

struct FieldLayout {
  Int3 n;  // interior cells per dimension

  MPSFW_HD std::int64_t stride_y() const { return n.x + 2; }
  MPSFW_HD std::int64_t stride_z() const { return stride_y() * (n.y + 2); }
  MPSFW_HD std::int64_t size() const { return stride_z() * (n.z + 2); }
  MPSFW_HD std::int64_t index(int i, int j, int k) const {
    return i + j * stride_y() + k * stride_z();
  }
  MPSFW_HD Box interior() const { return {{1, 1, 1}, {n.x + 1, n.y + 1, n.z + 1}}; }
};

}  // namespace mpsfw

namespace mpsfw {

// Cells of the block whose 7-point stencil does not touch the halo: these can
// be updated while the halo exchange is in flight. Empty for blocks <= 2 wide.
MPSFW_HD Box inner_box(const FieldLayout& layout) {
  return {{2, 2, 2}, {layout.n.x, layout.n.y, layout.n.z}};
}

// The rest of the interior (the one-cell shell next to the halo) as at most six
// disjoint slabs; a block with an empty inner box is one slab, itself.
struct ShellBoxes {
  Box box[6];
  int count = 0;
};

MPSFW_HD ShellBoxes shell_boxes(const FieldLayout& layout) {
  ShellBoxes s;
  const Box all = layout.interior();
  const Box in = inner_box(layout);
  if (in.empty()) {
    s.box[s.count++] = all;
    return s;
  }
  const Int3 n = layout.n;
  // x slabs span everything in y and z; y slabs skip the x slabs; z slabs skip both.
  s.box[s.count++] = {{1, 1, 1}, {2, n.y + 1, n.z + 1}};
  s.box[s.count++] = {{n.x, 1, 1}, {n.x + 1, n.y + 1, n.z + 1}};
  s.box[s.count++] = {{2, 1, 1}, {n.x, 2, n.z + 1}};
  s.box[s.count++] = {{2, n.y, 1}, {n.x, n.y + 1, n.z + 1}};
  s.box[s.count++] = {{2, 2, 1}, {n.x, n.y, 2}};
  s.box[s.count++] = {{2, 2, n.z}, {n.x, n.y, n.z + 1}};
  return s;
}

}  // namespace mpsfw
