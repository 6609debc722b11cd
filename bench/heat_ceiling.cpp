// heat_ceiling: where the time goes when N ranks share one GPU, in one run of
// `mpirun -np N` (all ranks on one GPU, under MPS or not, as launched):
//   one rank     rank 0 alone runs the whole n^3 problem; the others wait
//   independent  every rank runs its own block of the N-rank decomposition as
//                a separate problem (MPI_COMM_SELF): no halo, no waits. The
//                most N concurrent ranks can reach with this kernel.
//   coupled      the real run: one n^3 problem over all ranks, halos as
//                run.halo says (default auto)
// Throughput = cells * steps / the slowest rank's loop time, median of
// --repeats runs, each started together after a barrier. independent / one
// rank is the cost of splitting the GPU; coupled / independent is the cost of
// exchanging halos and ordering the steps.
//   mpirun -np N heat_ceiling [--n 256] [--steps 400] [--repeats 5] [--halo auto]
//                             [--grid PXxPYxPZ]   (rank grid, 0 = free; default 0x0x0)
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_support.hpp"
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/solvers/heat/heat_config.hpp>
#include <mpsfw/solvers/heat/heat_solver.hpp>

namespace {

using namespace mpsfw;

heat::HeatConfig config_for(Int3 cells, int steps, const std::string& halo, Int3 grid) {
  return heat::heat_config_from(heat::heat_params_from_overrides(
      {"heat.nx=" + std::to_string(cells.x), "heat.ny=" + std::to_string(cells.y),
       "heat.nz=" + std::to_string(cells.z), "run.steps=" + std::to_string(steps),
       "run.diag_every=0", "run.halo=" + halo, "run.px=" + std::to_string(grid.x),
       "run.py=" + std::to_string(grid.y), "run.pz=" + std::to_string(grid.z)}));
}

// Median over `repeats` of the slowest participating rank's run() time; ranks
// with no solver only keep the barriers. One warm-up run first.
double median_loop_seconds(heat::HeatSolver* solver, int repeats) {
  std::vector<double> times;
  for (int r = -1; r < repeats; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    if (solver != nullptr) mpsfw::run_time_loop(*solver, nullptr);
    const double mine =
        solver != nullptr
            ? std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
            : 0.0;
    double slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r >= 0) times.push_back(slowest);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int run(int argc, char** argv) {
  int n = 256, steps = 400, repeats = 5;
  std::string halo = "auto";
  Int3 grid{0, 0, 0};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--n" && i + 1 < argc) {
      n = std::atoi(argv[++i]);
    } else if (a == "--steps" && i + 1 < argc) {
      steps = std::atoi(argv[++i]);
    } else if (a == "--repeats" && i + 1 < argc) {
      repeats = std::atoi(argv[++i]);
    } else if (a == "--halo" && i + 1 < argc) {
      halo = argv[++i];
    } else if (a == "--grid" && i + 1 < argc &&
               std::sscanf(argv[i + 1], "%dx%dx%d", &grid.x, &grid.y, &grid.z) == 3) {
      ++i;
    } else {
      std::fprintf(stderr,
                   "usage: heat_ceiling [--n N] [--steps S] [--repeats R] [--halo auto|mpi|ipc] "
                   "[--grid PXxPYxPZ]\n");
      return 2;
    }
  }
  if (n < 8 || steps < 1 || repeats < 1) {
    std::fprintf(stderr, "heat_ceiling: --n must be >= 8, --steps and --repeats >= 1\n");
    return 2;
  }
  int me = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // All ranks on GPU 0: the question is how N ranks share one GPU.
  const DeviceBinding device = bind_device(Backend::Cuda, 0, 1, CudaGate::without_mps());
  int all_mps = 0;
  MPI_Allreduce(&device.mps_enabled, &all_mps, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

  const Int3 global{n, n, n};
  const double cell_steps = static_cast<double>(global.product()) * steps;
  const heat::HeatConfig whole = config_for(global, steps, halo, grid);
  const Int3 free_grid{0, 0, 0};  // one rank, or each rank alone

  double one_rank = 0;
  {
    std::unique_ptr<heat::HeatSolver> solver;
    if (me == 0) {
      solver = std::make_unique<heat::HeatSolver>(config_for(global, steps, halo, free_grid),
                                                  MPI_COMM_SELF, device, false);
    }
    one_rank = cell_steps / median_loop_seconds(solver.get(), repeats);
  }
  // The same blocks as the coupled run, each a problem of its own.
  const CartDecomposition split(MPI_COMM_WORLD, global, whole.rank_grid_hint, {false, false, false},
                                kStridedFaceCost);
  const Int3 block = split.local_cells();
  const Int3 rank_grid = split.rank_grid();
  double independent = 0;
  {
    heat::HeatSolver solver(config_for(block, steps, halo, free_grid), MPI_COMM_SELF, device,
                            false);
    independent = cell_steps / median_loop_seconds(&solver, repeats);
  }
  double coupled = 0;
  std::string halo_path;
  {
    heat::HeatSolver solver(whole, MPI_COMM_WORLD, device, mpi_is_cuda_aware());
    coupled = cell_steps / median_loop_seconds(&solver, repeats);
    const HaloRoutes& h = solver.halo().routes();
    halo_path = std::to_string(face_count(h.direct)) + " faces device to device, " +
                std::to_string(face_count(h.mpi)) + " through MPI" +
                (h.fallback.empty() ? "" : " (fell back: " + h.fallback + ")");
  }
  if (me == 0) {
    std::printf("heat_ceiling: %d^3 fp64, %d steps, %d ranks on %s, MPS %s, run.halo=%s\n", n,
                steps, ranks, device.name.c_str(), all_mps == 1 ? "on (every rank)" : "off",
                halo.c_str());
    std::printf("rank grid %dx%dx%d, block %dx%dx%d per rank; rank 0: %s\n", rank_grid.x,
                rank_grid.y, rank_grid.z, block.x, block.y, block.z, halo_path.c_str());
    std::printf("%-12s %14s %12s\n", "run", "cells/s", "vs one rank");
    std::printf("%-12s %14.3e %12.3f\n", "one rank", one_rank, 1.0);
    std::printf("%-12s %14.3e %12.3f\n", "independent", independent, independent / one_rank);
    std::printf("%-12s %14.3e %12.3f\n", "coupled", coupled, coupled / one_rank);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mpsfw::bench::mpi_bench_main("heat_ceiling", argc, argv, run);
}
