// StreamSignals' device side: whether the process is an MPS client, the
// handshake kernel and the host record a wait that gives up raises (compiled
// only with CUDA).
#include <new>

#include "step_handshake.hpp"
#include "stream_signals.hpp"
#include <mpsfw/core/device/cuda_check.hpp>

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

PeerWaitFailure* cuda_allocate_failure(PeerWaitFailure** on_device) {
  void* host = nullptr;
  MPSFW_CUDA_CHECK(cudaHostAlloc(&host, sizeof(PeerWaitFailure), cudaHostAllocMapped));
  auto* failure = new (host) PeerWaitFailure();
  void* device = nullptr;
  const cudaError_t mapped = cudaHostGetDevicePointer(&device, host, 0);
  if (mapped != cudaSuccess) cudaFreeHost(host);
  MPSFW_CUDA_CHECK(mapped);
  *on_device = static_cast<PeerWaitFailure*>(device);
  return failure;
}

void cuda_release_failure(PeerWaitFailure* failure) noexcept {
  if (failure != nullptr) cudaFreeHost(failure);
}

}  // namespace detail
}  // namespace mpsfw
