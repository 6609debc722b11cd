#include "bench_support.hpp"

#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <vector>

#include <mpsfw/core/device/cuda_check.hpp>

namespace mpsfw::bench {

double median_event_seconds(int repeats, const std::function<void()>& work) {
  cudaEvent_t start, stop;
  MPSFW_CUDA_CHECK(cudaEventCreate(&start));
  MPSFW_CUDA_CHECK(cudaEventCreate(&stop));
  work();
  work();
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    MPSFW_CUDA_CHECK(cudaEventRecord(start));
    work();
    MPSFW_CUDA_CHECK(cudaEventRecord(stop));
    MPSFW_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    MPSFW_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms * 1e-3);
  }
  MPSFW_CUDA_CHECK(cudaEventDestroy(start));
  MPSFW_CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void fill_test_pattern(Array<double>& a) {
  std::vector<double> host(a.size());
  for (size_t i = 0; i < host.size(); ++i) host[i] = 1.0 + 1e-3 * static_cast<double>(i % 977);
  a.copy_from_host(host.data());
}

int mpi_bench_main(const char* name, int argc, char** argv, int (*run)(int, char**)) {
  MPI_Init(&argc, &argv);
  int code = 1;
  try {
    code = run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}

}  // namespace mpsfw::bench
