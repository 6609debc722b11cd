#pragma once
// A block's neighbours: the 26 blocks of the 3x3x3 block of blocks around it
// (6 faces, 12 edges, 8 corners), each named by its offset, components -1, 0
// or +1, and numbered 0..25 in one order (x slowest, z fastest, the block
// itself skipped). The grid halo, heat's faces and the particles' ghost lists
// all name a neighbour so; the decomposition gives each one's rank. The six
// faces are the neighbours with one nonzero component; Face numbers them
// 0..5 as well, for masks of faces.
#include <vector>

#include "box.hpp"
#include <mpsfw/core/base/hd.hpp>

namespace mpsfw {

constexpr int kNeighbours = 26;

// The neighbour at `offset` (components -1, 0 or +1, not all zero).
MPSFW_HD constexpr int neighbour_index(Int3 offset) {
  const int k = (offset.x + 1) * 9 + (offset.y + 1) * 3 + (offset.z + 1);
  return k < 13 ? k : k - 1;
}

// Neighbour `n`'s offset along dimension `d`: -1, 0 or +1.
MPSFW_HD constexpr int neighbour_step(int n, int d) {
  const int k = n < 13 ? n : n + 1;  // 0..26 without 13, the block itself
  const int digit = d == 0 ? k / 9 : d == 1 ? (k / 3) % 3 : k % 3;
  return digit - 1;
}

MPSFW_HD Int3 neighbour_offset(int n) {
  return {neighbour_step(n, 0), neighbour_step(n, 1), neighbour_step(n, 2)};
}

// The neighbour the other way: the one at the negated offset.
MPSFW_HD constexpr int opposite_neighbour(int n) { return kNeighbours - 1 - n; }
MPSFW_HD Int3 opposite(Int3 offset) { return {-offset.x, -offset.y, -offset.z}; }

// The faces of a block.
enum Face : int { XLo = 0, XHi, YLo, YHi, ZLo, ZHi };
constexpr int kFaces = 6;
MPSFW_HD constexpr int face_dim(int face) { return face / 2; }
MPSFW_HD constexpr bool face_is_high(int face) { return face % 2 == 1; }
MPSFW_HD constexpr int opposite_face(int face) { return face ^ 1; }
MPSFW_HD Int3 face_offset(int face) {
  Int3 offset;
  offset[face_dim(face)] = face_is_high(face) ? 1 : -1;
  return offset;
}
// The neighbour across `face`.
MPSFW_HD int face_neighbour(int face) { return neighbour_index(face_offset(face)); }
// Whether `offset` is a face's (one nonzero component), and which face.
MPSFW_HD constexpr bool is_face_offset(Int3 offset) {
  return (offset.x != 0) + (offset.y != 0) + (offset.z != 0) == 1;
}
MPSFW_HD constexpr int face_of(Int3 offset) {
  return offset.x != 0   ? (offset.x > 0 ? XHi : XLo)
         : offset.y != 0 ? (offset.y > 0 ? YHi : YLo)
                         : (offset.z > 0 ? ZHi : ZLo);
}

// The offsets of the six face neighbours (`corners` false) or of all 26, in
// neighbour order.
inline std::vector<Int3> neighbour_offsets(bool corners) {
  std::vector<Int3> offsets;
  for (int n = 0; n < kNeighbours; ++n) {
    const Int3 o = neighbour_offset(n);
    if (corners || is_face_offset(o)) offsets.push_back(o);
  }
  return offsets;
}

}  // namespace mpsfw
