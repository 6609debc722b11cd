#include "face_geometry.hpp"

#include "core/mesh/decomposition.hpp"

namespace mpsfw {

static Box face_plane(const FieldLayout& layout, int face, bool halo) {
  Box b = layout.interior();
  const int d = face_dim(face);
  const int at = face_is_high(face) ? (halo ? layout.n[d] + 1 : layout.n[d]) : (halo ? 0 : 1);
  b.lo[d] = at;
  b.hi[d] = at + 1;
  return b;
}

Box face_send_plane(const FieldLayout& layout, int face) { return face_plane(layout, face, false); }
Box face_halo_plane(const FieldLayout& layout, int face) { return face_plane(layout, face, true); }

RegionCopy face_pull(const FieldLayout& mine, double* field, const FieldLayout& peer,
                     const double* theirs, int face) {
  // The neighbour across my face f sends its plane of the opposite face.
  return field_copy(theirs, peer, face_send_plane(peer, opposite_face(face)), field, mine,
                    face_halo_plane(mine, face));
}

HaloPushes::Target push_target(const FieldLayout& mine, int face, const FieldLayout& peer,
                               double* theirs) {
  const int d = face_dim(face);
  HaloPushes::Target t;
  t.cells = face_send_plane(mine, face);
  // My high face meets the neighbour's low halo (index 0), and vice versa.
  const int halo = face_is_high(face) ? 0 : peer.n[d] + 1;
  const std::int64_t stride[3] = {1, peer.stride_y(), peer.stride_z()};
  for (int e = 0; e < 3; ++e) t.stride[e] = e == d ? 0 : stride[e];
  t.base = theirs + peer.first + halo * stride[d];
  return t;
}

}  // namespace mpsfw
