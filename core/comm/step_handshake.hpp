#pragma once
// The end-of-step handshake between ranks on one GPU (StreamSignals) as plain
// data, so that a kernel can carry it in one of its blocks instead of a launch
// of its own: mark this rank's counter, then wait for the neighbours'.
//
// A wait is bounded (run.peer_wait_seconds): a neighbour that died or stalled
// must not keep the others spinning in a kernel, their hosts blocked behind
// it, until the launcher's limit. The wait that runs out gives up: it writes
// who did not arrive into this rank's signal block, where the ranks waiting
// for this one read it and give up at once naming the same rank (a chain of
// waits blames the rank that stopped, not one that was waiting itself, and
// ends together); every later wait of this rank returns at once. On the
// device it also raises a record in host memory (PeerWaitFailure) that the
// host reads without waiting for the device (StreamSignals); the host's own
// handshake (host_mark_and_wait) throws instead.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/hd.hpp>
#include <mpsfw/core/base/poll_backoff.hpp>
#include <mpsfw/core/input/halo_choices.hpp>

namespace mpsfw {

// The words of a rank's signal block (StreamSignals allocates it, zero); the
// ranks that wait for this one map it.
enum SignalWord : int {
  kStepsDone = 0,    // the counter: steps this rank has marked done
  kArrivals = 1,     // a kernel's blocks that arrived (StepHandshake::arrivals)
  kGaveUp = 2,       // nonzero once a wait of this rank gave up
  kMissingRank = 3,  // then: the rank that did not arrive,
  kMissingStep = 4,  // and the count it did not reach (written last: nonzero = both set)
  kSignalWords = 5,
};

// How long a rank waits for its neighbours on the GPU before it gives up
// (run.peer_wait_seconds: far above any step's time), and the step every rank
// of the GPU has finished when it is set (numbers the steps in the message).
struct PeerWait {
  static constexpr double kDefaultSeconds = kDefaultPeerWaitSeconds;
  double seconds = kDefaultSeconds;
  long step = 0;
};

// A wait that gave up on the device, in mapped host memory: the host reads it
// while the device is still busy.
struct PeerWaitFailure {
  int raised = 0;  // written last
  int rank = -1;
  std::uint64_t count = 0;
};

struct StepHandshake {
  static constexpr int kMaxNeighbors = 26;  // an MD rank's 3x3x3 block

  std::uint64_t* mine = nullptr;                    // this rank's signal block, in device memory
  const std::uint64_t* theirs[kMaxNeighbors] = {};  // the neighbours' blocks, mapped here
  int rank[kMaxNeighbors] = {};                     // the neighbours' ranks, for the message
  int count = 0;
  // What to mark (work enqueued before the handshake is done up to this
  // step) and what the neighbours' counters must reach before later work.
  std::uint64_t finished = 0;
  // For a kernel whose blocks share the marking: how many have arrived (in
  // device memory, zero between launches; the last to arrive runs the
  // handshake).
  unsigned* arrivals = nullptr;
  // How long one handshake may wait (run.peer_wait_seconds); 0: unbounded (a
  // bare counter without the words above, as in benchmarks).
  std::uint64_t wait_ns = 0;
  // The step a count stands for in the message: step_offset + count.
  std::int64_t step_offset = 0;
  PeerWaitFailure* failure = nullptr;  // device handshakes: the host's record, mapped

  MPSFW_HD bool empty() const { return mine == nullptr; }
};

// The one message of a wait that gave up.
inline std::string peer_wait_message(int rank, std::int64_t step, double seconds) {
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g", seconds);
  return "rank " + std::to_string(rank) + " did not reach step " + std::to_string(step) +
         " within run.peer_wait_seconds = " + limit +
         " s (a neighbour on the same GPU died or stalled); stopping";
}

// Records in this rank's block who did not arrive (once), for the ranks that
// wait for this one, and throws the message.
[[noreturn]] inline void host_give_up(const StepHandshake& h, int rank, std::uint64_t count) {
  std::uint64_t none = 0;
  if (__atomic_compare_exchange_n(h.mine + kGaveUp, &none, 1, false, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE)) {
    __atomic_store_n(h.mine + kMissingRank, static_cast<std::uint64_t>(rank), __ATOMIC_RELAXED);
    __atomic_store_n(h.mine + kMissingStep, count, __ATOMIC_RELEASE);
  }
  throw Error(peer_wait_message(rank, h.step_offset + static_cast<std::int64_t>(count),
                                static_cast<double>(h.wait_ns) * 1e-9));
}

// The same handshake run by the host, for fields in host memory shared
// between processes (the tests' stand-in for a GPU): the host is the stream.
inline void host_mark_and_wait(const StepHandshake& h) {
  __atomic_store_n(h.mine, h.finished, __ATOMIC_RELEASE);
  const auto start = std::chrono::steady_clock::now();
  for (int n = 0; n < h.count; ++n) {
    const std::uint64_t* theirs = h.theirs[n];
    // Ranks may outnumber cores (CI): give the neighbour the core.
    PollBackoff backoff(1000);
    while (__atomic_load_n(theirs + kStepsDone, __ATOMIC_ACQUIRE) < h.finished) {
      if (h.wait_ns != 0) {
        const std::uint64_t relayed = __atomic_load_n(theirs + kMissingStep, __ATOMIC_ACQUIRE);
        if (relayed != 0) {
          host_give_up(h,
                       static_cast<int>(__atomic_load_n(theirs + kMissingRank, __ATOMIC_RELAXED)),
                       relayed);
        }
        if (std::chrono::steady_clock::now() - start > std::chrono::nanoseconds(h.wait_ns)) {
          host_give_up(h, h.rank[n], h.finished);
        }
      }
      backoff.pause();
    }
  }
}

#if defined(__CUDACC__)
namespace detail {

__device__ inline std::uint64_t globaltimer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The device's host_give_up: the first wait of the rank to give up records
// who did not arrive in its block and raises the host's record; the others
// (lanes of the same launch, later launches) change nothing.
__device__ inline void device_give_up(const StepHandshake& h, std::uint64_t rank,
                                      std::uint64_t count) {
  auto* gave_up = reinterpret_cast<unsigned long long*>(h.mine + kGaveUp);
  if (atomicCAS(gave_up, 0ull, 1ull) != 0ull) return;
  volatile std::uint64_t* mine = h.mine;
  mine[kMissingRank] = rank;
  __threadfence_system();
  mine[kMissingStep] = count;
  if (h.failure == nullptr) return;
  volatile PeerWaitFailure* failure = h.failure;
  failure->rank = static_cast<int>(rank);
  failure->count = count;
  __threadfence_system();
  failure->raised = 1;
}

}  // namespace detail

// Run by one thread of each block once the whole block's writes are done
// (after a block barrier): true for the block that arrives last at
// `*arrivals`, which zeroes it for the next launch (which starts after this
// one ends). `system`: some writes went to a peer GPU or to the host, to be
// seen there before what the last block does.
static __device__ __forceinline__ bool last_to_arrive(unsigned* arrivals, unsigned blocks,
                                                      bool system) {
  if (system) {
    __threadfence_system();
  } else {
    __threadfence();
  }
  const bool last = atomicAdd(arrivals, 1u) == blocks - 1;
  if (last) *arrivals = 0;
  return last;
}

// For a launch whose blocks share the handshake: the block that arrives last
// (last_to_arrive) then runs mark_and_wait.
static __device__ __forceinline__ bool arrived_last(const StepHandshake& h, unsigned blocks,
                                                    bool system) {
  return last_to_arrive(h.arrivals, blocks, system);
}

// Run by one block, once every write it vouches for is complete (earlier
// launches of the stream). `lane` is the thread's number in the block: lane 0
// marks, lane n watches neighbour n (volatile: other processes write them).
static __device__ __noinline__ void mark_and_wait(const StepHandshake& h, int lane) {
  if (lane == 0) {
    // Orders the earlier writes before the new count for readers elsewhere.
    __threadfence_system();
    *static_cast<volatile std::uint64_t*>(h.mine) = h.finished;
  }
  if (lane >= h.count) return;
  const volatile std::uint64_t* theirs = h.theirs[lane];
  const volatile std::uint64_t* mine = h.mine;
  const std::uint64_t start = h.wait_ns != 0 ? detail::globaltimer_ns() : 0;
  while (theirs[kStepsDone] < h.finished) {
    if (h.wait_ns != 0) {
      if (mine[kGaveUp] != 0) return;
      const std::uint64_t relayed = theirs[kMissingStep];
      if (relayed != 0) {
        __threadfence();  // the rank was written before the count
        detail::device_give_up(h, theirs[kMissingRank], relayed);
        return;
      }
      if (detail::globaltimer_ns() - start > h.wait_ns) {
        detail::device_give_up(h, static_cast<std::uint64_t>(h.rank[lane]), h.finished);
        return;
      }
    }
    __nanosleep(100);
  }
}
#endif

}  // namespace mpsfw
