// Kokkos backend: the per-cell physics of heat_physics.hpp in Kokkos parallel
// loops on the default execution space. The fields are core's memory (host or
// GPU, as bind_device chose from that space), seen through unmanaged Views;
// the layout's strides index them as in every other backend.
#include <Kokkos_Core.hpp>
#include <type_traits>

#include "boundary_tiles.hpp"
#include "heat_columns_kokkos.hpp"
#include "heat_kernels.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/kokkos_launch.hpp>

namespace mpsfw::heat {
namespace detail {
namespace {

using Space = Kokkos::DefaultExecutionSpace;
using ConstField =
    Kokkos::View<const double*, Space::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
// x (the last index, contiguous in memory) fastest, also inside a tile: a GPU
// space's default iterates the first index fastest, which uncoalesces every
// load (docs/performance.md).
using Right = Kokkos::Iterate;
using Cells = Kokkos::MDRangePolicy<Space, Kokkos::Rank<3, Right::Right, Right::Right>>;
using Rows = Kokkos::MDRangePolicy<Space, Kokkos::Rank<2, Right::Right, Right::Right>>;
// A host execution space (Serial, OpenMP, Threads) runs rows, a GPU one
// columns of kColumnDepth cells along z (heat_columns_kokkos.hpp): depth 8
// beat 16 and 32, a team per row and MDRange tiles
// (bench/heat_kokkos_variants; the figures are in docs/performance.md).
constexpr bool kHostSpace = Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible;
constexpr int kColumnDepth = 8;
#if defined(KOKKOS_ENABLE_CUDA)
constexpr bool kCudaSpace = std::is_same_v<Space, Kokkos::Cuda>;
#else
constexpr bool kCudaSpace = false;
#endif
// A boundary-first launch's teams (update_boundary_first): a GPU team's
// lanes are its threads, laid over a tile as the native kernel's block is
// (kTileX along the plane); a host team is one thread walking the lanes.
constexpr int kTileX = 64, kTileY = 4, kTeamLanes = kTileX * kTileY;

// Cells of `box` as (z, y, x) ranges: x, the contiguous one, varies fastest.
Cells cells_of(const Box& box) {
  return Cells({box.lo.z, box.lo.y, box.lo.x}, {box.hi.z, box.hi.y, box.hi.x});
}

// The larger of `most` and |now - before| at cell c (no fabs: the same
// spelling in Kokkos 3 and 4).
KOKKOS_INLINE_FUNCTION double larger_change(const ConstField& now, const ConstField& before,
                                            std::int64_t c, double most) {
  const double delta = now(c) - before(c);
  const double change = delta < 0 ? -delta : delta;
  return change > most ? change : most;
}

// What a boundary-first launch's tile teams read (update_boundary_first).
struct BoundaryStep {
  BoundaryTiles tiles;
  HaloPushes pushes;
  StepHandshake handshake;
};

class KokkosHeatKernels final : public HeatKernels {
 public:
  void update(const double* u, double* next, const FieldLayout& layout, const Box& box,
              Coefficients k, const HaloPushes& pushes) override {
    if constexpr (kHostSpace) {
      update_rows(u, next, layout, box, k);
      push_planes(u, layout, k, pushes);
    } else {
      update_columns(u, next, layout, box, k, pushes);
    }
  }

  // One launch of teams: the pushed planes' tiles first (dispatched first,
  // so the neighbours get their halos early), then the columns of `inner`.
  // The team that finishes its tile last runs the step's handshake (on a
  // CUDA GPU; on the host, where fields shared between processes stand in
  // for one in tests, the host runs it after the launch).
  void update_boundary_first(const double* u, double* next, const FieldLayout& layout,
                             const Box& inner, Coefficients k, const HaloPushes& pushes,
                             const StepHandshake& handshake) override {
    if (!has_boundary_first()) {
      throw Error("heat: this Kokkos execution space has no boundary-first update");
    }
    if (pushes.empty() && !handshake.empty()) {
      throw Error("Kokkos boundary-first update: a handshake needs pushed faces");
    }
    const BoundaryTiles tiles = boundary_tiles(pushes, kTileX, kTileY);
    const int tile_teams = tiles.total();
    const ColumnMarch<kColumnDepth> march(layout, inner, k);
    const int columns = march.columns();
    const int column_teams = (columns + kTeamLanes - 1) / kTeamLanes;
    if (tile_teams + column_teams == 0) return;
    const FieldLayout l = layout;
    const BoundaryStep step{tiles, pushes, kHostSpace ? StepHandshake{} : handshake};
    // Six teams an SM: 40 registers, as the columns alone take; more
    // registers or fewer were slower under MPS (docs/performance.md).
    using Teams = Kokkos::TeamPolicy<Space, Kokkos::LaunchBounds<kTeamLanes, 6>>;
    using Team = typename Teams::member_type;
    const Teams teams =
        Teams(tile_teams + column_teams, kHostSpace ? 1 : kTeamLanes)
            .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(sizeof(BoundaryStep))));
    Kokkos::parallel_for(
        "mpsfw::heat::update_boundary_first", as_kernel_argument(teams),
        KOKKOS_LAMBDA(const Team& team) {
          const int t = team.league_rank();
          if (t >= tile_teams) {
            const int first = (t - tile_teams) * kTeamLanes;
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kTeamLanes), [&](int lane) {
              if (first + lane < columns) march.column(u, next, first + lane);
            });
            return;
          }
          // The tiles, pushes and handshake are indexed by face and lane:
          // read where the launch passed them, that would copy the whole
          // closure onto every thread's stack (1 KB a thread), so a tile
          // team reads a copy in its shared memory.
          auto* shared =
              static_cast<BoundaryStep*>(team.team_shmem().get_shmem(sizeof(BoundaryStep)));
          Kokkos::single(Kokkos::PerTeam(team), [&]() { *shared = step; });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kTeamLanes), [&](int lane) {
            update_tile_cells<kTileX, kTileY>(u, next, l, k, shared->pushes, shared->tiles, t,
                                              lane % kTileX, lane / kTileX);
          });
          if (shared->handshake.empty()) return;
#if defined(__CUDA_ARCH__)
          team.team_barrier();  // the team's stores, before its arrival
          int last = 0;
          if (team.team_rank() == 0) {
            last = arrived_last(shared->handshake, static_cast<unsigned>(tile_teams),
                                shared->pushes.other_gpu)
                       ? 1
                       : 0;
          }
          team.team_broadcast(last, 0);
          if (last != 0) mark_and_wait(shared->handshake, team.team_rank());
#endif
        });
    if (kHostSpace && !handshake.empty()) {
      Kokkos::fence();
      host_mark_and_wait(handshake);
    }
  }
  // The handshake inside a launch is CUDA's (step_handshake.hpp).
  bool has_boundary_first() const override { return kHostSpace || kCudaSpace; }

  // Each pushed plane cell's new value into the neighbour's halo (host
  // memory shared between processes in tests).
  void push_planes(const double* u, const FieldLayout& layout, Coefficients k,
                   const HaloPushes& pushes) {
    const std::int64_t pushed = pushes.cells();
    if (pushed == 0) return;
    const ConstField from(u, static_cast<size_t>(layout.size()));
    const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
    const FieldLayout l = layout;
    const HaloPushes to = pushes;
    Kokkos::parallel_for(
        "mpsfw::heat::push_planes",
        as_kernel_argument(Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, pushed)),
        KOKKOS_LAMBDA(std::int64_t t) {
          int i = 0, j = 0, kz = 0;
          const int f = to.locate(t, i, j, kz);
          to.store(f, i, j, kz, updated_cell(from.data(), l.index(i, j, kz), sy, sz, k));
        });
  }

  // One (z, y) row per iteration, x in an inner loop the compiler vectorises,
  // as the host backend does: a cell per iteration ran well behind the host
  // backend, rows keep up with it (docs/kokkos.md, bench/heat_backends.sh).
  void update_rows(const double* u, double* next, const FieldLayout& layout, const Box& box,
                   Coefficients k) {
    if (box.empty()) return;
    const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
    const FieldLayout l = layout;
    const int x0 = box.lo.x, x1 = box.hi.x;
    Kokkos::parallel_for(
        "mpsfw::heat::update_rows", Rows({box.lo.z, box.lo.y}, {box.hi.z, box.hi.y}),
        KOKKOS_LAMBDA(int kz, int j) {
          const std::int64_t row = l.index(0, j, kz);
          for (int i = x0; i < x1; ++i) next[row + i] = updated_cell(u, row + i, sy, sz, k);
        });
  }

  // A flat range over the box's (x, y, z chunk) columns (ColumnMarch), and
  // with pushes, the pushed plane cells as the launch's last work items: their
  // new values go into the neighbours' halos (mapped memory of processes on
  // the same GPU); the step's handshake, enqueued after this launch, orders
  // them. Without pushes the kernel has no push code (one kernel for both
  // slowed the one-rank update; docs/performance.md).
  void update_columns(const double* u, double* next, const FieldLayout& layout, const Box& box,
                      Coefficients k, const HaloPushes& pushes) {
    const ColumnMarch<kColumnDepth> march(layout, box, k);
    const int columns = march.columns();
    const std::int64_t pushed = pushes.cells();
    if (pushed == 0) {
      if (columns == 0) return;
      Kokkos::parallel_for(
          "mpsfw::heat::update_columns",
          Kokkos::RangePolicy<Space, Kokkos::IndexType<int>>(0, columns),
          KOKKOS_LAMBDA(int t) { march.column(u, next, t); });
      return;
    }
    using Range = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;
    const HaloPushes to = pushes;
    const FieldLayout l = layout;
    const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
    Kokkos::parallel_for(
        "mpsfw::heat::update_columns_and_push", as_kernel_argument(Range(0, columns + pushed)),
        KOKKOS_LAMBDA(std::int64_t t) {
          if (t < columns) {
            march.column(u, next, static_cast<int>(t));
            return;
          }
          const double* KOKKOS_RESTRICT in = u;  // as in column()
          int i = 0, j = 0, kz = 0;
          const int f = to.locate(t - columns, i, j, kz);
          to.store(f, i, j, kz, updated_cell(in, l.index(i, j, kz), sy, sz, k));
        });
  }

  LocalDiagnostics diagnostics(const double* u, const double* previous,
                               const FieldLayout& layout) override {
    const ConstField now(u, static_cast<size_t>(layout.size()));
    const ConstField before(previous, static_cast<size_t>(layout.size()));
    const FieldLayout l = layout;
    LocalDiagnostics d;
    if constexpr (kHostSpace) {
      const Cells interior = cells_of(layout.interior());
      Kokkos::parallel_reduce(
          "mpsfw::heat::total", interior,
          KOKKOS_LAMBDA(int kz, int j, int i, double& sum) { sum += now(l.index(i, j, kz)); },
          d.total);
      Kokkos::parallel_reduce(
          "mpsfw::heat::max_change", interior,
          KOKKOS_LAMBDA(int kz, int j, int i, double& most) {
            most = larger_change(now, before, l.index(i, j, kz), most);
          },
          Kokkos::Max<double>(d.max_change));
      return d;
    }
    // On a GPU, columns as in the update (x fastest, so a warp's loads
    // coalesce): an MDRange reduction with default tiles read the fields at a
    // fraction of the copy bandwidth (docs/performance.md).
    const ColumnMarch<kColumnDepth> columns(layout, layout.interior(), Coefficients{});
    using Range = Kokkos::RangePolicy<Space, Kokkos::IndexType<int>>;
    Kokkos::parallel_reduce(
        "mpsfw::heat::total_columns", Range(0, columns.columns()),
        KOKKOS_LAMBDA(int t, double& sum) {
          std::int64_t c = 0;
          const int planes = columns.start(t, c);
          double column = 0;
          for (int z = 0; z < planes; ++z, c += columns.sz) column += now(c);
          sum += column;
        },
        d.total);
    Kokkos::parallel_reduce(
        "mpsfw::heat::max_change_columns", Range(0, columns.columns()),
        KOKKOS_LAMBDA(int t, double& most) {
          std::int64_t c = 0;
          const int planes = columns.start(t, c);
          for (int z = 0; z < planes; ++z, c += columns.sz)
            most = larger_change(now, before, c, most);
        },
        Kokkos::Max<double>(d.max_change));
    return d;
  }

  void synchronize() override { Kokkos::fence(); }
};

}  // namespace

std::unique_ptr<HeatKernels> make_kokkos_heat_kernels() {
  return std::make_unique<KokkosHeatKernels>();
}

}  // namespace detail
}  // namespace mpsfw::heat
