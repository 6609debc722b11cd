#pragma once
// The boxes a stencil update splits a block into to overlap its halo
// exchange: the inner box, whose stencil reads no exchanged halo cell (updated
// while the exchange is in flight), and the shell, the rest of the interior
// (updated once the halos are in). The interior of a layout with a halo h
// cells wide is [h, n + h) along each axis (h = 0 along a flat one); a
// stencil that reaches r cells (by default the layout's halo) takes r cells
// off each exchanged face.
#include <mpsfw/core/base/hd.hpp>
#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw {

// Cells whose stencil, reaching `reach` cells, reads no halo cell of an
// exchanged face. Possibly empty.
MPSFW_HD Box inner_box(const FieldLayout& layout, FaceMask exchanged, int reach) {
  Box b;
  for (int d = 0; d < 3; ++d) {
    const int h = layout.h[d];  // 0 along a flat axis
    const int lo_cut = (exchanged >> (2 * d)) & 1u;
    const int hi_cut = (exchanged >> (2 * d + 1)) & 1u;
    // Clamped into the interior, so that the shell slabs never leave it
    // when the cuts overlap (a block thinner than the reach).
    const int end = layout.n[d] + h;
    const int lo = h + reach * lo_cut;
    b.lo[d] = lo < end ? lo : end;
    const int hi = end - reach * hi_cut;
    b.hi[d] = hi > b.lo[d] ? hi : b.lo[d];
  }
  return b;
}
MPSFW_HD Box inner_box(const FieldLayout& layout, FaceMask exchanged = kAllFaces) {
  return inner_box(layout, exchanged, layout.halo);
}

// The rest of the interior as at most six disjoint slabs: x slabs span all of
// y and z, y slabs the inner x range, z slabs the inner x and y ranges.
struct ShellBoxes {
  Box box[6];
  int count = 0;
};

MPSFW_HD ShellBoxes shell_boxes(const FieldLayout& layout, FaceMask exchanged, int reach) {
  const Box in = inner_box(layout, exchanged, reach);
  const Box all = layout.interior();
  const Int3 lo = all.lo, end = all.hi;
  ShellBoxes s;
  const auto add = [&s](Box b) {
    if (!b.empty()) s.box[s.count++] = b;
  };
  add({{lo.x, lo.y, lo.z}, {in.lo.x, end.y, end.z}});
  add({{in.hi.x, lo.y, lo.z}, {end.x, end.y, end.z}});
  add({{in.lo.x, lo.y, lo.z}, {in.hi.x, in.lo.y, end.z}});
  add({{in.lo.x, in.hi.y, lo.z}, {in.hi.x, end.y, end.z}});
  add({{in.lo.x, in.lo.y, lo.z}, {in.hi.x, in.hi.y, in.lo.z}});
  add({{in.lo.x, in.lo.y, in.hi.z}, {in.hi.x, in.hi.y, end.z}});
  return s;
}
MPSFW_HD ShellBoxes shell_boxes(const FieldLayout& layout, FaceMask exchanged = kAllFaces) {
  return shell_boxes(layout, exchanged, layout.halo);
}

}  // namespace mpsfw
