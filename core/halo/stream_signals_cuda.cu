// StreamSignals' device side: its counter and the handshake kernel (compiled
// only with CUDA).
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

StreamSignals::StreamSignals() {
  void* p = nullptr;
  // The counter, then the arrivals of a kernel that marks it from its last
  // block (StepHandshake::arrivals); both zero.
  MPSFW_CUDA_CHECK(cudaMalloc(&p, 2 * sizeof(std::uint64_t)));
  mine_ = static_cast<std::uint64_t*>(p);
  MPSFW_CUDA_CHECK(cudaMemset(mine_, 0, 2 * sizeof(std::uint64_t)));
  MPSFW_CUDA_CHECK(cudaDeviceSynchronize());
}

StreamSignals::~StreamSignals() {
  for (void* p : neighbors_) close_peer_memory(p);
  if (mine_ != nullptr) cudaFree(mine_);
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
