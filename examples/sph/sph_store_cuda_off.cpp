// A build without the CUDA store (SPH_ENABLE_CUDA=OFF): its maker, in place
// of sph_store_cuda.cu.
#include <mpsfw/core/base/error.hpp>

#include "sph_store.hpp"

namespace sph {

std::unique_ptr<SphStore> detail::make_cuda_store() {
  throw mpsfw::Error(
      "sph: the bound backend is cuda, but this sph_solver was built without its CUDA store "
      "(SPH_ENABLE_CUDA=OFF); run with --backend host, or rebuild with -DSPH_ENABLE_CUDA=ON "
      "against an mpsfw built with CUDA");
}

}  // namespace sph
