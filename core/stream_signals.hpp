#pragma once
// Step counters in device memory that ranks on one GPU wait on without the
// host: a rank's stream writes its counter after its work, a neighbour's
// stream waits until that counter reaches a value before its own work goes on
// (cuStreamWriteValue64 / cuStreamBatchMemOp waits, fetched from the driver at
// run time so nothing links libcuda). The CPU only enqueues, so it runs ahead
// of the GPU and no step waits for a host round trip.
#include <cstdint>
#include <vector>

#include "peer_memory.hpp"

namespace mpsfw {

class StreamSignals {
 public:
  // Counters this process owns: kWritten = last step whose field writes are
  // done, kPulled = last step whose pulls out of neighbours' fields are done.
  enum Counter { kWritten = 0, kPulled = 1 };

  // Whether this build, driver and the current device can do it.
  static bool available();

  // Allocates this process's counters on the current device, zeroed.
  StreamSignals();
  ~StreamSignals();
  StreamSignals(const StreamSignals&) = delete;
  StreamSignals& operator=(const StreamSignals&) = delete;

  PeerMemoryHandle handle() const;
  // Maps a neighbour's counters (from its handle()) to wait on.
  void add_neighbor(const PeerMemoryHandle& handle);
  int neighbors() const { return static_cast<int>(neighbors_.size()); }

  // Enqueued on the default stream: later work waits until every
  // neighbour's `counter` is >= value; this process's `counter` becomes value
  // once all earlier work on the stream is done.
  void wait_for_neighbors(Counter counter, std::uint64_t value);
  void signal(Counter counter, std::uint64_t value);

 private:
  void* mine_ = nullptr;                 // two std::uint64_t in device memory
  std::vector<void*> neighbors_;         // theirs, mapped here
};

}  // namespace mpsfw
