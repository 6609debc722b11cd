// grid_loop_bandwidth: how close a stencil written once over the framework's
// grid loops (core/grid/grid_loops.hpp: for_each_cell over CudaExec, what a
// user's MPSFW_LAMBDA runs on) comes to the device's memory bandwidth, in
// one run:
//   copy       cudaMemcpy device-to-device of one field, bytes read + written
//   7-point    heat's FTCS update (heat_physics.hpp's updated_cell) over the
//              n^3 interior: 16 bytes a cell (read once, written once,
//              neighbours from cache)
//   13-point   the wave example's 4th-order leapfrog (wave_physics.hpp's
//              leapfrog_cell: a field read around the cell, a second read and
//              written at the cell): 24 bytes a cell
// Each figure is the median of --repeats timings taken with CUDA events;
// each stencil's fraction is its bandwidth over the copy's.
//   grid_loop_bandwidth [--n 512] [--repeats 20]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench/bench_support.hpp"
#include "examples/wave/wave_physics.hpp"
#include <mpsfw/core/device/cuda_check.hpp>
#include <mpsfw/core/grid/grid_loops.hpp>
#include <mpsfw/core/particles/cuda_exec.cuh>
#include <mpsfw/solvers/heat/heat_physics.hpp>

namespace {

using namespace mpsfw;

int run(int argc, char** argv) {
  int n = 512, repeats = 20;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--n")) n = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--repeats")) repeats = std::atoi(argv[a + 1]);
  }
  const CudaExec exec;
  const double cells = static_cast<double>(n) * n * n;
  std::printf("grid_loop_bandwidth: %d^3 cells, medians of %d\n", n, repeats);

  const FieldLayout seven(Int3{n, n, n}, 1);
  Array<double> u(Backend::Cuda, static_cast<std::size_t>(seven.size()));
  Array<double> next(Backend::Cuda, static_cast<std::size_t>(seven.size()));
  bench::fill_test_pattern(u);
  bench::fill_test_pattern(next);
  const double copy = bench::median_event_seconds(repeats, [&] {
    MPSFW_CUDA_CHECK(
        cudaMemcpy(next.data(), u.data(), sizeof(double) * seven.size(), cudaMemcpyDeviceToDevice));
  });
  const double copy_bw = 2.0 * sizeof(double) * seven.size() / copy;
  std::printf("  copy      %8.3f ms  %7.1f GB/s\n", 1e3 * copy, 1e-9 * copy_bw);

  const heat::Coefficients k{0.1, 0.1, 0.1};
  const std::int64_t sy = seven.stride_y(), sz = seven.stride_z();
  const double* in = u.data();
  double* out = next.data();
  const double t7 = bench::median_event_seconds(repeats, [&] {
    for_each_cell(
        exec, seven, seven.interior(), MPSFW_LAMBDA(std::int64_t c, int, int, int) {
          out[c] = heat::updated_cell(in, c, sy, sz, k);
        });
    MPSFW_CUDA_CHECK(cudaGetLastError());
  });
  const double bw7 = 16.0 * cells / t7;
  std::printf("  7-point   %8.3f ms  %7.1f GB/s  %.3f of copy\n", 1e3 * t7, 1e-9 * bw7,
              bw7 / copy_bw);

  const FieldLayout thirteen(Int3{n, n, n}, 2);
  Array<double> w(Backend::Cuda, static_cast<std::size_t>(thirteen.size()));
  Array<double> w_prev(Backend::Cuda, static_cast<std::size_t>(thirteen.size()));
  bench::fill_test_pattern(w);
  bench::fill_test_pattern(w_prev);
  const std::int64_t wy = thirteen.stride_y(), wz = thirteen.stride_z();
  const wave::Coefficients kw{1e-3, 1e-3, 1e-3};
  const double* wu = w.data();
  double* wp = w_prev.data();
  const double t13 = bench::median_event_seconds(repeats, [&] {
    for_each_cell(
        exec, thirteen, thirteen.interior(), MPSFW_LAMBDA(std::int64_t c, int, int, int) {
          wp[c] = wave::leapfrog_cell(wu, wp, c, wy, wz, kw);
        });
    MPSFW_CUDA_CHECK(cudaGetLastError());
  });
  const double bw13 = 24.0 * cells / t13;
  std::printf("  13-point  %8.3f ms  %7.1f GB/s  %.3f of copy\n", 1e3 * t13, 1e-9 * bw13,
              bw13 / copy_bw);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mpsfw::bench::mpi_bench_main("grid_loop_bandwidth", argc, argv, run);
}
