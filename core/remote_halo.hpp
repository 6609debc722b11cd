#pragma once
// Halo planes read in place from same-GPU neighbours' fields instead of being
// copied into this rank's halo first: a kernel that finds a face here reads
// the neighbour's plane next to the shared face where it would read its own
// halo. Saves a copy kernel per step on the critical path (see
// docs/performance.md); the values, and so the results, are the same bits.
#include "field_layout.hpp"
#include "hd.hpp"

namespace mpsfw {

// One entry per face, in FaceMask order.
struct RemoteHalo {
  static constexpr int kFaces = 6;
  const double* field[kFaces] = {};  // the neighbour's field, nullptr: our own halo
  FieldLayout layout[kFaces];        // its layout

  MPSFW_HD bool any() const {
    for (int f = 0; f < kFaces; ++f) {
      if (field[f] != nullptr) return true;
    }
    return false;
  }
};

// The value of our halo cell (i, j, k) of `face` (i = 0 for XLo, n.x + 1 for
// XHi, ...), read from the neighbour across it: its cell next to the shared
// face, at the same position along the face (neighbours across a face share
// the face's extents).
MPSFW_HD double remote_halo_value(const RemoteHalo& r, int face, int i, int j, int k) {
  const FieldLayout& p = r.layout[face];
  switch (face) {
    case 0: i = p.n.x; break;
    case 1: i = 1; break;
    case 2: j = p.n.y; break;
    case 3: j = 1; break;
    case 4: k = p.n.z; break;
    default: k = 1; break;
  }
  return r.field[face][p.index(i, j, k)];
}

}  // namespace mpsfw
