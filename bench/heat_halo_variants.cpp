// heat_halo_variants: the orderings of a heat step with same-GPU neighbours
// that production does not run, beside the one it does, in one job
// (`mpirun -np N`, all ranks on one GPU, under MPS or not, as launched):
//   boundary-first  production (HeatSolver, FieldHalos' pushes): one launch
//                   computes the pushed planes first, writes them into the
//                   neighbours' halos, then the rest, and runs the handshake
//   push-last       the same pushes from one whole-block launch (the planes
//                   are written when the block is done), then the handshake
//                   kernel (or the host barrier)
//   pull            no pushes: every step first copies the neighbours' planes
//                   into its own halo (FieldHalos, a copy kernel), then updates
//   mpi             every face through MPI (run.halo = mpi)
// Each variant runs the same problem from the same initial field; the figure
// is cells * steps / the slowest rank's loop time (median of --repeats runs),
// and its field must equal production's bit for bit ("identical").
//   mpirun -np N heat_halo_variants [--n 256] [--steps 400] [--repeats 5]
//                                   [--sync auto|barrier]
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_support.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/comm/field_halos.hpp>
#include <mpsfw/core/comm/region_copy.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/core/grid/overlap_boxes.hpp>
#include <mpsfw/solvers/heat/heat_config.hpp>
#include <mpsfw/solvers/heat/heat_initial.hpp>
#include <mpsfw/solvers/heat/heat_kernels.hpp>
#include <mpsfw/solvers/heat/heat_solver.hpp>

namespace {

using namespace mpsfw;

heat::HeatConfig config_for(int n, int steps, const std::string& halo, const std::string& sync) {
  return heat::heat_config_from(heat::heat_params_from_overrides(
      {"heat.nx=" + std::to_string(n), "heat.ny=" + std::to_string(n),
       "heat.nz=" + std::to_string(n), "run.steps=" + std::to_string(steps), "run.diag_every=0",
       "run.halo=" + halo, "run.halo_sync=" + sync}));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double slowest(double mine) {
  double all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

// One run of a variant: its loop time (this rank) and final interior.
struct Outcome {
  double seconds = 0;
  std::vector<double> interior;
};

std::vector<double> interior_of(const Array<double>& u, const FieldLayout& layout) {
  PackedBoxes in;
  in.add(layout.interior());
  Array<double> packed(u.space(), static_cast<size_t>(in.cells));
  copy_regions(u.space(), ScalarType::Float64, pack_copies(u.data(), layout, in, packed.data()));
  std::vector<double> host(packed.size());
  packed.copy_to_host(host.data());
  return host;
}

std::array<bool, 3> periodic_dims(const heat::HeatConfig& c) {
  const bool p = c.boundary == heat::Boundary::Periodic;
  return {p, p, p};
}

// A heat block driven by hand: fields, kernels and the decomposition the
// solver would make for `config`.
struct Block {
  Block(const heat::HeatConfig& c, const DeviceBinding& device)
      : config(c),
        decomposition(MPI_COMM_WORLD, c.cells, c.rank_grid_hint, periodic_dims(c),
                      kStridedFaceCost),
        layout(decomposition.local_cells()),
        k(heat::coefficients(c.diffusivity, c.dt, c.spacing[0], c.spacing[1], c.spacing[2])),
        kernels(heat::make_heat_kernels(device.backend)),
        u(device.backend, static_cast<size_t>(layout.size())),
        next(device.backend, static_cast<size_t>(layout.size())) {
    const std::vector<double> initial = heat::initial_block(c, decomposition, layout);
    u.copy_from_host(initial.data());
    next.copy_from_host(initial.data());
  }
  heat::HeatConfig config;
  CartDecomposition decomposition;
  FieldLayout layout;
  heat::Coefficients k;
  std::unique_ptr<heat::HeatKernels> kernels;
  Array<double> u, next;
};

Outcome run_production(const heat::HeatConfig& c, const DeviceBinding& device) {
  heat::HeatSolver solver(c, MPI_COMM_WORLD, device, mpi_is_cuda_aware());
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = std::chrono::steady_clock::now();
  mpsfw::run_time_loop(solver, nullptr);
  return {seconds_since(t0), solver.local_interior()};
}

// Pushes from the step's one whole-block launch, then finish_step's
// handshake kernel (or barrier).
Outcome run_push_last(const heat::HeatConfig& c, const DeviceBinding& device) {
  Block b(c, device);
  FieldHalos halo(b.decomposition, b.layout, HaloShape{}, device.backend, mpi_is_cuda_aware());
  halo.add_field<double>({b.u.data(), b.next.data()});
  halo.connect(c.halo, device_location(device), c.halo_sync, HaloDelivery::Push);
  static const HaloPushes none;
  const FaceMask late = halo.routes().mpi;
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = std::chrono::steady_clock::now();
  for (long s = 0; s < c.steps; ++s) {
    const HaloPushes& pushes = halo.pushes(0, b.next.data());
    halo.start(b.u.data());
    b.kernels->update(b.u.data(), b.next.data(), b.layout, inner_box(b.layout, late), b.k,
                      late == 0 ? pushes : none);
    halo.finish();
    const ShellBoxes shell = shell_boxes(b.layout, late);
    for (int i = 0; i < shell.count; ++i) {
      b.kernels->update(b.u.data(), b.next.data(), b.layout, shell.box[i], b.k,
                        i + 1 == shell.count ? pushes : none);
    }
    halo.finish_step();
    b.u.swap(b.next);
  }
  b.kernels->synchronize();
  halo.quiesce();
  const double seconds = seconds_since(t0);
  return {seconds, interior_of(b.u, b.layout)};
}

// Pulls: each step copies the neighbours' planes into this rank's halo first.
Outcome run_pull(const heat::HeatConfig& c, const DeviceBinding& device) {
  Block b(c, device);
  FieldHalos halos(b.decomposition, FieldLayout(b.layout.n, 1), HaloShape{1, false}, device.backend,
                   mpi_is_cuda_aware());
  halos.add_field<double>({b.u.data(), b.next.data()});
  halos.connect(c.halo, device_location(device), c.halo_sync);
  static const HaloPushes none;
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = std::chrono::steady_clock::now();
  for (long s = 0; s < c.steps; ++s) {
    halos.start(b.u.data());
    halos.finish();
    b.kernels->update(b.u.data(), b.next.data(), b.layout, b.layout.interior(), b.k, none);
    halos.finish_step();
    b.u.swap(b.next);
  }
  b.kernels->synchronize();
  halos.quiesce();
  const double seconds = seconds_since(t0);
  return {seconds, interior_of(b.u, b.layout)};
}

bool identical_everywhere(const std::vector<double>& a, const std::vector<double>& b) {
  int same = a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 8) == 0 ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all == 1;
}

int run(int argc, char** argv) {
  int n = 256, steps = 400, repeats = 5;
  std::string sync = "auto";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--n" && i + 1 < argc) {
      n = std::atoi(argv[++i]);
    } else if (a == "--steps" && i + 1 < argc) {
      steps = std::atoi(argv[++i]);
    } else if (a == "--repeats" && i + 1 < argc) {
      repeats = std::atoi(argv[++i]);
    } else if (a == "--sync" && i + 1 < argc) {
      sync = argv[++i];
    } else {
      throw Error(
          "usage: heat_halo_variants [--n N] [--steps S] [--repeats R] [--sync auto|barrier]");
    }
  }
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_rank = 0, node_size = 1;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  const DeviceBinding device =
      bind_device(Backend::Cuda, node_rank, node_size, CudaGate::without_mps());

  struct Variant {
    const char* name;
    std::string halo;
    std::function<Outcome(const heat::HeatConfig&, const DeviceBinding&)> run;
  };
  const std::vector<Variant> variants = {{"boundary-first", "auto", run_production},
                                         {"push-last", "auto", run_push_last},
                                         {"pull", "auto", run_pull},
                                         {"mpi", "mpi", run_production}};
  if (rank == 0) {
    std::printf("heat_halo_variants: %d^3 fp64, %d steps, %d ranks, MPS %s, run.halo_sync=%s\n", n,
                steps, ranks, device.mps_enabled ? "on" : "off", sync.c_str());
    std::printf("%-15s %14s %10s %s\n", "variant", "cells/s", "vs first", "field");
  }
  std::vector<double> reference;
  double first_rate = 0;
  for (const Variant& v : variants) {
    const heat::HeatConfig c = config_for(n, steps, v.halo, sync);
    std::vector<double> times;
    std::vector<double> field;
    for (int r = -1; r < repeats; ++r) {  // one warm-up run first
      Outcome o = v.run(c, device);
      if (r >= 0) times.push_back(slowest(o.seconds));
      if (r == -1) field = std::move(o.interior);
    }
    std::sort(times.begin(), times.end());
    const double rate = static_cast<double>(n) * n * n * steps / times[times.size() / 2];
    if (reference.empty()) {
      reference = field;
      first_rate = rate;
    }
    const bool same = identical_everywhere(field, reference);
    if (rank == 0) {
      std::printf("%-15s %14.4g %10.3f %s\n", v.name, rate, rate / first_rate,
                  same ? "identical" : "DIFFERS");
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return bench::mpi_bench_main("heat_halo_variants", argc, argv, run);
}
