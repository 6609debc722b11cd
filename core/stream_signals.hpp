#pragma once
// Step counters in device memory that ranks on one GPU order their streams
// by, without the host: after a step a rank's stream bumps its counter; before
// the next step a neighbour's stream waits, in a one-warp kernel, until the
// counters of all its neighbours have caught up with its own. The CPU only
// enqueues, so it runs ahead of the GPU and no step waits for a host round
// trip.
//
// Needs MPS: the waiting kernel spins, which is harmless while other clients'
// kernels run beside it, but under time-slicing it would hold the GPU for the
// rest of its time slice. (Stream memory operations, cuStreamWaitValue64, were
// measured first: correct, but each call cost the CPU tens of microseconds
// under MPS, more than a whole step; see docs/performance.md.)
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

  // Enqueued on the default stream. wait_for_neighbors: later work starts once
  // every neighbour's counter is >= this process's (as of this point in the
  // stream); step_done: this process's counter goes up by one once all
  // earlier work on the stream is done.
  void wait_for_neighbors();
  void step_done();

 private:
  std::uint64_t* mine_ = nullptr;  // in device memory
  std::vector<void*> neighbors_;   // theirs, mapped here
};

namespace detail {
// The two kernels (stream_signals_cuda.cu).
void cuda_wait_for_counters(const std::uint64_t* mine, const std::uint64_t* const* theirs,
                            int count);
void cuda_bump_counter(std::uint64_t* mine);
}  // namespace detail

}  // namespace mpsfw
