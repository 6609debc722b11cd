// A build without the CUDA launcher (WAVE_ENABLE_CUDA=OFF): its maker, in
// place of wave_kernels_cuda.cu.
#include <mpsfw/core/base/error.hpp>

#include "wave_kernels.hpp"

namespace wave {

std::unique_ptr<Kernels> detail::make_cuda_kernels() {
  throw mpsfw::Error(
      "wave: the bound backend is cuda, but this wave_solver was built without its CUDA "
      "launcher (WAVE_ENABLE_CUDA=OFF); run with --backend host, or rebuild with "
      "-DWAVE_ENABLE_CUDA=ON against an mpsfw built with CUDA");
}

}  // namespace wave
