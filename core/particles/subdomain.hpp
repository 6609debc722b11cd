#pragma once
// A rank's part of the periodic box: whole link cells of the Cartesian
// decomposition, so neighbours compute shared faces from the same integers and
// agree bit for bit on who owns a particle.
#include "periodic_edge.hpp"
#include <mpsfw/core/mesh/decomposition.hpp>

namespace mpsfw {

struct Subdomain {
  double lo[3], hi[3];  // owns lo <= x < hi
  double box[3];
  bool contains(const double x[3]) const {
    for (int d = 0; d < 3; ++d) {
      if (x[d] < lo[d] || x[d] >= hi[d]) return false;
    }
    return true;
  }
};

inline Subdomain subdomain_of(const CartDecomposition& decomposition, const double box[3]) {
  Subdomain s;
  const Int3 n = decomposition.global_cells(), first = decomposition.offset(),
             count = decomposition.local_cells();
  for (int d = 0; d < 3; ++d) {
    s.box[d] = box[d];
    s.lo[d] = box[d] * first[d] / n[d];
    // The last block ends exactly at the box edge (no rounding gap).
    s.hi[d] = first[d] + count[d] == n[d] ? box[d] : box[d] * (first[d] + count[d]) / n[d];
  }
  return s;
}

}  // namespace mpsfw
