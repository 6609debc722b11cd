#pragma once
// The Kokkos backend of the particle layer's primitives (particle_arrays.hpp
// says what each must do): Kokkos patterns in the default execution space
// over raw pointers into core memory (the GPU's with a CUDA Kokkos, so that
// same-GPU neighbours can map it). Included by sources built with
// mpsfw_kokkos_sources only.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstddef>
#include <memory>
#include <type_traits>

#include "counting_sort.hpp"
#include "neighbour_rows.hpp"
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/base/hd.hpp>
#include <mpsfw/core/comm/step_handshake.hpp>
#include <mpsfw/core/device/kokkos_launch.hpp>
#include <mpsfw/core/device/memory.hpp>
#if defined(KOKKOS_ENABLE_CUDA)
#include "word_landing.hpp"
#endif

namespace mpsfw {

class KokkosExec {
  using Space = Kokkos::DefaultExecutionSpace;
  using Range = Kokkos::RangePolicy<Space, Kokkos::IndexType<long>>;
  // Closures as kernel arguments (core/device/kokkos_launch.hpp): some carry the 26
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
  static constexpr bool kFusedMax = true;        // max_later
  static constexpr bool kMaxLaterWaits = false;  // no handshake in max_later

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

  // max_of in two halves (NaN counting as HUGE_VAL): on a CUDA Kokkos the
  // largest lands in pinned host memory when this pass ends (WordLanding on
  // Kokkos's stream), so that what the caller queues next runs while
  // later_max waits; on the host it is known at once.
  template <class F>
  void max_later(long n, const F& f) const {
    const auto largest_of = MPSFW_LAMBDA(long i, double& m) {
      const double v = f(i);
      const double w = v >= 0 ? v : HUGE_VAL;
      if (w > m) m = w;
    };
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
      if (!landing_) {
        landing_ = std::make_unique<WordLanding>();
      }
      // Kokkos's last block writes a result the device can reach in place:
      // into the pinned word, no copy after.
      const Kokkos::View<double, Kokkos::CudaHostPinnedSpace, Kokkos::MemoryUnmanaged> word(
          reinterpret_cast<double*>(landing_->landing()));
      Kokkos::parallel_reduce("mpsfw::particles::max_later", range(n), largest_of,
                              Kokkos::Max<double, Kokkos::CudaHostPinnedSpace>(word));
      landing_->arm(Kokkos::Cuda().cuda_stream());
      return;
    }
#endif
    later_ = 0;
    if (n > 0) {
      Kokkos::parallel_reduce("mpsfw::particles::max_later", range(n), largest_of,
                              Kokkos::Max<double>(later_));
    }
  }
  double later_max() const {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
      const double v = double_of_bits(landing_->bits());
      return v > 0 ? v : 0;  // none: the reduction's lowest double
    }
#endif
    return later_;
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

  // The parallel backends' counting sort (counting_sort.hpp).
  template <class KeyOf>
  void sort_by_key(long n, int keys, const KeyOf& key_of, int* key, long* order,
                   long* start) const {
    if (static_cast<long>(fill_.size()) < keys + 1L)
      fill_ = Array<long>(kSpace, static_cast<std::size_t>(keys + keys / 4 + 16));
    if (static_cast<long>(placed_.size()) < n)
      placed_ = Array<long>(kSpace, static_cast<std::size_t>(n + n / 4 + 16));
    counting_sort_by_key(*this, n, keys, key_of, key, order, start, fill_.data(), placed_.data());
  }

  // A team per kCellsPerTeam link cells along x, a thread per particle of
  // them: on a GPU two cells, a warp each (a 32-thread team would cap an SM
  // at 32 warps, its limit of 32 blocks); on the host one cell, one thread.
  // The team loads each (z, y) row's particles under its cells (their points
  // first gathered into cell order, so that a tile's loads are contiguous)
  // into its scratch tile a team's width at a time, and each thread tests its
  // particle against the part of the tile next to its own cell. A cell's
  // particles ascend (sort_by_key is stable), owned before ghosts: a cell is
  // done at its first ghost. Every thread of a team takes the same loop
  // trips (the barriers need it). The same lists as list_one.
  long list_neighbours(const NeighbourBuild& b) const {
    if (static_cast<long>(sorted_.size()) < 4 * b.binned)
      sorted_ = Array<double>(kSpace, static_cast<std::size_t>(4 * (b.binned + b.binned / 4 + 16)));
    double* sorted = sorted_.data();
    {
      const double* x = b.x;
      const long* order = b.order;
      for_each(
          b.binned, MPSFW_LAMBDA(long s) { put_point(sorted, s, point_of(x, order[s])); });
    }
    using Team = Kokkos::TeamPolicy<Space>::member_type;
    constexpr int kLanes = kSpace == Backend::Cuda ? 32 : 1;  // threads a cell
    constexpr int kCellsPerTeam = kSpace == Backend::Cuda ? 2 : 1;
    constexpr int kTeam = kLanes * kCellsPerTeam;
    const int nx = b.grid.count[0], ny = b.grid.count[1], nz = b.grid.count[2];
    const int teams_x = (nx + kCellsPerTeam - 1) / kCellsPerTeam, teams = teams_x * ny * nz;
    // The tile's points and their indices, in scratch aligned for whole-point
    // loads (the slack covers the alignment).
    const std::size_t tile_bytes = kTeam * sizeof(ParticlePoint);
    const std::size_t scratch = tile_bytes + kTeam * sizeof(int) + 2 * alignof(ParticlePoint);
    // 20 teams an SM: 44 registers, no spills (ptxas); the 32 that fit (32
    // registers) were slower (docs/performance.md).
    const auto policy =
        as_kernel_argument(Kokkos::TeamPolicy<Space, Kokkos::LaunchBounds<kTeam, 20>>(teams, kTeam))
            .set_scratch_size(0, Kokkos::PerTeam(scratch));
    long longest = 0;
    Kokkos::parallel_reduce(
        "mpsfw::particles::list_neighbours", policy,
        MPSFW_LAMBDA(const Team& team, long& most) {
          auto* tile = static_cast<ParticlePoint*>(
              team.team_shmem().get_shmem_aligned(tile_bytes, alignof(ParticlePoint)));
          auto* tile_index = static_cast<int*>(
              team.team_shmem().get_shmem_aligned(kTeam * sizeof(int), alignof(int)));
          const auto* points = reinterpret_cast<const ParticlePoint*>(sorted);
          const int rank = team.team_rank(), me = rank % kLanes;
          const int tx = team.league_rank() % teams_x, cy = (team.league_rank() / teams_x) % ny,
                    cz = team.league_rank() / (teams_x * ny);
          const int first_x = tx * kCellsPerTeam;
          const int last_x =
              first_x + kCellsPerTeam - 1 < nx - 1 ? first_x + kCellsPerTeam - 1 : nx - 1;
          // The cells' rows, and this thread's cell and the columns next to it.
          const int row_lo = first_x > 0 ? first_x - 1 : 0,
                    row_hi = last_x < nx - 1 ? last_x + 1 : nx - 1;
          const int cx = first_x + rank / kLanes;  // past last_x: a thread with no cell
          const int x_lo = cx > 0 ? cx - 1 : 0, x_hi = cx < nx - 1 ? cx + 1 : nx - 1;
          // Positions and indices in 32 bits (build_neighbors refuses 2^31
          // particles): fewer registers.
          const int base = (cz * ny + cy) * nx;
          const auto start = [&](int c) { return static_cast<int>(b.start[c]); };
          const int owned = static_cast<int>(b.owned);
          // Whether cell x of this team has an owned particle at `first`
          // (then at every place before it in the cell too).
          const auto owned_at = [&](int x, int first) {
            return x <= last_x && first < start(base + x + 1) && b.order[first] < owned;
          };
          for (int q = 0;; q += kLanes) {
            bool any = false;  // the same answer on every thread of the team
            for (int h = 0; h < kCellsPerTeam; ++h)
              any = any || owned_at(first_x + h, start(base + first_x + h) + q);
            if (!any) break;
            const int s = cx <= last_x ? start(base + cx) + q + me : 0;
            const bool mine = owned_at(cx, s);
            const int i = mine ? static_cast<int>(b.order[s]) : owned;
            const ParticlePoint pi = mine ? points[s] : ParticlePoint{{0, 0, 0, 0}};
            int k = 0;
            for (int z = cz > 0 ? cz - 1 : 0; z <= (cz < nz - 1 ? cz + 1 : nz - 1); ++z) {
              for (int y = cy > 0 ? cy - 1 : 0; y <= (cy < ny - 1 ? cy + 1 : ny - 1); ++y) {
                const int row = (z * ny + y) * nx;
                const int row_end = start(row + row_hi + 1);
                // This thread's candidates: the columns next to its cell.
                const int mine_lo = start(row + x_lo), mine_hi = start(row + x_hi + 1);
                for (int t0 = start(row + row_lo); t0 < row_end; t0 += kTeam) {
                  team.team_barrier();  // the previous tile is no longer read
                  if (t0 + rank < row_end) {
                    tile[rank] = points[t0 + rank];
                    tile_index[rank] = static_cast<int>(b.order[t0 + rank]);
                  }
                  team.team_barrier();
                  if (!mine) continue;
                  const int u_lo = mine_lo > t0 ? mine_lo - t0 : 0;
                  const int u_hi = mine_hi - t0 < kTeam ? mine_hi - t0 : kTeam;
                  for (int u = u_lo; u < u_hi; ++u) {
                    const int j = tile_index[u];
                    const double dx = pi.c[0] - tile[u].c[0], dy = pi.c[1] - tile[u].c[1],
                                 dz = pi.c[2] - tile[u].c[2];
                    if (j == i || dx * dx + dy * dy + dz * dz >= b.reach2) continue;
                    if (k < b.width) b.index[i * b.row_step + k * b.entry_step] = j;
                    ++k;
                  }
                }
              }
            }
            if (mine) {
              b.count[i] = k;
              if (k > most) most = k;
            }
          }
        },
        Kokkos::Max<long>(longest));
    return longest;
  }

  void synchronize() const { Kokkos::fence(); }

 private:
  mutable Array<long> fill_;      // sort_by_key's counts, then places
  mutable Array<long> placed_;    // sort_by_key's particles by key, in no set order
  mutable Array<double> sorted_;  // list_neighbours's points in cell order
  mutable double later_ = 0;      // max_later's result on the host
#if defined(KOKKOS_ENABLE_CUDA)
  mutable std::unique_ptr<WordLanding> landing_;  // max_later's result, on its way
#endif
};

}  // namespace mpsfw
