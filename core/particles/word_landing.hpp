#pragma once
// A device word on its way to the host behind a stream's queued work, for the
// particle layer's GPU backends (CudaExec's results, KokkosExec's largest
// distance on a CUDA Kokkos): sources compiled as CUDA only.
#include <cuda_runtime.h>

#include <cstring>

#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/device/cuda_check.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/parallel/wait_policy.hpp>

namespace mpsfw {

// A device word on its way into pinned host memory, read when asked (bits)
// after waiting for the work queued on `stream` up to then, and no later
// work: either a kernel writes the word straight into landing() (pinned
// memory the device can write) and arm() follows its launch, or start()
// copies it there from device memory behind the work queued so far. The
// wait spins, or sleeps where the process's wait policy says so (a
// blocking-sync event; core/parallel/wait_policy.hpp).
class WordLanding {
 public:
  WordLanding() {
    landed_ = static_cast<unsigned long long*>(
        memory::allocate_pinned(Backend::Cuda, sizeof(unsigned long long)));
    MPSFW_CUDA_CHECK(cudaEventCreateWithFlags(
        &ready_, cudaEventDisableTiming | (waits_sleep() ? cudaEventBlockingSync : 0u)));
  }
  ~WordLanding() {
    cudaEventDestroy(ready_);
    memory::release_pinned(Backend::Cuda, landed_);
  }
  WordLanding(const WordLanding&) = delete;
  WordLanding& operator=(const WordLanding&) = delete;

  unsigned long long* landing() { return landed_; }
  void arm(cudaStream_t stream = nullptr) { MPSFW_CUDA_CHECK(cudaEventRecord(ready_, stream)); }
  void start(const unsigned long long* word, cudaStream_t stream = nullptr) {
    MPSFW_CUDA_CHECK(
        cudaMemcpyAsync(landed_, word, sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
    arm(stream);
  }
  unsigned long long bits() const {
    MPSFW_CUDA_CHECK(cudaEventSynchronize(ready_));
    return *static_cast<volatile unsigned long long*>(landed_);
  }

 private:
  unsigned long long* landed_ = nullptr;
  cudaEvent_t ready_ = nullptr;
};

// The double whose bits a word holds.
inline double double_of_bits(unsigned long long bits) {
  double v = 0;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

}  // namespace mpsfw
