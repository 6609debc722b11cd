#pragma once
// Which cells a block sends to, and receives from, each neighbour when its
// halo is `width` cells wide: the geometry below both the MPI and the
// same-GPU halves of FieldHalos. A neighbour is named by its direction, each
// component -1, 0 or +1: the 6 faces, 12 edges and 8 corners.
#include <vector>

#include "core/mesh/box.hpp"
#include "core/mesh/field_layout.hpp"

namespace mpsfw {

// The faces (corners = false) or all 26 directions, in a fixed order.
std::vector<Int3> halo_directions(bool corners);
// 0..26, unique per direction ((0,0,0) is 13).
inline int direction_index(Int3 d) { return (d.x + 1) + 3 * (d.y + 1) + 9 * (d.z + 1); }
inline Int3 opposite(Int3 d) { return {-d.x, -d.y, -d.z}; }

// The interior cells the neighbour at `dir` needs: `layout.halo` cells deep
// along each nonzero component, the whole interior along the others.
Box send_region(const FieldLayout& layout, Int3 dir);
// The halo cells that the neighbour at `dir` fills (same shape as its
// send_region(opposite(dir)) when both blocks agree along the zero components,
// as blocks of one Cartesian decomposition do).
Box halo_region(const FieldLayout& layout, Int3 dir);

}  // namespace mpsfw
