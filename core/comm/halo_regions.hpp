#pragma once
// Which cells a block sends to, and receives from, each neighbour when its
// halo is `width` cells wide: the geometry below both the MPI and the
// same-GPU halves of FieldHalos. A neighbour is named by its offset, each
// component -1, 0 or +1 (core/mesh/neighbourhood.hpp).
#include <mpsfw/core/comm/region_copy.hpp>
#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>
#include <mpsfw/core/mesh/neighbourhood.hpp>

namespace mpsfw {

// The interior cells the neighbour at `dir` needs: `layout.halo` cells deep
// along each nonzero component, the whole interior along the others.
Box send_region(const FieldLayout& layout, Int3 dir);
// The halo cells that the neighbour at `dir` fills (same shape as its
// send_region(opposite(dir)) when both blocks agree along the zero components,
// as blocks of one Cartesian decomposition do).
Box halo_region(const FieldLayout& layout, Int3 dir);

// The copy that fills the halo at `dir` of `field` (laid out as `mine`)
// straight out of `theirs`, the field of the neighbour there (layout `peer`,
// mapped here). Throws when the two regions differ in shape.
RegionCopy halo_pull(void* field, const FieldLayout& mine, const void* theirs,
                     const FieldLayout& peer, Int3 dir);

}  // namespace mpsfw
