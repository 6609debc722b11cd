#pragma once
// Step counters in device memory that ranks on one GPU order their streams
// by, without the host (StepSignal: a rank marks the steps it has finished and
// waits until its neighbours' counters have caught up). Either the step's last
// kernel runs the handshake in its tail (signal_at_step_end), or a one-block
// kernel does (mark_and_wait). The CPU only enqueues, so it runs ahead of the
// GPU and no step waits for a host round trip.
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
#include "step_signal.hpp"

namespace mpsfw {

class StreamSignals {
 public:
  static constexpr int kMaxNeighbors = StepSignal::kMaxNeighbors;

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

  // Whether anyone waits for this rank (it has neighbours on the GPU).
  bool has_neighbors() const { return !neighbors_.empty(); }

  // The handshake for a kernel's tail: marks `finished_step` steps done and
  // waits until every neighbour has marked as many. Inactive without
  // neighbours.
  StepSignal at_step_end(std::uint64_t finished_step) const;
  // The same in a kernel of its own, enqueued on the default stream.
  void mark_and_wait(std::uint64_t finished_step);

 private:
  std::uint64_t* mine_ = nullptr;  // in device memory
  unsigned* arrivals_ = nullptr;   // in device memory (StepSignal::arrivals)
  std::vector<void*> neighbors_;   // theirs, mapped here
};

namespace detail {
// A one-block kernel that runs the handshake (stream_signals_cuda.cu).
void cuda_mark_and_wait(const StepSignal& signal);
}  // namespace detail

}  // namespace mpsfw
