#pragma once
// The kernels of the CUDA MD store and the per-atom functors its Thrust calls
// use. Physics comes from md_physics.hpp; launches are in md_store_cuda.cu.
// Included by md_store_cuda.cu only.
#include <cstdint>

#include "atom_record.hpp"
#include "core/comm/step_handshake.hpp"
#include "core/particles/neighbour_walk.hpp"
#include "md_physics.hpp"
#include "md_store.hpp"

namespace mpsfw::md::gpu {

constexpr int kThreads = 256;       // per block, simple per-atom kernels
constexpr int kForceThreads = 128;  // per block, force kernel
// Neighbour build: a warp per link cell (~20 atoms), several cells a block,
// so that an SM holds more warps than its limit of resident blocks allows.
constexpr int kNeighborWarps = 4;

inline unsigned blocks_for(int n, int threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

// A position padded to 32 bytes: one aligned sector, so the force loop's
// gather of a neighbour is one memory transaction, not three.
struct alignas(32) Position {
  double c[4];  // x, y, z, unused
};

// Device pointers to the per-atom arrays: x for owned atoms and ghosts, the
// rest for owned atoms only.
struct AtomArrays {
  Position* x;
  double* v[3];
  double* f[3];
  std::int64_t* id;
};
struct AtomView {
  const Position* x;
  const double* v[3];
  const double* f[3];
  const std::int64_t* id;
};
// Positions in cell order, each atom's cell and store index, and where each
// cell begins (start[c + 1] is where it ends).
struct CellOrder {
  const Position* x;
  const int* key;
  const int* atom;
  const int* start;
};

__device__ int thread_index() { return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); }

// Unpacks records into slots [offset, offset + count); their forces are zero.
__global__ void unpack_atoms_kernel(const AtomRecord* in, int count, AtomArrays a, int offset) {
  const int t = thread_index();
  if (t >= count) return;
  const int i = offset + t;
  a.x[i] = Position{{in[t].x[0], in[t].x[1], in[t].x[2], 0.0}};
  for (int d = 0; d < 3; ++d) {
    a.v[d][i] = in[t].v[d];
    a.f[d][i] = 0;
  }
  a.id[i] = in[t].id;
}

// Packs atom index[t] (atom t without an index) into record t.
__global__ void pack_atoms_kernel(AtomView a, const int* index, int count, AtomRecord* out) {
  const int t = thread_index();
  if (t >= count) return;
  const int i = index != nullptr ? index[t] : t;
  AtomRecord r;
  for (int d = 0; d < 3; ++d) {
    r.x[d] = a.x[i].c[d];
    r.v[d] = a.v[d][i];
  }
  r.id = a.id[i];
  out[t] = r;
}

// The 26 ghost send lists of a rank as one selection: entry t is
// list * atoms + atom, for the owned atoms (of `atoms` at the selection)
// in each list, sorted by list, then atom; list l holds entries
// start[l] .. start[l + 1] - 1 and is sent shifted by shift[l].
struct SendLists {
  const int* entry;
  int atoms;
  int start[kGhostLists + 1];
  double shift[kGhostLists][3];
};

__device__ int list_of_entry(const SendLists& s, int t) { return s.entry[t] / s.atoms; }

// The position entry t of list `list` sends: its atom's, shifted.
__device__ Position sent_position(const Position* x, const SendLists& s, int t, int list) {
  Position q = x[s.entry[t] - list * s.atoms];
  for (int d = 0; d < 3; ++d) q.c[d] += s.shift[list][d];
  return q;
}

// Where each list goes, counted in atoms from a start the kernel knows:
// first[list] for its first entry, -1 for a list left out.
struct ListSlots {
  int first[kGhostLists];
};

// Which lists (bit `list`) each owned atom belongs to.
__global__ void ghost_mask_kernel(const Position* x, int count,
                                  __grid_constant__ const GhostBands bands, std::uint32_t* mask) {
  const int i = thread_index();
  if (i >= count) return;
  mask[i] = ghost_list_mask(x[i].c[0], x[i].c[1], x[i].c[2], bands);
}

// Whether entry e = list * atoms + atom of the selection's range is one:
// whether the atom belongs to the list.
struct InGhostList {
  const std::uint32_t* mask;
  int atoms;
  __device__ bool operator()(int e) const {
    const int list = e / atoms;
    return (mask[e - list * atoms] >> list) & 1u;
  }
};

// Where each list begins among the *total selected entries: the first
// entry at or past list * atoms (one thread a list, and one for the end).
__global__ void list_starts_kernel(const int* entry, const int* total, int atoms, int* start) {
  const int list = thread_index();
  if (list > kGhostLists) return;
  const int bound = list * atoms;
  int lo = 0, hi = *total;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (entry[mid] < bound) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  start[list] = lo;
}

// Entries begin .. end - 1 of the lists with a slot packed x, y, z per atom
// into out, entry k of list l at 3 (to.first[l] + k).
__global__ void pack_sends_kernel(const Position* x, __grid_constant__ const SendLists lists,
                                  __grid_constant__ const ListSlots to, int begin, int end,
                                  double* out) {
  const int t = begin + thread_index();
  if (t >= end) return;
  const int list = list_of_entry(lists, t);
  if (to.first[list] < 0) return;
  const Position q = sent_position(x, lists, t, list);
  const int k = to.first[list] + t - lists.start[list];
  for (int d = 0; d < 3; ++d) out[3 * k + d] = q.c[d];
}

// Packed positions into slots [first, first + count).
__global__ void unpack_positions_kernel(const double* in, int count, AtomArrays a, int first) {
  const int t = thread_index();
  if (t >= count) return;
  a.x[first + t] = Position{{in[3 * t], in[3 * t + 1], in[3 * t + 2], 0.0}};
}

// Own periodic images: entries begin .. end - 1 of the lists with a slot
// straight into ghost slot to.first[l] + k (entry k of list l), and for each
// slot the owned atom it images and the shift from it. Sources are owned
// atoms, so none is written.
__global__ void copy_own_images_kernel(Position* x, int owned,
                                       __grid_constant__ const SendLists lists,
                                       __grid_constant__ const ListSlots to, int begin, int end,
                                       int* root, Position* image) {
  const int t = begin + thread_index();
  if (t >= end) return;
  const int list = list_of_entry(lists, t);
  if (to.first[list] < 0) return;
  const int slot = to.first[list] + t - lists.start[list];
  x[owned + slot] = sent_position(x, lists, t, list);
  root[slot] = lists.entry[t] - list * lists.atoms;
  image[slot] = Position{{lists.shift[list][0], lists.shift[list][1], lists.shift[list][2], 0.0}};
}

// Same-GPU ghosts: entries begin .. end - 1 of the lists with a target
// written into it (entry k of list l at to[l][k]: another rank's mapped
// array at its first slot for the list). With a handshake, the block that
// arrives last then runs it (mark this rank's pushes done, wait for the
// neighbours'), so what follows on the stream sees their pushes; launched
// with at least one block then, also with nothing to push.
struct PushTargets {
  Position* to[kGhostLists];  // null: not pushed
};

__global__ void __launch_bounds__(kThreads)
    push_sends_kernel(const Position* x, __grid_constant__ const SendLists lists,
                      __grid_constant__ const PushTargets push, int begin, int end,
                      __grid_constant__ const StepHandshake handshake) {
  const int t = begin + thread_index();
  if (t < end) {
    const int list = list_of_entry(lists, t);
    if (push.to[list] != nullptr) {
      push.to[list][t - lists.start[list]] = sent_position(x, lists, t, list);
    }
  }
  if (handshake.empty()) return;  // the same for the whole grid
  __shared__ bool last;
  __syncthreads();  // the block's stores, before its arrival
  if (threadIdx.x == 0) {
    __threadfence_system();  // seen by a peer GPU too before the mark
    last = atomicAdd(handshake.arrivals, 1u) == gridDim.x - 1;
    if (last) *handshake.arrivals = 0;  // the next launch starts after this one ends
  }
  __syncthreads();
  if (last) mark_and_wait(handshake, static_cast<int>(threadIdx.x));
}

// Every ghost from the owned atom it images: x[root] + shift, per component.
__global__ void refresh_images_kernel(Position* x, int owned, int ghosts, const int* root,
                                      const Position* image) {
  const int g = thread_index();
  if (g >= ghosts) return;
  Position q = x[root[g]];
  const Position by = image[g];
  for (int d = 0; d < 3; ++d) q.c[d] += by.c[d];
  x[owned + g] = q;
}

// Forces of owned atoms interleaved as out[3 i + d].
__global__ void interleave_forces_kernel(AtomView a, int count, double* out) {
  const int i = thread_index();
  if (i >= count) return;
  for (int d = 0; d < 3; ++d) out[3 * i + d] = a.f[d][i];
}

// v += half_dt F / m for owned atoms.
__global__ void kick_kernel(AtomArrays a, int count, double half_dt, LjParams p) {
  const int i = thread_index();
  if (i >= count) return;
  for (int d = 0; d < 3; ++d) a.v[d][i] = kicked(a.v[d][i], a.f[d][i], half_dt, p);
}

// v += half_dt F / m, then x += dt v, for owned atoms (positions are folded
// into the box when they migrate), and the largest squared distance from the
// positions at the last neighbour build into *farthest2 (zero before), kept
// as the bits of a non-negative double (ordered like the values); *clear is
// zeroed for the next drift.
__global__ void kick_drift_kernel(AtomArrays a, int count, double half_dt, double dt, LjParams p,
                                  const Position* built, unsigned long long* farthest2,
                                  unsigned long long* clear) {
  const int i = thread_index();
  if (i == 0) *clear = 0;  // the next drift's slot
  double r2 = 0;
  if (i < count) {
    Position x = a.x[i];
    const Position x0 = built[i];
    for (int d = 0; d < 3; ++d) {
      const double v = kicked(a.v[d][i], a.f[d][i], half_dt, p);
      a.v[d][i] = v;
      x.c[d] = drifted(x.c[d], v, dt);
      const double delta = x.c[d] - x0.c[d];
      r2 += delta * delta;
    }
    a.x[i] = x;
    if (!(r2 >= 0)) r2 = 1e300;  // NaN: far enough to force a rebuild, which reports it
  }
  for (int o = 16; o > 0; o /= 2) r2 = fmax(r2, __shfl_down_sync(0xffffffffu, r2, o));
  if ((threadIdx.x & 31) == 0 && r2 > 0) {
    atomicMax(farthest2, static_cast<unsigned long long>(__double_as_longlong(r2)));
  }
}

// Owned atoms outside [0, box) along a dimension in `fold` moved to their
// periodic image inside; those still outside (a jump of more than a box) are
// counted into *lost.
__global__ void fold_kernel(AtomArrays a, int count, Position box, Position fold, int* lost) {
  const int i = thread_index();
  if (i >= count) return;
  Position x = a.x[i];
  bool inside = true;
  for (int d = 0; d < 3; ++d) {
    if (fold.c[d] == 0 || (x.c[d] >= 0 && x.c[d] < box.c[d])) continue;
    x.c[d] = across_periodic_edge(x.c[d], box.c[d]);
    inside = inside && x.c[d] >= 0 && x.c[d] < box.c[d];
  }
  a.x[i] = x;
  if (!inside) atomicAdd(lost, 1);
}

// v *= factor for owned atoms.
__global__ void scale_kernel(AtomArrays a, int count, double factor) {
  const int i = thread_index();
  if (i >= count) return;
  for (int d = 0; d < 3; ++d) a.v[d][i] *= factor;
}

// Moves owned atom from[t] into slot to[t] (a hole left by a leaving atom),
// for t below *count (read on the device).
__global__ void move_atoms_kernel(AtomArrays a, const int* to, const int* from, const int* count) {
  const int t = thread_index();
  if (t >= *count) return;
  const int i = to[t], j = from[t];
  a.x[i] = a.x[j];
  for (int d = 0; d < 3; ++d) {
    a.v[d][i] = a.v[d][j];
    a.f[d][i] = a.f[d][j];
  }
  a.id[i] = a.id[j];
}

// Owned atom order[s] into slot s of the `to` arrays (the sort by cell).
__global__ void permute_atoms_kernel(AtomView from, const int* order, int count, AtomArrays to) {
  const int s = thread_index();
  if (s >= count) return;
  const int i = order[s];
  to.x[s] = from.x[i];
  for (int d = 0; d < 3; ++d) to.v[d][s] = from.v[d][i];
  to.id[s] = from.id[i];
}

// Linear link cell (x fastest) of every atom, and the identity permutation that
// the sort by cell then reorders.
__global__ void cell_keys_kernel(AtomView a, int count, CellGrid g, int* key, int* order) {
  const int i = thread_index();
  if (i >= count) return;
  const int cx = link_cell_along(a.x[i].c[0], g, 0);
  const int cy = link_cell_along(a.x[i].c[1], g, 1);
  const int cz = link_cell_along(a.x[i].c[2], g, 2);
  key[i] = (cz * g.count[1] + cy) * g.count[0] + cx;
  order[i] = i;
}

// Positions in cell order, so that the atoms of one cell lie side by side.
__global__ void gather_positions_kernel(AtomView a, const int* order, int count, Position* out) {
  const int s = thread_index();
  if (s >= count) return;
  out[s] = a.x[order[s]];
}

// Full neighbour lists, transposed: neighbour k of owned atom i at
// list[k * stride + i], for every other atom (owned or ghost) within `reach`
// in its own and the 26 adjacent cells, in cell order. A warp per cell, a
// lane per atom of it: the warp loads each neighbouring row of cells (the
// three cells along x of one (y, z) row are consecutive in cell order) into
// its shared tile 32 atoms at a time, and every lane tests its atom against
// the tile. Counts past `capacity` are counted, not stored; the largest goes
// to *longest (one atomic a warp). The bounds ask for 8 blocks an SM (46
// registers): with no minimum, ptxas kept it to 32 registers and spilled.
__global__ void __launch_bounds__(kNeighborWarps * 32, 8)
    neighbor_kernel(CellOrder c, int owned, CellGrid g, double reach2, int capacity, int stride,
                    int* list, int* count, int* longest) {
  constexpr unsigned kAll = 0xffffffffu;
  __shared__ Position tiles[kNeighborWarps][32];
  __shared__ int tile_atoms[kNeighborWarps][32];
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) / 32;
  Position* tile = tiles[warp];
  int* tile_atom = tile_atoms[warp];
  const int nx = g.count[0], ny = g.count[1], nz = g.count[2];
  const int cell = static_cast<int>(blockIdx.x) * kNeighborWarps + warp;
  if (cell >= nx * ny * nz) return;  // whole warps only: no block-wide barrier follows
  const int cx = cell % nx, cy = (cell / nx) % ny, cz = cell / (nx * ny);
  const int x_lo = cx > 0 ? cx - 1 : 0;
  const int x_hi = cx < nx - 1 ? cx + 1 : nx - 1;
  const int begin = c.start[cell], end = c.start[cell + 1];
  int most = 0;
  for (int first = begin; first < end; first += 32) {
    const int s = first + lane;
    const int i = s < end ? c.atom[s] : owned;
    const bool mine = i < owned;  // ghosts need no list
    if (!__any_sync(kAll, mine)) continue;
    Position pi{};
    if (mine) pi = c.x[s];
    int k = 0;
    for (int z = cz - 1; z <= cz + 1; ++z) {
      if (z < 0 || z >= nz) continue;
      for (int y = cy - 1; y <= cy + 1; ++y) {
        if (y < 0 || y >= ny) continue;
        const int row = (z * ny + y) * nx;
        const int row_end = c.start[row + x_hi + 1];
        for (int t0 = c.start[row + x_lo]; t0 < row_end; t0 += 32) {
          __syncwarp();  // the previous tile is no longer read
          const int t = t0 + lane;
          if (t < row_end) {
            tile[lane] = c.x[t];
            tile_atom[lane] = c.atom[t];
          }
          __syncwarp();
          if (!mine) continue;
          const int n = min(32, row_end - t0);
          for (int u = 0; u < n; ++u) {
            const int j = tile_atom[u];
            const double dx = pi.c[0] - tile[u].c[0], dy = pi.c[1] - tile[u].c[1],
                         dz = pi.c[2] - tile[u].c[2];
            if (j == i || dx * dx + dy * dy + dz * dz >= reach2) continue;
            if (k < capacity) list[k * stride + i] = j;
            ++k;
          }
        }
      }
    }
    if (mine) {
      count[i] = k;
      most = max(most, k);
    }
  }
  for (int o = 16; o > 0; o /= 2) most = max(most, __shfl_down_sync(kAll, most, o));
  if (lane == 0 && most > 0) atomicMax(longest, most);
}

// One thread per owned atom: the LJ force from the atoms of its list within
// the cutoff into f; with Sums instead its halves of those pairs' energies
// and virials. The list is walked with neighbours loading ahead
// (neighbour_walk.hpp).
template <bool Sums>
__global__ void __launch_bounds__(kForceThreads)
    force_kernel(const Position* __restrict__ x, int owned, const int* __restrict__ list,
                 const int* __restrict__ count, int stride, LjParams p, double* f0, double* f1,
                 double* f2, double* energy, double* virial) {
  const int i = thread_index();
  if (i >= owned) return;
  const Position pi = x[i];
  double f[3] = {0, 0, 0}, e = 0, w = 0;
  walk_neighbours(
      count[i], i, [&](int k) { return list[k * stride + i]; }, [&](int j) { return x[j]; },
      [&](const Position& q) {
        with_pair_in_cutoff(pi.c, q.c, p, [&](const double* dx, double r2, const PairTerm& t) {
          if (Sums) {
            e += 0.5 * t.energy;
            w += 0.5 * t.f_over_r * r2;
          } else {
            for (int d = 0; d < 3; ++d) f[d] += t.f_over_r * dx[d];
          }
        });
      });
  if (Sums) {
    energy[i] = e;
    virial[i] = w;
  } else {
    f0[i] = f[0];
    f1[i] = f[1];
    f2[i] = f[2];
  }
}

// Whether atom i is outside [lo, hi) along any dimension (== want); a NaN
// coordinate is outside along no dimension.
struct Leaves {
  const Position* x;
  double lo[3], hi[3];
  bool want;
  __device__ bool operator()(int i) const {
    bool out = false;
    for (int d = 0; d < 3; ++d) {
      const double c = x[i].c[d];
      out = out || c < lo[d] || c >= hi[d];
    }
    return out == want;
  }
};

struct EnergyVirial {
  double energy, virial;
};
struct AddEnergyVirial {
  __host__ __device__ EnergyVirial operator()(const EnergyVirial& a, const EnergyVirial& b) const {
    return {a.energy + b.energy, a.virial + b.virial};
  }
};
struct AtomEnergyVirial {
  const double* energy;
  const double* virial;
  __device__ EnergyVirial operator()(int i) const { return {energy[i], virial[i]}; }
};

struct Motion {
  double kinetic, p[3];
};
struct AddMotion {
  __host__ __device__ Motion operator()(const Motion& a, const Motion& b) const {
    return {a.kinetic + b.kinetic, {a.p[0] + b.p[0], a.p[1] + b.p[1], a.p[2] + b.p[2]}};
  }
};
struct AtomMotion {
  const double* v[3];
  LjParams params;
  __device__ Motion operator()(int i) const {
    const double vx = v[0][i], vy = v[1][i], vz = v[2][i];
    return {kinetic_energy(vx, vy, vz, params),
            {params.mass * vx, params.mass * vy, params.mass * vz}};
  }
};

}  // namespace mpsfw::md::gpu
