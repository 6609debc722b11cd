#pragma once
// Link cells: a grid of cells at least a cutoff wide, so that a particle's
// neighbours lie in its own or the 26 adjacent cells.
#include <cmath>

#include <mpsfw/core/base/hd.hpp>

namespace mpsfw {

// Link cells over this rank's subdomain widened by the ghost width (cutoff +
// skin) on every side: an owned particle's neighbours lie in its own or the 26
// adjacent cells.
struct CellGrid {
  double origin[3];  // corner of the widened region
  double width[3];   // cell edge along each dimension (>= cutoff)
  int count[3];      // cells along each dimension
};

// Link cell of coordinate x along dimension d, clamped into the grid: particles
// outside it (and NaN) count in its edge cells. Every store bins with this.
MPSFW_HD int link_cell_along(double x, const CellGrid& g, int d) {
  const double c = floor((x - g.origin[d]) / g.width[d]);
  if (!(c >= 0)) return 0;
  return c >= g.count[d] - 1 ? g.count[d] - 1 : static_cast<int>(c);
}

}  // namespace mpsfw
