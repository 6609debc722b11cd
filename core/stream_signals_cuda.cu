#include "cuda_check.hpp"
#include "stream_signals.hpp"

namespace mpsfw::detail {
namespace {

struct Counters {
  const std::uint64_t* at[StreamSignals::kMaxNeighbors];
};

__global__ void mark_and_wait_kernel(std::uint64_t* mine, Counters theirs, int count,
                                     std::uint64_t finished) {
  // Earlier work of this stream is complete: say so. The fence orders its
  // writes before the new count for readers in other processes.
  if (threadIdx.x == 0) {
    __threadfence_system();
    *static_cast<volatile std::uint64_t*>(mine) = finished;
  }
  // Lane n watches neighbour n (volatile: other processes write it).
  if (static_cast<int>(threadIdx.x) < count) {
    while (*static_cast<const volatile std::uint64_t*>(theirs.at[threadIdx.x]) < finished) {
      __nanosleep(100);
    }
  }
}

}  // namespace

void cuda_mark_and_wait(std::uint64_t* mine, const std::uint64_t* const* theirs, int count,
                        std::uint64_t finished_step) {
  Counters c{};
  for (int n = 0; n < count; ++n) c.at[n] = theirs[n];
  mark_and_wait_kernel<<<1, 32>>>(mine, c, count, finished_step);
  MPSFW_CUDA_CHECK_LAUNCH();
}

}  // namespace mpsfw::detail
