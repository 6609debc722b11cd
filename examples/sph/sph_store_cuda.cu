// The CUDA store: the same code as the host's (sph_arrays.hpp) over the
// framework's CUDA primitives; particles live in the bound GPU's memory.
// Built only with SPH_ENABLE_CUDA (nvcc --extended-lambda).
#include <mpsfw/core/particles/cuda_exec.cuh>

#include "sph_arrays.hpp"

namespace sph {

std::unique_ptr<SphStore> detail::make_cuda_store() {
  return std::make_unique<SphArrays<mpsfw::CudaExec>>();
}

}  // namespace sph
