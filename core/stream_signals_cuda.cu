#include "cuda_check.hpp"
#include "stream_signals.hpp"

namespace mpsfw::detail {
namespace {

struct Counters {
  const std::uint64_t* at[StreamSignals::kMaxNeighbors];
};

__global__ void mark_kernel(std::uint64_t* mine, std::uint64_t steps_done) {
  // The stream's earlier work is complete (stream order); the fence makes its
  // writes visible to other processes before they can see the new count.
  __threadfence_system();
  *static_cast<volatile std::uint64_t*>(mine) = steps_done;
}

__global__ void wait_kernel(Counters theirs, int count, std::uint64_t steps_done) {
  // Lane n watches neighbour n (volatile: other processes write it).
  if (static_cast<int>(threadIdx.x) < count) {
    while (*static_cast<const volatile std::uint64_t*>(theirs.at[threadIdx.x]) < steps_done) {
      __nanosleep(100);
    }
  }
}

}  // namespace

void cuda_mark(std::uint64_t* mine, std::uint64_t steps_done) {
  mark_kernel<<<1, 1>>>(mine, steps_done);
  MPSFW_CUDA_CHECK_LAUNCH();
}

void cuda_wait_for(const std::uint64_t* const* theirs, int count, std::uint64_t steps_done) {
  Counters c{};
  for (int n = 0; n < count; ++n) c.at[n] = theirs[n];
  wait_kernel<<<1, 32>>>(c, count, steps_done);
  MPSFW_CUDA_CHECK_LAUNCH();
}

}  // namespace mpsfw::detail
