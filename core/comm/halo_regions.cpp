#include "halo_regions.hpp"

namespace mpsfw {

std::vector<Int3> halo_directions(bool corners) {
  std::vector<Int3> dirs;
  for (int z = -1; z <= 1; ++z) {
    for (int y = -1; y <= 1; ++y) {
      for (int x = -1; x <= 1; ++x) {
        const int nonzero = (x != 0) + (y != 0) + (z != 0);
        if (nonzero == 1 || (corners && nonzero > 1)) dirs.push_back({x, y, z});
      }
    }
  }
  return dirs;
}

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
