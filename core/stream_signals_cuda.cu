#include "cuda_check.hpp"
#include "stream_signals.hpp"

namespace mpsfw::detail {
namespace {

struct Counters {
  const std::uint64_t* at[StreamSignals::kMaxNeighbors];
};

__global__ void pull_when_ready_kernel(std::uint64_t* mine, Counters theirs, int count,
                                       std::uint64_t finished, double* field, FieldLayout layout,
                                       PeerBoxList pulls) {
  // Earlier work of this stream is complete: say so. The fence orders its
  // writes before the new count for readers in other processes.
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    __threadfence_system();
    *static_cast<volatile std::uint64_t*>(mine) = finished;
  }
  // Lane n watches neighbour n (volatile: other processes write it).
  if (static_cast<int>(threadIdx.x) < count) {
    while (*static_cast<const volatile std::uint64_t*>(theirs.at[threadIdx.x]) < finished) {
      __nanosleep(100);
    }
  }
  __syncthreads();
  __threadfence();
  // All boxes one after another, grid-stride; loads bypass L1 (__ldcg) so no
  // line cached before the neighbour's writes can be seen.
  std::int64_t total = 0;
  for (int b = 0; b < pulls.count; ++b) total += pulls.item[b].dst_box.cells();
  for (std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       t < total; t += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t r = t;
    int b = 0;
    while (r >= pulls.item[b].dst_box.cells()) r -= pulls.item[b++].dst_box.cells();
    const PeerBox& p = pulls.item[b];
    const Int3 s = p.dst_box.size();
    const int i = static_cast<int>(r % s.x);
    const int j = static_cast<int>((r / s.x) % s.y);
    const int k = static_cast<int>(r / (static_cast<std::int64_t>(s.x) * s.y));
    field[layout.index(p.dst_box.lo.x + i, p.dst_box.lo.y + j, p.dst_box.lo.z + k)] = __ldcg(
        p.src + p.src_layout.index(p.src_box.lo.x + i, p.src_box.lo.y + j, p.src_box.lo.z + k));
  }
}

}  // namespace

void cuda_pull_when_ready(std::uint64_t* mine, const std::uint64_t* const* theirs, int count,
                          std::uint64_t finished_step, double* field, const FieldLayout& layout,
                          const PeerBoxList& pulls) {
  Counters c{};
  for (int n = 0; n < count; ++n) c.at[n] = theirs[n];
  constexpr int threads = 256;
  std::int64_t total = 0;
  for (int b = 0; b < pulls.count; ++b) total += pulls.item[b].dst_box.cells();
  const std::int64_t wanted = (total + threads - 1) / threads;
  const int blocks = static_cast<int>(wanted < 1 ? 1 : (wanted > kMaxBlocks ? kMaxBlocks : wanted));
  pull_when_ready_kernel<<<blocks, threads>>>(mine, c, count, finished_step, field, layout, pulls);
  MPSFW_CUDA_CHECK_LAUNCH();
}

}  // namespace mpsfw::detail
