#include "halo_pushes.hpp"

#include "halo_regions.hpp"
#include <mpsfw/core/mesh/neighbourhood.hpp>

namespace mpsfw {

HaloPushes::Target push_target(const FieldLayout& mine, int face, const FieldLayout& peer,
                               double* theirs) {
  const int d = face_dim(face);
  HaloPushes::Target t;
  t.cells = send_region(mine, face_offset(face));
  // My high face meets the neighbour's low halo, and vice versa; along the
  // normal the stride is 0, so base points into that halo plane.
  const Box halo = halo_region(peer, face_offset(opposite_face(face)));
  const std::int64_t stride[3] = {1, peer.stride_y(), peer.stride_z()};
  for (int e = 0; e < 3; ++e) t.stride[e] = e == d ? 0 : stride[e];
  t.base = theirs + peer.first + halo.lo[d] * stride[d];
  return t;
}

}  // namespace mpsfw
