#include "halo_regions.hpp"

namespace mpsfw {

static Box region(const FieldLayout& layout, Int3 dir, bool halo) {
  const int w = layout.halo;
  Box b = layout.interior();
  for (int d = 0; d < 3; ++d) {
    if (dir[d] < 0) {
      b.lo[d] = halo ? 0 : w;
      b.hi[d] = b.lo[d] + w;
    } else if (dir[d] > 0) {
      b.lo[d] = halo ? layout.n[d] + w : layout.n[d];
      b.hi[d] = b.lo[d] + w;
    }
  }
  return b;
}

Box send_region(const FieldLayout& layout, Int3 dir) { return region(layout, dir, false); }
Box halo_region(const FieldLayout& layout, Int3 dir) { return region(layout, dir, true); }

}  // namespace mpsfw
