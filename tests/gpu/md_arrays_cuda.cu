#include "core/particles/cuda_exec.cuh"
#include "md_arrays_cuda.hpp"
#include "solvers/md/md_arrays_store.hpp"

namespace mpsfw::testing_support {

std::unique_ptr<md::MdStore> make_cuda_arrays_md_store() {
  return std::make_unique<md::MdArraysStore<CudaExec>>();
}

}  // namespace mpsfw::testing_support
