#include "cuda_check.hpp"
#include "stream_signals.hpp"

namespace mpsfw::detail {
namespace {

struct Counters {
  const std::uint64_t* at[StreamSignals::kMaxNeighbors];
};

// One warp: lane n spins on neighbour n. Volatile loads: the counters are
// written by other processes' kernels while this one runs.
__global__ void wait_kernel(const std::uint64_t* mine, Counters theirs, int count) {
  const int n = static_cast<int>(threadIdx.x);
  if (n >= count) return;
  const std::uint64_t want = *static_cast<const volatile std::uint64_t*>(mine);
  while (*static_cast<const volatile std::uint64_t*>(theirs.at[n]) < want) __nanosleep(200);
}

__global__ void bump_kernel(std::uint64_t* mine) {
  // Earlier kernels of this stream are complete; the fence orders this
  // process's writes before the new count for readers in other processes.
  __threadfence_system();
  volatile std::uint64_t* p = mine;
  *p = *p + 1;
}

}  // namespace

void cuda_wait_for_counters(const std::uint64_t* mine, const std::uint64_t* const* theirs,
                            int count) {
  Counters c{};
  for (int n = 0; n < count; ++n) c.at[n] = theirs[n];
  wait_kernel<<<1, 32>>>(mine, c, count);
  MPSFW_CUDA_CHECK_LAUNCH();
}

void cuda_bump_counter(std::uint64_t* mine) {
  bump_kernel<<<1, 1>>>(mine);
  MPSFW_CUDA_CHECK_LAUNCH();
}

}  // namespace mpsfw::detail
