#pragma once
// Device side of StepSignal (CUDA files only).
#include "step_signal.hpp"

namespace mpsfw {

// Called by every thread of every block of a launch, after its last write.
__device__ inline void arrive_and_wait(const StepSignal& s) {
  __shared__ bool last;
  const unsigned thread =
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  // The block's writes (own field and pushed halos) before its count: the
  // barrier orders them before thread 0, whose fence makes them visible
  // GPU-wide (the pattern of cooperative groups' grid sync).
  __syncthreads();
  if (thread == 0) {
    __threadfence();
    const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
    last = atomicAdd(s.arrivals, 1u) == blocks - 1;
    if (last) {
      *s.arrivals = 0;  // the next launch on this stream starts after this one ends
      // Every block's writes before the mark, for readers in other processes.
      __threadfence_system();
      *static_cast<volatile std::uint64_t*>(s.mine) = s.finished;
    }
  }
  __syncthreads();
  if (!last || thread >= static_cast<unsigned>(s.count)) return;
  // Thread n watches neighbour n (volatile: another process writes it).
  while (*static_cast<const volatile std::uint64_t*>(s.theirs[thread]) < s.finished) {
    __nanosleep(100);
  }
}

}  // namespace mpsfw
