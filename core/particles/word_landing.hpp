#pragma once
// A device word on its way to the host behind a stream's queued work, for the
// particle layer's GPU backends (CudaExec's results, KokkosExec's largest
// distance on a CUDA Kokkos): sources compiled as CUDA only.
#include <cuda_runtime.h>

#include <cstring>

#include "core/backend.hpp"
#include "core/cuda_check.hpp"
#include "core/memory.hpp"

namespace mpsfw {

// A device word copied into pinned host memory behind the work queued so
// far on `stream` (start), read when asked (bits), waiting for that copy
// alone: work queued after start() does not delay the read. The wait spins,
// or sleeps once sleep_while_waiting(true) (a blocking-sync event).
class WordLanding {
 public:
  WordLanding() {
    landed_ = static_cast<unsigned long long*>(
        memory::allocate_pinned(Backend::Cuda, sizeof(unsigned long long)));
    MPSFW_CUDA_CHECK(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
  }
  ~WordLanding() {
    cudaEventDestroy(ready_);
    memory::release_pinned(Backend::Cuda, landed_);
  }
  WordLanding(const WordLanding&) = delete;
  WordLanding& operator=(const WordLanding&) = delete;

  void sleep_while_waiting(bool sleep) {
    if (sleep == sleeping_) return;
    MPSFW_CUDA_CHECK(cudaEventDestroy(ready_));
    ready_ = nullptr;
    MPSFW_CUDA_CHECK(cudaEventCreateWithFlags(
        &ready_, cudaEventDisableTiming | (sleep ? cudaEventBlockingSync : 0u)));
    sleeping_ = sleep;
  }
  void start(const unsigned long long* word, cudaStream_t stream = nullptr) {
    MPSFW_CUDA_CHECK(
        cudaMemcpyAsync(landed_, word, sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
    MPSFW_CUDA_CHECK(cudaEventRecord(ready_, stream));
  }
  unsigned long long bits() const {
    MPSFW_CUDA_CHECK(cudaEventSynchronize(ready_));
    return *landed_;
  }

 private:
  unsigned long long* landed_ = nullptr;
  cudaEvent_t ready_ = nullptr;
  bool sleeping_ = false;
};

// The double whose bits a word holds.
inline double double_of_bits(unsigned long long bits) {
  double v = 0;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

}  // namespace mpsfw
