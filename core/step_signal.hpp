#pragma once
// The end of a step, as ranks sharing a GPU tell each other on the GPU: once
// every thread block of the step's last kernel is done, the last one to
// finish marks this rank's counter with `finished` and waits (one warp,
// spinning) until every neighbour's counter has caught up. The next kernel on
// the stream starts only after that, so the CPU never waits. StreamSignals
// owns the counters; the heat update kernel runs the handshake in its own
// tail (step_signal.cuh) instead of launching one more kernel.
#include <cstdint>

#include "hd.hpp"

namespace mpsfw {

struct StepSignal {
  static constexpr int kMaxNeighbors = 6;
  std::uint64_t* mine = nullptr;                    // in device memory
  const std::uint64_t* theirs[kMaxNeighbors] = {};  // the neighbours', mapped here
  int count = 0;
  std::uint64_t finished = 0;    // what to mark, and what to wait for
  unsigned* arrivals = nullptr;  // blocks of the launch done; the last resets it

  MPSFW_HD bool active() const { return mine != nullptr; }
};

}  // namespace mpsfw
