#include "cuda_check.hpp"
#include "step_signal.cuh"
#include "stream_signals.hpp"

namespace mpsfw::detail {
namespace {

__global__ void mark_and_wait_kernel(StepSignal signal) { arrive_and_wait(signal); }

}  // namespace

void cuda_mark_and_wait(const StepSignal& signal) {
  mark_and_wait_kernel<<<1, 32>>>(signal);
  MPSFW_CUDA_CHECK_LAUNCH();
}

}  // namespace mpsfw::detail
