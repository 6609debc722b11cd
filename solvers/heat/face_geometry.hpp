#pragma once
// The geometry of a one-cell face halo, below both halves of heat's halo
// exchange: which plane a face sends and receives (MPI, halo_exchange), and
// where a same-GPU neighbour's plane is pulled from or pushed to
// (direct_peers).
#include "core/comm/region_copy.hpp"
#include "core/mesh/box.hpp"
#include "core/mesh/field_layout.hpp"
#include "halo_push.hpp"

namespace mpsfw {

// The interior plane a face sends, and the halo plane it receives into.
Box face_send_plane(const FieldLayout& layout, int face);
Box face_halo_plane(const FieldLayout& layout, int face);
// The copy that fills the halo of `face` of `field` (laid out as `mine`)
// straight out of the neighbour's field `theirs` (layout `peer`).
RegionCopy face_pull(const FieldLayout& mine, double* field, const FieldLayout& peer,
                     const double* theirs, int face);
// Where the send plane of `face` of a field laid out as `mine` lands in the
// halo of the neighbour's field `theirs` (layout `peer`) across that face.
HaloPushes::Target push_target(const FieldLayout& mine, int face, const FieldLayout& peer,
                               double* theirs);

}  // namespace mpsfw
