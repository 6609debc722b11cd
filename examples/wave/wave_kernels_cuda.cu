// CUDA backend: the launchers of wave_kernels_exec.hpp over the framework's
// CUDA primitives. Built only with WAVE_ENABLE_CUDA, and with --fmad=false
// so that its bits equal the host's.
#include <mpsfw/core/particles/cuda_exec.cuh>

#include "wave_kernels_exec.hpp"

namespace wave {

std::unique_ptr<Kernels> detail::make_cuda_kernels() {
  return std::make_unique<ExecKernels<mpsfw::CudaExec>>();
}

}  // namespace wave
