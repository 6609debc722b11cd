// The CUDA store: the same code as the host's (brownian_arrays.hpp) over the
// framework's CUDA primitives; particles live in the bound GPU's memory.
// Built only with BROWNIAN_ENABLE_CUDA (nvcc --extended-lambda).
#include <mpsfw/core/particles/cuda_exec.cuh>

#include "brownian_arrays.hpp"

namespace brownian {

std::unique_ptr<BrownianStore> detail::make_cuda_store() {
  return std::make_unique<BrownianArrays<mpsfw::CudaExec>>();
}

}  // namespace brownian
