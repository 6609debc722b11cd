// The atoms of one rank on a GPU: MD's store on the particle layer's arrays
// with the CUDA primitives (core/particles/cuda_exec.cuh: CUB, a warp a link
// cell for the list build, pair loops in blocks of their own size).
#include "core/particles/cuda_exec.cuh"
#include "md_arrays_store.hpp"

namespace mpsfw::md::detail {

std::unique_ptr<MdStore> make_cuda_md_store(const PairStyle& pair) {
  return make_arrays_store<CudaExec>(pair);
}

}  // namespace mpsfw::md::detail
