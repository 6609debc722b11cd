#pragma once
// The Kokkos backend of the particle layer's primitives (particle_arrays.hpp
// says what each must do): Kokkos patterns in the default execution space
// over raw pointers into core memory (the GPU's with a CUDA Kokkos, so that
// same-GPU neighbours can map it). Included by sources built with
// mpsfw_kokkos_sources only.
#include <Kokkos_Core.hpp>
#include <cstddef>

#include "core/backend.hpp"
#include "core/comm/step_handshake.hpp"
#include "core/hd.hpp"
#include "core/kokkos_launch.hpp"
#include "core/memory.hpp"
#include "neighbour_rows.hpp"

namespace mpsfw {

class KokkosExec {
  using Space = Kokkos::DefaultExecutionSpace;
  using Range = Kokkos::RangePolicy<Space, Kokkos::IndexType<long>>;
  // Closures as kernel arguments (core/kokkos_launch.hpp): some carry the 26
  // ghost lists' runs.
  static decltype(as_kernel_argument(Range())) range(long n) {
    return as_kernel_argument(Range(0, n));
  }

 public:
  static constexpr Backend kSpace =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space::memory_space>::accessible
          ? Backend::Host
          : Backend::Cuda;
  static constexpr bool kRowsTransposed = kSpace == Backend::Cuda;
  // No max_later: a reduction into device memory inside the drift cost more
  // than the check's own pass (docs/performance.md, 2026-11-27).
  static constexpr bool kFusedMax = false;
  // Kokkos's scan over 26 entries a particle cost 3.5 times CUB's select: the
  // ghost lists' selection takes the particles in some list first
  // (docs/performance.md, 2026-11-27).
  static constexpr bool kShellFirst = true;

  template <class F>
  void for_each(long n, const F& f) const {
    if (n > 0) Kokkos::parallel_for("mpsfw::particles::for_each", range(n), f);
  }

  // for_each for bodies that walk neighbour lists (a GPU launches them in
  // blocks of their own size).
  template <class F>
  void for_each_walk(long n, const F& f) const {
    for_each(n, f);
  }

  // No handshake on the device here: declined, the caller runs it apart.
  template <class F>
  bool for_each_then(long n, const F& f, const StepHandshake& h) const {
    if (!h.empty()) return false;
    for_each(n, f);
    return true;
  }

  template <class F>
  long count(long n, const F& f) const {
    long total = 0;
    if (n <= 0) return total;
    Kokkos::parallel_reduce(
        "mpsfw::particles::count", range(n), MPSFW_LAMBDA(long i, long& s) { s += f(i); }, total);
    return total;
  }

  template <class F>
  double max_of(long n, const F& f) const {
    double largest = 0;
    if (n <= 0) return largest;
    Kokkos::parallel_reduce(
        "mpsfw::particles::max_of", range(n),
        MPSFW_LAMBDA(long i, double& m) {
          const double v = f(i);
          if (v > m) m = v;
        },
        Kokkos::Max<double>(largest));
    return largest;
  }

  // Kokkos's reduction order: fixed for n and the execution space's
  // configuration (thread count, launch shape), not the host's sequential one.
  template <class F>
  double sum(long n, const F& f) const {
    double total = 0;
    if (n <= 0) return total;
    Kokkos::parallel_reduce(
        "mpsfw::particles::sum", range(n), MPSFW_LAMBDA(long i, double& s) { s += f(i); },
        Kokkos::Sum<double>(total));
    return total;
  }

  template <class F, class Use>
  void scan(long n, const F& f, const Use& use) const {
    if (n <= 0) return;
    Kokkos::parallel_scan(  // no total: no wait for the device
        "mpsfw::particles::scan", range(n), MPSFW_LAMBDA(long i, long& before, bool final) {
          const long v = f(i);
          if (final) use(i, before);
          before += v;
        });
  }

  template <class Pick>
  void select(long n, const Pick& pick, int* out, long* count) const {
    if (n <= 0) {
      for_each(
          1L, MPSFW_LAMBDA(long) { *count = 0; });
      return;
    }
    scan(
        n, MPSFW_LAMBDA(long i) { return pick(i) ? 1L : 0L; },
        MPSFW_LAMBDA(long i, long before) {
          const bool taken = pick(i);
          if (taken) out[before] = static_cast<int>(i);
          if (i == n - 1) *count = before + (taken ? 1 : 0);
        });
  }

  // A counting sort: each key's count by atomics, their starts by a scan,
  // places by atomics, and each key's run back into index order (insertion
  // sort: a key, a link cell, holds a few tens of particles), so stable.
  void sort_by_key(const int* key, long n, int keys, long* order, long* start) const {
    if (static_cast<long>(fill_.size()) < keys + 1L)
      fill_ = Array<long>(kSpace, static_cast<std::size_t>(keys + keys / 4 + 16));
    long* fill = fill_.data();
    for_each(
        keys + 1L, MPSFW_LAMBDA(long k) { fill[k] = 0; });
    for_each(
        n, MPSFW_LAMBDA(long i) { Kokkos::atomic_fetch_add(&fill[key[i]], 1L); });
    scan(
        keys + 1L, MPSFW_LAMBDA(long k) { return fill[k]; },
        MPSFW_LAMBDA(long k, long before) { start[k] = before; });
    for_each(
        keys + 1L, MPSFW_LAMBDA(long k) { fill[k] = start[k]; });
    for_each(
        n, MPSFW_LAMBDA(long i) { order[Kokkos::atomic_fetch_add(&fill[key[i]], 1L)] = i; });
    for_each(
        keys, MPSFW_LAMBDA(long k) {
          for (long a = start[k] + 1; a < start[k + 1]; ++a) {
            const long particle = order[a];
            long b = a;
            for (; b > start[k] && order[b - 1] > particle; --b) order[b] = order[b - 1];
            order[b] = particle;
          }
        });
  }

  // A team per link cell, a thread per particle of it: the team loads each
  // (z, y) row's particles into its scratch tile a team's width at a time,
  // and each thread tests its particle against the tile (on a GPU a team is
  // a warp; on the host one thread). The same lists as list_one.
  long list_neighbours(const NeighbourBuild& b) const {
    using Team = Kokkos::TeamPolicy<Space>::member_type;
    using Tile = Kokkos::View<double* [4], Kokkos::LayoutRight, Space::scratch_memory_space,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    using TileIndex =
        Kokkos::View<long*, Space::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const int team_size = kSpace == Backend::Cuda ? 32 : 1;
    const int cells = b.grid.count[0] * b.grid.count[1] * b.grid.count[2];
    const std::size_t scratch = Tile::shmem_size(team_size) + TileIndex::shmem_size(team_size);
    const auto policy = as_kernel_argument(Kokkos::TeamPolicy<Space>(cells, team_size))
                            .set_scratch_size(0, Kokkos::PerTeam(scratch));
    long longest = 0;
    Kokkos::parallel_reduce(
        "mpsfw::particles::list_neighbours", policy,
        MPSFW_LAMBDA(const Team& team, long& most) {
          const Tile tile(team.team_scratch(0), team_size);
          const TileIndex tile_index(team.team_scratch(0), team_size);
          const int me = team.team_rank();
          const int cell = team.league_rank();
          const int nx = b.grid.count[0], ny = b.grid.count[1], nz = b.grid.count[2];
          const int cx = cell % nx, cy = (cell / nx) % ny, cz = cell / (nx * ny);
          const int x_lo = cx > 0 ? cx - 1 : 0, x_hi = cx < nx - 1 ? cx + 1 : nx - 1;
          const long end = b.start[cell + 1];
          for (long first = b.start[cell]; first < end; first += team_size) {
            const long s = first + me;
            const long i = s < end ? b.order[s] : b.owned;
            const bool mine = i < b.owned;  // ghosts need no list
            const ParticlePoint pi = mine ? point_of(b.x, i) : ParticlePoint{{0, 0, 0, 0}};
            long k = 0;
            for (int z = cz > 0 ? cz - 1 : 0; z <= (cz < nz - 1 ? cz + 1 : nz - 1); ++z) {
              for (int y = cy > 0 ? cy - 1 : 0; y <= (cy < ny - 1 ? cy + 1 : ny - 1); ++y) {
                const long row = (static_cast<long>(z) * ny + y) * nx;
                const long row_end = b.start[row + x_hi + 1];
                for (long t0 = b.start[row + x_lo]; t0 < row_end; t0 += team_size) {
                  team.team_barrier();  // the previous tile is no longer read
                  if (t0 + me < row_end) {
                    const long j = b.order[t0 + me];
                    for (int d = 0; d < 3; ++d) tile(me, d) = b.x[4 * j + d];
                    tile_index(me) = j;
                  }
                  team.team_barrier();
                  if (!mine) continue;
                  const long n = row_end - t0 < team_size ? row_end - t0 : team_size;
                  for (long u = 0; u < n; ++u) {
                    const long j = tile_index(u);
                    const double dx = pi.c[0] - tile(u, 0), dy = pi.c[1] - tile(u, 1),
                                 dz = pi.c[2] - tile(u, 2);
                    if (j == i || dx * dx + dy * dy + dz * dz >= b.reach2) continue;
                    if (k < b.width)
                      b.index[i * b.row_step + k * b.entry_step] = static_cast<int>(j);
                    ++k;
                  }
                }
              }
            }
            if (mine) {
              b.count[i] = static_cast<int>(k);
              if (k > most) most = k;
            }
          }
        },
        Kokkos::Max<long>(longest));
    return longest;
  }

  void synchronize() const { Kokkos::fence(); }
  void sleep_while_waiting(bool /*sleep*/) const {}  // Kokkos's waits are its own

 private:
  mutable Array<long> fill_;  // sort_by_key's counts, then places
};

}  // namespace mpsfw
