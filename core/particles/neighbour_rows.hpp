#pragma once
// Neighbour lists as the particle layer builds them (ParticleArrays::
// build_neighbors), and the walk over one particle's list that pair loops use.
#include "link_cells.hpp"
#include "neighbour_walk.hpp"
#include <mpsfw/core/base/hd.hpp>

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

// Point q stored as particle i's in `x`, in one piece.
MPSFW_HD void put_point(double* x, long i, const ParticlePoint& q) {
  reinterpret_cast<ParticlePoint*>(x)[i] = q;
}

// Particle i's point moved by `shift` (3 doubles), the unused word zeroed: a
// ghost's position as an image of its owner.
MPSFW_HD ParticlePoint shifted_point(const double* x, long i, const double* shift) {
  ParticlePoint q = point_of(x, i);
  for (int d = 0; d < 3; ++d) q.c[d] += shift[d];
  q.c[3] = 0;
  return q;
}

// Particle i's point from positions no thread writes while the kernel runs
// (a pair loop's): on a GPU through the read-only data cache.
MPSFW_HD ParticlePoint fixed_point_of(const double* x, int i) {
#if defined(__CUDA_ARCH__)
  const double2* p = reinterpret_cast<const double2*>(x) + 2 * i;
  const double2 lo = __ldg(p), hi = __ldg(p + 1);
  return {{lo.x, lo.y, hi.x, hi.y}};
#else
  return point_of(x, i);
#endif
}

// An int that no thread writes while the kernel runs, read as fixed_point_of.
MPSFW_HD int fixed_int(const int* v, int i) {
#if defined(__CUDA_ARCH__)
  return __ldg(v + i);
#else
  return v[i];
#endif
}

// A particle's neighbours within reach at the last build: owned particle i's
// are at(i, k), k < count[i], in cell order. Rows are transposed on a GPU
// (entry k of every row together), so that a warp's k-th neighbours are one
// coalesced read; device pointers there. Indices are ints (the build refuses
// lists of 2^31 entries or more): 64-bit index arithmetic cost the GPU's
// pair loop registers.
struct NeighbourRows {
  const int* count = nullptr;
  const int* index = nullptr;
  int row_step = 0, entry_step = 0;  // index of (i, k): i * row_step + k * entry_step

  MPSFW_HD int at(int i, int k) const { return fixed_int(index, i * row_step + k * entry_step); }

  // visit(xj) with each neighbour's position row (x: 4 doubles a particle),
  // in list order, the next neighbours loading ahead (neighbour_walk.hpp).
  // The lists and the positions are read-only while a pair loop runs.
  template <class Visit>
  MPSFW_HD void walk(int i, const double* x, const Visit& visit) const {
    walk_neighbours(
        fixed_int(count, i), i, [&](int k) { return at(i, k); },
        [&](int j) { return fixed_point_of(x, j); }, [&](const ParticlePoint& q) { visit(q.c); });
  }

  // The same walk naming each neighbour: visit(j, xj), j its index (owned
  // particles, then ghosts), by which every field of it is read.
  template <class Visit>
  MPSFW_HD void walk_indexed(int i, const double* x, const Visit& visit) const {
    struct Loaded {
      ParticlePoint q;
      int j;
    };
    walk_neighbours(
        fixed_int(count, i), i, [&](int k) { return at(i, k); },
        [&](int j) {
          return Loaded{fixed_point_of(x, j), j};
        },
        [&](const Loaded& n) { visit(n.j, n.q.c); });
  }
};

// Which lists a build makes: every neighbour of every owned particle (Full:
// each pair within a rank twice, once from each side), or each pair once
// (Half: Newton's third law; a pair loop gives the neighbour its share too,
// pair_shares.hpp, and ghosts' shares go home through ParticleExchange::
// add_ghosts_to_owners).
enum class NeighbourLists { Full, Half };

// Whether a half list keeps owned particle i's neighbour j (`owned`: the
// owned count; x: positions, 4 doubles a particle). Two owned particles: from
// the lower index. An owned particle and a ghost: from the side where the
// other lies above, z first, then y, then x — the rank that owns the ghost's
// particle sees the pair the other way round and keeps it only if this one
// does not (LAMMPS's Newton criterion; exact but where rounding the periodic
// shift makes two coordinates tie).
MPSFW_HD bool half_list_keeps(int i, int j, long owned, const double* x) {
  if (j < owned) return j > i;
  const double* a = x + 4 * static_cast<long>(i);
  const double* b = x + 4 * static_cast<long>(j);
  if (b[2] != a[2]) return b[2] > a[2];
  if (b[1] != a[1]) return b[1] > a[1];
  return b[0] > a[0];
}

// Owned particle i's row of the lists, as a pair loop sees it: its index and
// position, and each(visit) calling visit(j, xj) for every listed neighbour j
// (an owned particle, or a ghost: j >= the owned count) in list order. i and j
// index every field alike: a field that reaches ghosts holds j's value at j.
struct PairRow {
  int i;
  ParticlePoint xi;
  NeighbourRows rows;
  const double* x;

  template <class Visit>
  MPSFW_HD void each(const Visit& visit) const {
    rows.walk_indexed(i, x, visit);
  }
};

// What a list build reads and writes: every particle binned into the link
// cells of `grid` (order: particles cell by cell, cell c's from start[c] to
// start[c + 1] - 1, index order within a cell); each owned particle's
// neighbours within reach, at most `width` stored (entry k of row i at
// i * row_step + k * entry_step), all counted. Every backend lists the same
// particles in the same order: the 27 cells around a particle's cell by
// (z, y) row, each row's three cells along x one range of cell order.
struct NeighbourBuild {
  CellGrid grid;
  const double* x;  // positions, 4 doubles a particle
  const long* order;
  const long* start;
  long binned;  // particles binned: start[cells]
  long owned;
  double reach2;
  int* index;
  long row_step, entry_step, width;
  int* count;

  // Lists owned particle i by itself (the host's and CUDA's build: a thread
  // a particle); returns its count.
  MPSFW_HD int list_one(long i) const {
    const double* xi = x + 4 * i;
    int c[3];
    for (int d = 0; d < 3; ++d) c[d] = link_cell_along(xi[d], grid, d);
    const int x_lo = c[0] > 0 ? c[0] - 1 : 0;
    const int x_hi = c[0] + 1 < grid.count[0] ? c[0] + 1 : grid.count[0] - 1;
    long k = 0;
    for (int cz = c[2] > 0 ? c[2] - 1 : 0; cz <= c[2] + 1 && cz < grid.count[2]; ++cz) {
      for (int cy = c[1] > 0 ? c[1] - 1 : 0; cy <= c[1] + 1 && cy < grid.count[1]; ++cy) {
        const long row = (static_cast<long>(cz) * grid.count[1] + cy) * grid.count[0];
        for (long s = start[row + x_lo]; s < start[row + x_hi + 1]; ++s) {
          const long j = order[s];
          if (j == i) continue;
          // Three loads, not the 32-byte point: the host's vector registers
          // hold two doubles, and the fourth would be loaded for nothing.
          const double* xj = x + 4 * j;
          double r2 = 0;
          for (int d = 0; d < 3; ++d) {
            const double delta = xi[d] - xj[d];
            r2 += delta * delta;
          }
          if (r2 >= reach2) continue;
          if (k < width) index[i * row_step + k * entry_step] = static_cast<int>(j);
          ++k;
        }
      }
    }
    count[i] = static_cast<int>(k);
    return count[i];
  }
};

// The build a thread a particle, on any backend's primitives; returns the
// longest count.
template <class Exec>
long list_each_particle(const Exec& exec, const NeighbourBuild& b) {
  exec.for_each(
      b.owned, MPSFW_LAMBDA(long i) { b.list_one(i); });
  return static_cast<long>(exec.max_of(
      b.owned, MPSFW_LAMBDA(long i) { return 1.0 * b.count[i]; }));
}

}  // namespace mpsfw
