#pragma once
// The 26 ghost lists of a rank: one per neighbour in the 3x3x3 block around
// it (faces, edges, corners), so that every ghost comes straight from the
// rank that owns it, in one round of messages. List `list` (the neighbour of
// that number, core/mesh/neighbourhood.hpp) holds the owned
// particles within the ghost width of every face its offset points through, and
// goes to the neighbour at that offset. Every store selects with
// ghost_list_mask, so the lists and the ghosts' order agree bit for bit.
#include <cstdint>

#include <mpsfw/core/base/hd.hpp>
#include <mpsfw/core/mesh/neighbourhood.hpp>

namespace mpsfw {

// Where an owned particle is a ghost of a neighbour: below low[d] it lies within
// the ghost width of the low face along d, at or above high[d] of the high
// face (both, in a subdomain narrower than two ghost widths). shift[list]:
// what is added to a position sent in that list (a box length across the
// periodic edge, else 0).
struct GhostBands {
  double low[3];
  double high[3];
  double shift[kNeighbours][3];
};

// The lists (bit `list`) that the particle at (x, y, z) belongs to: those whose
// every nonzero offset points through a face it is near.
MPSFW_HD std::uint32_t ghost_list_mask(double x, double y, double z, const GhostBands& bands) {
  const double c[3] = {x, y, z};
  bool low[3], high[3];
  for (int d = 0; d < 3; ++d) {
    low[d] = c[d] < bands.low[d];
    high[d] = c[d] >= bands.high[d];
  }
  if (!(low[0] || high[0] || low[1] || high[1] || low[2] || high[2])) return 0;
  std::uint32_t mask = 0;
  for (int list = 0; list < kNeighbours; ++list) {
    bool in = true;
    for (int d = 0; d < 3; ++d) {
      const int s = neighbour_step(list, d);
      in = in && (s == 0 || (s < 0 ? low[d] : high[d]));
    }
    if (in) mask |= std::uint32_t{1} << list;
  }
  return mask;
}

}  // namespace mpsfw
