#include "device.hpp"

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "error.hpp"
#if MPSFW_HAVE_CUDA
#include "cuda_check.hpp"
#endif

namespace mpsfw {

int count_visible_gpus(const CudaGate&) {
#if MPSFW_HAVE_CUDA
  int count = 0;
  const cudaError_t code = cudaGetDeviceCount(&count);
  if (code == cudaErrorInsufficientDriver || code == cudaErrorStubLibrary ||
      code == cudaErrorNoDevice) {
    cudaGetLastError();  // clear the sticky "no device" state
    return 0;
  }
  MPSFW_CUDA_CHECK(code);
  return count;
#else
  return 0;
#endif
}

// Ranks on one node share its cores: without OMP_NUM_THREADS each gets an equal
// share, since oversubscribed OpenMP threads spin against each other.
static void share_cores_between_ranks(int node_size) {
  if (std::getenv("OMP_NUM_THREADS") != nullptr) return;
  const int cores = omp_get_num_procs();
  omp_set_num_threads(std::max(1, cores / std::max(1, node_size)));
}

static DeviceBinding host_binding(int visible_gpus, int node_size) {
  share_cores_between_ranks(node_size);
  DeviceBinding b;
  b.backend = Backend::Host;
  b.visible_gpus = visible_gpus;
  b.multiprocessors = omp_get_max_threads();
  b.name = "host (" + std::to_string(b.multiprocessors) + " OpenMP threads)";
  return b;
}

DeviceBinding bind_device(Backend requested, int node_rank, int node_size, const CudaGate& gate) {
  (void)node_rank;  // used only with the CUDA backend
  if (requested == Backend::Host) return host_binding(0, node_size);
  if (requested == Backend::Cuda && !built_with_cuda()) {
    throw Error(
        "backend 'cuda' was requested but this build has no CUDA backend "
        "(configure with -DMPSFW_ENABLE_CUDA=ON)");
  }
  const int gpus = count_visible_gpus(gate);
  if (gpus == 0) {
    if (requested == Backend::Cuda) {
      throw Error(
          "backend 'cuda' was requested but no GPU is visible "
          "(check CUDA_VISIBLE_DEVICES and the driver, or use --backend host)");
    }
    return host_binding(0, node_size);
  }
#if MPSFW_HAVE_CUDA
  DeviceBinding b;
  b.backend = Backend::Cuda;
  b.visible_gpus = gpus;
  b.gpu = node_rank % gpus;
  MPSFW_CUDA_CHECK(cudaSetDevice(b.gpu));
  cudaDeviceProp prop{};
  MPSFW_CUDA_CHECK(cudaGetDeviceProperties(&prop, b.gpu));
  b.name = prop.name;
  MPSFW_CUDA_CHECK(
      cudaDeviceGetAttribute(&b.multiprocessors, cudaDevAttrMultiProcessorCount, b.gpu));
  MPSFW_CUDA_CHECK(cudaDeviceGetAttribute(&b.mps_enabled, cudaDevAttrMpsEnabled, b.gpu));
  return b;
#else
  return host_binding(gpus, node_size);
#endif
}

void release_device(const DeviceBinding& binding) {
#if MPSFW_HAVE_CUDA
  if (binding.backend == Backend::Cuda) MPSFW_CUDA_CHECK(cudaDeviceReset());
#else
  (void)binding;
#endif
}

bool mpi_is_cuda_aware() {
  if (const char* forced = std::getenv("MPSFW_CUDA_AWARE_MPI")) {
    return std::string(forced) == "1";
  }
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

std::string device_text(const DeviceBinding& b) {
  return b.backend == Backend::Cuda ? "cuda:" + std::to_string(b.gpu) + " " + b.name : b.name;
}

}  // namespace mpsfw
