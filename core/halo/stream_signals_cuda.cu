// StreamSignals' device side: whether the process is an MPS client, and the
// handshake kernel (compiled only with CUDA).
#include "core/cuda_check.hpp"
#include "step_handshake.hpp"
#include "stream_signals.hpp"

namespace mpsfw {

bool StreamSignals::available() {
  int device = 0, mps = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return mps == 1;
}

namespace detail {
namespace {

__global__ void mark_and_wait_kernel(__grid_constant__ const StepHandshake handshake) {
  mark_and_wait(handshake, static_cast<int>(threadIdx.x));
}

}  // namespace

void cuda_mark_and_wait(const StepHandshake& handshake) {
  mark_and_wait_kernel<<<1, 32>>>(handshake);
  MPSFW_CUDA_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace mpsfw
