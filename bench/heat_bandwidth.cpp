// heat_bandwidth: how close the CUDA heat update comes to the device's memory
// bandwidth, measured in one run:
//   copy    cudaMemcpy device-to-device of one field, bytes read + written
//   kernel  one update launch over the whole n^3 interior (16 bytes per cell:
//           each cell read once and written once, neighbours from cache)
//   pushes  the update launch of a rank with same-GPU neighbours across y and z,
//           pushing its planes (into a scratch field here): what pushes cost
//   boundary first  the same rank's step as the solver takes it: one launch,
//           the pushed planes' tiles first (stored into next too), the last
//           of them marking a counter (no neighbour to wait for here), then
//           the rest of the block
//   step    a full solver step on one rank (inner + shell + sync), as runs see it:
//           runs of --steps steps (500), long enough that a run's fixed costs
//           (the middle step's guard, the last step's diagnostics: a pass over
//           the field each) hardly weigh on a step
// Each figure is the median of --repeats timings taken with CUDA events. With
// --sweep the one-cell update (heat_update.cuh: the solver's where its pair
// update does not apply) is timed at every shape of heat_update_shapes.cu;
// --block times a block of that shape instead of n^3 (one rank's block of a
// strong-scaling run, e.g. 256x64x64 for 256^3 on a 1x4x4 grid), and the
// launches of a step are also given in microseconds. --variants times the
// solver's update and the designs of heat_update_variants.cu, each after
// checking that its next field is bit for bit that of one cell per thread
// (heat_update.cuh, 64x4 z8) over the whole interior and over a box with
// partial blocks at its edges. --backend kokkos times the Kokkos backend's
// update (each launch followed by a fence) and its solver step instead: copy,
// kernel and step lines only (pushes and boundary first are timed for the
// native CUDA backend only).
//   heat_bandwidth [--n 512] [--repeats 20] [--steps 500] [--sweep] [--variants]
//                  [--block NXxNYxNZ] [--backend cuda|kokkos]
#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_support.hpp"
#include "bench/heat_update_shapes.hpp"
#include "bench/heat_update_variants.hpp"
#include <mpsfw/core/comm/halo_pushes.hpp>
#include <mpsfw/core/device/cuda_check.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/core/grid/overlap_boxes.hpp>
#include <mpsfw/solvers/heat/heat_config.hpp>
#include <mpsfw/solvers/heat/heat_kernels.hpp>
#include <mpsfw/solvers/heat/heat_solver.hpp>

namespace {

using namespace mpsfw;

// The field `launch` writes into `next`, on the host; `next` starts as a copy
// of `blank`, so that cells outside the launch's box compare equal.
std::vector<double> launched_field(const Array<double>& blank, Array<double>& next,
                                   const std::function<void()>& launch) {
  MPSFW_CUDA_CHECK(cudaMemcpy(next.data(), blank.data(), next.size() * sizeof(double),
                              cudaMemcpyDeviceToDevice));
  launch();
  MPSFW_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> host(next.size());
  next.copy_to_host(host.data());
  return host;
}

// "" when the fields are bit for bit the same, else the first cell that
// differs as "(i,j,k)".
std::string first_difference(const std::vector<double>& a, const std::vector<double>& b,
                             const FieldLayout& layout) {
  if (std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0) return "";
  std::size_t c = 0;
  while (std::memcmp(&a[c], &b[c], sizeof(double)) == 0) ++c;
  const std::int64_t r = static_cast<std::int64_t>(c) - layout.first;
  return "(" + std::to_string(r % layout.stride_y()) + "," +
         std::to_string(r % layout.stride_z() / layout.stride_y()) + "," +
         std::to_string(r / layout.stride_z()) + ")";
}

int run(int argc, char** argv) {
  int n = 512, repeats = 20, steps = 500;
  bool sweep = false, variants = false;
  Backend backend = Backend::Cuda;
  Int3 block{0, 0, 0};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--n" && i + 1 < argc) {
      n = std::atoi(argv[++i]);
    } else if (a == "--repeats" && i + 1 < argc) {
      repeats = std::atoi(argv[++i]);
    } else if (a == "--steps" && i + 1 < argc) {
      steps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--sweep") {
      sweep = true;
    } else if (a == "--variants") {
      variants = true;
    } else if (a == "--backend" && i + 1 < argc) {
      backend = parse_backend(argv[++i]);
    } else if (a == "--block" && i + 1 < argc &&
               std::sscanf(argv[i + 1], "%dx%dx%d", &block.x, &block.y, &block.z) == 3) {
      ++i;
    } else {
      std::fprintf(stderr,
                   "usage: heat_bandwidth [--n N] [--repeats R] [--steps S] [--sweep] "
                   "[--variants] [--block NXxNYxNZ] [--backend cuda|kokkos]\n");
      return 2;
    }
  }
  const bool kokkos = backend == Backend::Kokkos;
  if (kokkos && (sweep || variants)) {
    std::fprintf(stderr, "heat_bandwidth: --sweep and --variants time native CUDA kernels\n");
    return 2;
  }
  if (backend != Backend::Cuda && !kokkos) {
    std::fprintf(stderr, "heat_bandwidth: --backend cuda or kokkos\n");
    return 2;
  }
  const DeviceBinding device = bind_device(backend, 0, 1, CudaGate::without_mps());
  if (kokkos && device.memory != Backend::Cuda) {
    std::fprintf(stderr, "heat_bandwidth: this Kokkos does not run on the GPU (%s)\n",
                 device.name.c_str());
    return 2;
  }
  std::printf("device: %s (%d SMs)\n", device.name.c_str(), device.multiprocessors);

  const Int3 cells_per_dim = block.x > 0 ? block : Int3{n, n, n};
  if (cells_per_dim.x < 4 || cells_per_dim.y < 4 || cells_per_dim.z < 4) {
    std::fprintf(stderr, "heat_bandwidth: --n and --block need at least 4 cells per dimension\n");
    return 2;
  }
  const FieldLayout layout(cells_per_dim);
  const double cells = static_cast<double>(layout.n.product());
  const double field_bytes = static_cast<double>(layout.size()) * sizeof(double);
  Array<double> u(Backend::Cuda, static_cast<size_t>(layout.size()));
  Array<double> next(Backend::Cuda, static_cast<size_t>(layout.size()));
  bench::fill_test_pattern(u);
  bench::fill_test_pattern(next);

  const double copy_s = bench::median_event_seconds(repeats, [&] {
    MPSFW_CUDA_CHECK(cudaMemcpy(next.data(), u.data(), static_cast<size_t>(field_bytes),
                                cudaMemcpyDeviceToDevice));
  });
  const double copy_bw = 2 * field_bytes / copy_s;

  auto kernels = heat::make_heat_kernels(backend);
  const heat::Coefficients k = heat::coefficients(1e-4, 0.1, 0.01, 0.01, 0.01);
  const auto bandwidth = [&](const std::function<void()>& update) {
    return 16.0 * cells / bench::median_event_seconds(repeats, update);
  };

  std::printf("\n%-28s %10s %8s\n", "what", "GB/s", "of copy");
  std::printf("%-28s %10.1f %8.3f\n", "device copy (read+write)", copy_bw * 1e-9, 1.0);
  if (sweep) {
    for (const bench::UpdateShape& s : bench::update_shapes()) {
      const double bw = bandwidth(
          [&] { bench::launch_update(s, u.data(), next.data(), layout, layout.interior(), k); });
      std::printf("kernel %3dx%-3d z%-3d %-9s     %10.1f %8.3f\n", s.bx, s.by, s.z_chunk,
                  s.streaming_store ? "stream" : "", bw * 1e-9, bw / copy_bw);
    }
  }
  if (variants) {
    // u holds the test pattern and stays unchanged: it is also what next
    // starts as. The ragged box keeps box.lo.x (the x2 variants' pairs start
    // aligned there) and leaves partial blocks and chunks at every far edge.
    const Box interior = layout.interior();
    const Box ragged{{interior.lo.x, interior.lo.y + 1, interior.lo.z + 2},
                     {interior.hi.x - 3, interior.hi.y - 1, interior.hi.z - 1}};
    // The reference: one cell per thread (heat_update.cuh), 64 x 4 z8.
    const bench::UpdateShape one_cell{64, 4, 8, false};
    const auto reference_field = [&](const Box& box) {
      return launched_field(
          u, next, [&] { bench::launch_update(one_cell, u.data(), next.data(), layout, box, k); });
    };
    const std::vector<double> want_interior = reference_field(interior);
    const std::vector<double> want_ragged = reference_field(ragged);
    std::vector<std::string> names = bench::update_variants();
    names.insert(names.begin(), "solver");
    for (const std::string& name : names) {
      const auto launch = [&](const Box& box) {
        if (name == "solver") {
          kernels->update(u.data(), next.data(), layout, box, k, {});
        } else {
          bench::launch_update_variant(name, u.data(), next.data(), layout, box, k);
        }
      };
      const auto variant_field = [&](const Box& box) {
        return launched_field(u, next, [&] { launch(box); });
      };
      std::string verdict = "identical";
      const std::string at_interior =
          first_difference(variant_field(interior), want_interior, layout);
      const std::string at_ragged = first_difference(variant_field(ragged), want_ragged, layout);
      if (!at_interior.empty()) {
        verdict = "DIFFER at " + at_interior;
      } else if (!at_ragged.empty()) {
        verdict = "DIFFER at " + at_ragged + " (ragged box)";
      }
      const double bw = bandwidth([&] { launch(interior); });
      std::printf("variant %-26s %10.1f %8.3f  %s\n", name.c_str(), bw * 1e-9, bw / copy_bw,
                  verdict.c_str());
    }
  }
  const double kbw = bandwidth([&] {
    kernels->update(u.data(), next.data(), layout, layout.interior(), k, {});
    if (kokkos) kernels->synchronize();
  });
  std::printf(
      "%-28s %10.1f %8.3f\n",
      (kokkos ? std::string("kernel, Kokkos") : "kernel, " + kernels->update_design()).c_str(),
      kbw * 1e-9, kbw / copy_bw);

  // Full solver steps as a run takes them: inner + shell launches, the per-step
  // synchronisation, one diagnostics pass at the end of the batch.
  const auto solver_step = [&] {
    const int batch = steps;
    const heat::HeatConfig config = heat::heat_config_from(heat::heat_params_from_overrides(
        {"heat.nx=" + std::to_string(layout.n.x), "heat.ny=" + std::to_string(layout.n.y),
         "heat.nz=" + std::to_string(layout.n.z), "run.steps=" + std::to_string(batch)}));
    heat::HeatSolver solver(config, MPI_COMM_SELF, device, false);
    const double step_s =
        bench::median_event_seconds(std::max(3, repeats / 4),
                                    [&] { mpsfw::run_time_loop(solver, nullptr); }) /
        batch;
    const double step_bw = 16.0 * cells / step_s;
    const std::string label = "solver step (" + std::to_string(batch) + "-step runs)";
    std::printf("%-28s %10.1f %8.3f\n", label.c_str(), step_bw * 1e-9, step_bw / copy_bw);
    std::printf(
        "\nheat update (%s) at %dx%dx%d fp64: %.3f of the device's copy bandwidth (kernel), "
        "%.3f (full step)\n",
        to_string(backend), layout.n.x, layout.n.y, layout.n.z, kbw / copy_bw, step_bw / copy_bw);
  };
  if (kokkos) {
    solver_step();
    kernels.reset();
    release_device(device);  // finalises Kokkos
    return 0;
  }

  // What a rank of a 1 x 4 x 4 grid pushes: its planes across y and z (into a
  // scratch field here), computed by extra blocks of the update launch.
  Array<double> scratch(Backend::Cuda, static_cast<size_t>(layout.size()));
  HaloPushes pushes;
  for (int f = YLo; f <= ZHi; ++f) {
    pushes.face[f] = push_target(layout, f, layout, scratch.data());
    pushes.faces |= 1u << f;
  }
  const double push_s = bench::median_event_seconds(repeats, [&] {
    kernels->update(u.data(), next.data(), layout, layout.interior(), k, pushes);
  });
  const double push_bw = 16.0 * cells / push_s;
  std::printf("%-28s %10.1f %8.3f\n", "kernel + pushes (y, z)", push_bw * 1e-9, push_bw / copy_bw);
  // The counter and arrivals of a handshake with no neighbour: the last
  // boundary block only marks.
  Array<std::uint64_t> counter(Backend::Cuda, 2);
  MPSFW_CUDA_CHECK(cudaMemset(counter.data(), 0, 2 * sizeof(std::uint64_t)));
  StepHandshake handshake;
  handshake.mine = counter.data();
  handshake.arrivals = reinterpret_cast<unsigned*>(counter.data() + 1);
  handshake.finished = 1;
  const Box inner = inner_box(layout, pushes.faces);
  const double first_s = bench::median_event_seconds(repeats, [&] {
    kernels->update_boundary_first(u.data(), next.data(), layout, inner, k, pushes, handshake);
  });
  const double first_bw = 16.0 * cells / first_s;
  std::printf("%-28s %10.1f %8.3f\n", "boundary first (y, z)", first_bw * 1e-9, first_bw / copy_bw);
  // The boundary tiles alone (an empty box leaves the rest out).
  const double boundary_s = bench::median_event_seconds(repeats, [&] {
    kernels->update_boundary_first(u.data(), next.data(), layout, Box{}, k, pushes, handshake);
  });
  std::printf(
      "\nper launch, us: kernel %.2f; kernel + pushes %.2f; boundary first %.2f, "
      "its boundary tiles alone %.2f\n",
      16.0 * cells / kbw * 1e6, push_s * 1e6, first_s * 1e6, boundary_s * 1e6);

  solver_step();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mpsfw::bench::mpi_bench_main("heat_bandwidth", argc, argv, run);
}
