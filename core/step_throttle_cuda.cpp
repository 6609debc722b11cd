// StepThrottle's CUDA events (compiled only with CUDA).
#include "cuda_check.hpp"
#include "step_throttle.hpp"

namespace mpsfw::detail {

void* cuda_create_sleeping_event() {
  cudaEvent_t e = nullptr;
  MPSFW_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventBlockingSync | cudaEventDisableTiming));
  return e;
}

void cuda_record_event(void* event) {
  MPSFW_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event)));
}

void cuda_sleep_until(void* event) {
  MPSFW_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event)));
}

void cuda_destroy_event(void* event) noexcept {
  if (event != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(event));
}

}  // namespace mpsfw::detail
