#include "halo_regions.hpp"

#include <mpsfw/core/base/error.hpp>

namespace mpsfw {

static Box region(const FieldLayout& layout, Int3 dir, bool halo) {
  Box b = layout.interior();
  for (int d = 0; d < 3; ++d) {
    const int w = layout.h[d];
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

RegionCopy halo_pull(void* field, const FieldLayout& mine, const void* theirs,
                     const FieldLayout& peer, Int3 dir) {
  const Box from = send_region(peer, opposite(dir)), to = halo_region(mine, dir);
  if (!(from.size() == to.size()))
    throw Error("halo_pull: the neighbours' regions differ in shape");
  // The neighbour's field is only read.
  return {field_region(const_cast<void*>(theirs), peer, from), field_region(field, mine, to),
          to.size()};
}

}  // namespace mpsfw
