#pragma once
// Step counters in device memory that ranks on one GPU order their streams
// by, without the host. At the end of a step a rank enqueues a one-thread
// kernel that sets its counter to the steps it has finished (the kernel runs
// only after them, in stream order); before it pulls its neighbours' halo
// planes it enqueues a single-warp kernel that waits until their counters
// have caught up. The CPU only enqueues, so it runs ahead of the GPU and no
// step waits for a host round trip.
//
// Needs MPS: the waiting warp spins, which is harmless while other clients'
// kernels run beside it, but under time-slicing it would hold the GPU for the
// rest of its time slice. Only one warp per rank spins, so spinning never
// fills the GPU. Measured on the way here (docs/performance.md): stream memory
// operations (cuStreamWaitValue64) cost the CPU tens of microseconds per call
// under MPS; folding the pull into the waiting kernel forced a small grid on
// the copy, which made large faces slow (512³ slower than MPI).
#include <cstdint>
#include <vector>

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

  // Enqueued on the default stream. mark: this rank has finished
  // `steps_done` steps once the work enqueued before it is complete.
  // wait_for_neighbors: later work waits until every neighbour has marked
  // at least `steps_done`.
  void mark(std::uint64_t steps_done);
  void wait_for_neighbors(std::uint64_t steps_done);

 private:
  std::uint64_t* mine_ = nullptr;  // in device memory
  std::vector<void*> neighbors_;   // theirs, mapped here
};

namespace detail {
// The kernels (stream_signals_cuda.cu).
void cuda_mark(std::uint64_t* mine, std::uint64_t steps_done);
void cuda_wait_for(const std::uint64_t* const* theirs, int count, std::uint64_t steps_done);
}  // namespace detail

}  // namespace mpsfw
