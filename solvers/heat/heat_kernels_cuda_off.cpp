// A build without CUDA: the CUDA heat kernels' factory, in place of
// heat_kernels_cuda.cu (core/base/backend.hpp says how builds without CUDA work).
#include "heat_kernels.hpp"

namespace mpsfw::heat::detail {

std::unique_ptr<HeatKernels> make_cuda_heat_kernels(CudaUpdateDesign) {
  throw_built_without_cuda("heat on the CUDA backend");
}

}  // namespace mpsfw::heat::detail
