// A build without CUDA: the functions of core's communication layer whose
// CUDA version lives in a CUDA-only source (*_cuda.cu), as in
// core/device/cuda_off.cpp: no stream signals, nothing to release, the rest
// throws the one error of throw_built_without_cuda.
#include "region_copy.hpp"
#include "stream_signals.hpp"

namespace mpsfw {

bool StreamSignals::available() { return false; }
void detail::cuda_release_failure(PeerWaitFailure*) noexcept {}

void detail::cuda_copy_regions(ScalarType, const RegionCopy*, int) {
  throw_built_without_cuda("copying regions of device memory");
}

void detail::cuda_mark_and_wait(const StepHandshake&) {
  throw_built_without_cuda("the device-side step handshake");
}
PeerWaitFailure* detail::cuda_allocate_failure(PeerWaitFailure**) {
  throw_built_without_cuda("the device-side step handshake");
}

}  // namespace mpsfw
