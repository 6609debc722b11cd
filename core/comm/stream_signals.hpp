#pragma once
// Step counters in device memory that ranks on one GPU order their streams
// by, without the host. Each step a rank launches one single-warp kernel that
// (1) sets its counter to the steps it has finished (the kernel starts only
// after them, in stream order) and (2) waits until its neighbours' counters
// have caught up; what reads or overwrites the neighbours' data follows on
// the stream (the pull of the halo planes, or the next update that pushes). The CPU
// only enqueues, so it runs ahead of the GPU and no step waits for a host
// round trip. A kernel can also run the same handshake in one of its own
// blocks (handshake(), StepHandshake): the heat update does, in the block
// that finishes its pushes last, so a step is one launch.
//
// Needs MPS: the waiting warp spins, which is harmless while other clients'
// kernels run beside it, but under time-slicing it would hold the GPU for the
// rest of its time slice. Only one warp per rank spins, so spinning never
// fills the GPU. Tried and dropped (docs/performance.md): stream memory
// operations (cuStreamWaitValue64) cost the CPU time on every call under
// MPS; folding the pull into the waiting kernel forced a small grid on the
// copy, which made large faces slower than MPI.
//
// Each wait is bounded (PeerWait, step_handshake.hpp). On the device a wait
// that gives up raises a record in mapped host memory, and a thread of this
// process that watches it ends the job with the message: the host may be
// blocked for good where no step boundary comes (in a collective the stalled
// rank never joins, or behind the spinning kernel), so the solver's loop
// cannot be the one to look.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "step_handshake.hpp"
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/parallel/abort_watch.hpp>

namespace mpsfw {

class StreamSignals {
 public:
  static constexpr int kMaxNeighbors = StepHandshake::kMaxNeighbors;

  // Whether the current device runs this process as an MPS client.
  static bool available();

  // Allocates this process's signal block through `memory` (device memory
  // shared through CUDA IPC; host shared memory in tests, where the host runs
  // the same handshake), zero; waits bounded by PeerWait's defaults until
  // set_peer_wait.
  explicit StreamSignals(PeerMemory& memory);
  ~StreamSignals();
  StreamSignals(const StreamSignals&) = delete;
  StreamSignals& operator=(const StreamSignals&) = delete;

  PeerMemoryHandle handle() const;
  // Maps the signal block of neighbour `rank` (from its handle()) to wait for.
  void add_neighbor(const PeerMemoryHandle& handle, int rank);
  // From the next handshake on: waits bounded by `wait.seconds`, and
  // `finished_step` (the count marked last) is step `wait.step`.
  void set_peer_wait(const PeerWait& wait, std::uint64_t finished_step);

  // Enqueued on the default stream (run at once on the host): marks
  // `finished_step` steps done and holds later work until every neighbour has
  // marked as many.
  void wait_for_neighbors(std::uint64_t finished_step);
  // The same as data, for a caller that runs it in a block of its own kernel
  // (mark_and_wait). Empty when there is no neighbour: nobody waits for this
  // rank either.
  StepHandshake handshake(std::uint64_t finished_step) const;

 private:
  // For the watcher: the message once the device raised failure_, else "".
  std::string raised() const;

  PeerMemory& memory_;
  std::uint64_t* mine_ = nullptr;  // in memory_'s space
  std::vector<void*> neighbors_;   // theirs, mapped here
  std::vector<int> ranks_;         // their ranks
  std::uint64_t wait_ns_;
  std::int64_t step_offset_ = 0;
  // Device blocks only: the record the device raises, in mapped host memory
  // (and where the device writes it), and its watcher.
  PeerWaitFailure* failure_ = nullptr;
  PeerWaitFailure* failure_on_device_ = nullptr;
  mutable std::mutex mutex_;  // guards wait_ns_ and step_offset_ for the watcher
  std::unique_ptr<AbortWatch> watcher_;
};

namespace detail {
// The kernel (stream_signals_cuda.cu).
void cuda_mark_and_wait(const StepHandshake& handshake);
// A zero PeerWaitFailure in pinned host memory mapped into the device's
// address space; `on_device`: where kernels reach it.
PeerWaitFailure* cuda_allocate_failure(PeerWaitFailure** on_device);
void cuda_release_failure(PeerWaitFailure* failure) noexcept;
}  // namespace detail

}  // namespace mpsfw
