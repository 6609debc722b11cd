#pragma once
// Neighbour lists as the particle layer builds them (ParticleArrays::
// build_neighbors), and the walk over one particle's list that pair loops use.
#include "core/hd.hpp"
#include "neighbour_walk.hpp"

namespace mpsfw {

// A particle's position as pair loops load it: its row of 4 doubles in one
// aligned piece (on a GPU two 16-byte loads instead of three 8-byte ones).
struct alignas(32) ParticlePoint {
  double c[4];
};

// Particle i's point in positions `x` (4 doubles a particle, 32-byte aligned).
MPSFW_HD ParticlePoint point_of(const double* x, long i) {
  return reinterpret_cast<const ParticlePoint*>(x)[i];
}

// A particle's neighbours within reach at the last build: owned particle i's
// are at(i, k), k < count[i], in cell order. Rows are transposed on a GPU
// (entry k of every row together), so that a warp's k-th neighbours are one
// coalesced read; device pointers there.
struct NeighbourRows {
  const int* count = nullptr;
  const int* index = nullptr;
  long row_step = 0, entry_step = 0;  // index of (i, k): i * row_step + k * entry_step

  MPSFW_HD int at(long i, int k) const { return index[i * row_step + k * entry_step]; }

  // visit(xj) with each neighbour's position row (x: 4 doubles a particle),
  // in list order, the next neighbours loading ahead (neighbour_walk.hpp).
  template <class Visit>
  MPSFW_HD void walk(long i, const double* x, const Visit& visit) const {
    walk_neighbours(
        count[i], static_cast<int>(i), [&](int k) { return at(i, k); },
        [&](int j) { return point_of(x, j); }, [&](const ParticlePoint& q) { visit(q.c); });
  }
};

}  // namespace mpsfw
