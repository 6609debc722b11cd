#pragma once
// Step counters in device memory that ranks on one GPU order their streams
// by, without the host. Each step a rank launches one kernel that (1) sets
// its counter to the steps it has finished (the kernel starts only after them
// in stream order), (2) waits until its neighbours' counters have caught up,
// and (3) pulls the halo planes out of their fields. The CPU only enqueues,
// so it runs ahead of the GPU and no step waits for a host round trip; one
// small kernel a step is all the ordering costs the GPU.
//
// Needs MPS: the waiting blocks spin, which is harmless while other clients'
// kernels run beside them, but under time-slicing they would hold the GPU for
// the rest of their time slice. The grid is kept small (kMaxBlocks) so that
// spinning blocks of many ranks never fill the GPU. Measured before this
// design: stream memory operations (cuStreamWaitValue64) cost the CPU tens of
// microseconds per call under MPS, and separate wait / pull / signal kernels
// cost the GPU about a microsecond each per rank (docs/performance.md).
#include <cstdint>
#include <vector>

#include "box_copy.hpp"
#include "peer_memory.hpp"

namespace mpsfw {

class StreamSignals {
 public:
  static constexpr int kMaxNeighbors = 6;

  // Whether the current device runs this process as an MPS client.
  static bool available();

  // Allocates this process's counter on the current device, zero.
  StreamSignals();
  ~StreamSignals();
  StreamSignals(const StreamSignals&) = delete;
  StreamSignals& operator=(const StreamSignals&) = delete;

  PeerMemoryHandle handle() const;
  // Maps a neighbour's counter (from its handle()) to wait for.
  void add_neighbor(const PeerMemoryHandle& handle);

  // Enqueued on the default stream: marks `finished_step` steps done, waits
  // for every neighbour to have marked as many, then copies `pulls` into
  // `field` (laid out as `layout`).
  void pull_when_ready(std::uint64_t finished_step, double* field, const FieldLayout& layout,
                       const PeerBoxList& pulls);

 private:
  std::uint64_t* mine_ = nullptr;  // in device memory
  std::vector<void*> neighbors_;   // theirs, mapped here
};

namespace detail {
static constexpr int kMaxBlocks = 16;
// The kernel (stream_signals_cuda.cu).
void cuda_pull_when_ready(std::uint64_t* mine, const std::uint64_t* const* theirs, int count,
                          std::uint64_t finished_step, double* field, const FieldLayout& layout,
                          const PeerBoxList& pulls);
}  // namespace detail

}  // namespace mpsfw
