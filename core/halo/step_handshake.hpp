#pragma once
// The end-of-step handshake between ranks on one GPU (StreamSignals) as plain
// data, so that a kernel can carry it in one of its blocks instead of a launch
// of its own: mark this rank's counter, then wait for the neighbours'.
#include <chrono>
#include <cstdint>
#include <thread>

#include "core/hd.hpp"

namespace mpsfw {

struct StepHandshake {
  static constexpr int kMaxNeighbors = 26;  // an MD rank's 3x3x3 block

  std::uint64_t* mine = nullptr;                    // this rank's counter, in device memory
  const std::uint64_t* theirs[kMaxNeighbors] = {};  // the neighbours', mapped here
  int count = 0;
  // What to mark (work enqueued before the handshake is done up to this
  // step) and what the neighbours' counters must reach before later work.
  std::uint64_t finished = 0;
  // For a kernel whose blocks share the marking: how many have arrived (in
  // device memory, zero between launches; the last to arrive runs the
  // handshake).
  unsigned* arrivals = nullptr;

  MPSFW_HD bool empty() const { return mine == nullptr; }
};

// The same handshake run by the host, for fields in host memory shared
// between processes (the tests' stand-in for a GPU): the host is the stream.
inline void host_mark_and_wait(const StepHandshake& h) {
  __atomic_store_n(h.mine, h.finished, __ATOMIC_RELEASE);
  for (int n = 0; n < h.count; ++n) {
    for (int spins = 0; __atomic_load_n(h.theirs[n], __ATOMIC_ACQUIRE) < h.finished; ++spins) {
      // Ranks may outnumber cores (CI): give the neighbour the core.
      if (spins < 1000) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
    }
  }
}

#if defined(__CUDACC__)
// Run by one block, once every write it vouches for is complete (earlier
// launches of the stream). `lane` is the thread's number in the block: lane 0
// marks, lane n watches neighbour n (volatile: other processes write them).
static __device__ __noinline__ void mark_and_wait(const StepHandshake& h, int lane) {
  if (lane == 0) {
    // Orders the earlier writes before the new count for readers elsewhere.
    __threadfence_system();
    *static_cast<volatile std::uint64_t*>(h.mine) = h.finished;
  }
  if (lane < h.count) {
    while (*static_cast<const volatile std::uint64_t*>(h.theirs[lane]) < h.finished) {
      __nanosleep(100);
    }
  }
}
#endif

}  // namespace mpsfw
