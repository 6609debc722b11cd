// A build without the CUDA store (BROWNIAN_ENABLE_CUDA=OFF): its maker, in
// place of brownian_store_cuda.cu.
#include <mpsfw/core/base/error.hpp>

#include "brownian_store.hpp"

namespace brownian {

std::unique_ptr<BrownianStore> detail::make_cuda_store() {
  throw mpsfw::Error(
      "brownian: the bound backend is cuda, but this brownian_solver was built without its "
      "CUDA store (BROWNIAN_ENABLE_CUDA=OFF); run with --backend host, or rebuild with "
      "-DBROWNIAN_ENABLE_CUDA=ON against an mpsfw built with CUDA");
}

}  // namespace brownian
