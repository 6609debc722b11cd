#include "device.hpp"

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "kokkos_options.hpp"
#include "kokkos_runtime.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/parallel/wait_policy.hpp>

namespace mpsfw {

// Ranks on one node share its cores: without OMP_NUM_THREADS each gets an equal
// share, since oversubscribed OpenMP threads spin against each other.
static void share_cores_between_ranks(int node_size) {
  if (std::getenv("OMP_NUM_THREADS") != nullptr) return;
  const int cores = omp_get_num_procs();
  omp_set_num_threads(std::max(1, cores / std::max(1, node_size)));
}

static DeviceBinding host_binding(int node_size) {
  share_cores_between_ranks(node_size);
  DeviceBinding b;
  b.backend = Backend::Host;
  b.memory = Backend::Host;
  b.multiprocessors = omp_get_max_threads();
  b.name = "host (" + std::to_string(b.multiprocessors) + " OpenMP threads)";
  return b;
}

int gpu_of_local_rank(int local_rank, int local_size, int gpus) {
  if (gpus <= 1 || local_size <= 0) return 0;
  const int fewer = local_size / gpus, more = fewer + 1;
  const int with_more = local_size % gpus;  // GPUs 0 .. with_more-1 hold `more` ranks
  const int rank = std::clamp(local_rank, 0, local_size - 1);
  if (rank < with_more * more) return rank / more;
  return with_more + (rank - with_more * more) / std::max(1, fewer);
}

int local_ranks_on_gpu(int gpu, int local_size, int gpus) {
  if (gpus <= 0) return local_size;
  return local_size / gpus + (gpu < local_size % gpus ? 1 : 0);
}

static DeviceBinding kokkos_binding(int node_rank, int node_size, const CudaGate& gate,
                                    const std::vector<std::string>& kokkos_options) {
  if (!built_with_kokkos()) throw_built_without_kokkos("backend 'kokkos'");
  DeviceBinding b;
  if (kokkos_on_gpu()) {
    const int gpus = count_visible_gpus(gate);
    if (gpus == 0) {
      throw Error("backend 'kokkos' runs on the GPU (" + kokkos_description() +
                  ") but no GPU is visible (check CUDA_VISIBLE_DEVICES and the driver)");
    }
    b = detail::cuda_binding(gpu_of_local_rank(node_rank, node_size, gpus), gpus);
  } else {
    b = host_binding(node_size);
  }
  kokkos_start(b.gpu, b.memory == Backend::Host ? b.multiprocessors : 1, kokkos_options);
  b.backend = Backend::Kokkos;
  b.name = kokkos_description() + (b.memory == Backend::Cuda ? ", " + b.name : ", host memory");
  return b;
}

DeviceBinding bind_device(Backend requested, int node_rank, int node_size, const CudaGate& gate,
                          const std::vector<std::string>& kokkos_options) {
  check_kokkos_options(kokkos_options, requested, "");
  if (requested == Backend::Host) return host_binding(node_size);
  if (requested == Backend::Kokkos)
    return kokkos_binding(node_rank, node_size, gate, kokkos_options);
  if (requested == Backend::Cuda && !built_with_cuda()) throw_built_without_cuda("backend 'cuda'");
  const int gpus = count_visible_gpus(gate);
  if (gpus == 0) {
    if (requested == Backend::Cuda) {
      throw Error(
          "backend 'cuda' was requested but no GPU is visible "
          "(check CUDA_VISIBLE_DEVICES and the driver, or use --backend host)");
    }
    return host_binding(node_size);
  }
  return detail::cuda_binding(gpu_of_local_rank(node_rank, node_size, gpus), gpus);
}

void apply_wait_policy(const DeviceBinding& binding) {
  const bool sleep = binding.crowded && binding.memory == Backend::Cuda;
  set_wait_policy(sleep ? WaitPolicy::Sleep : WaitPolicy::Spin);
  if (sleep) detail::cuda_block_on_waits();
}

void release_device(const DeviceBinding& binding) {
  if (binding.backend == Backend::Kokkos) kokkos_stop();
  if (binding.memory == Backend::Cuda) detail::cuda_reset_device();
}

bool mpi_is_cuda_aware(const std::string& choice) {
  if (choice == "yes") return true;
  if (choice == "no") return false;
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
  return b.memory == Backend::Cuda ? "cuda:" + std::to_string(b.gpu) + " " + b.name : b.name;
}

}  // namespace mpsfw
