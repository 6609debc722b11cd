// The host store (OpenMP over particles), and the one place that picks a
// backend's store.
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/particles/host_exec.hpp>
#include <string>

#include "brownian_arrays.hpp"

namespace brownian {

std::unique_ptr<BrownianStore> store_for(mpsfw::Backend backend) {
  if (backend == mpsfw::Backend::Host) return std::make_unique<BrownianArrays<mpsfw::HostExec>>();
  if (backend != mpsfw::Backend::Cuda) {
    throw mpsfw::Error(std::string("brownian: no store for backend '") + mpsfw::to_string(backend) +
                       "' (bind the device first: host or cuda)");
  }
#if BROWNIAN_HAVE_CUDA
  return make_cuda_store();
#else
  throw mpsfw::Error(
      "brownian: the bound backend is cuda, but this brownian_solver was built without its "
      "CUDA store (BROWNIAN_ENABLE_CUDA=OFF); run with --backend host, or rebuild with "
      "-DBROWNIAN_ENABLE_CUDA=ON against an mpsfw built with CUDA");
#endif
}

}  // namespace brownian
