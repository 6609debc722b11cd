#pragma once
// Device side of StepSignal (CUDA files only).
#include "step_signal.hpp"

namespace mpsfw {

// For a kernel that runs the handshake in its tail: every thread of every
// block calls arrive() exactly once, after its last write (threads with
// nothing to do may call it at once and leave), so no block barrier is needed
// at the end. `block_arrived` is a __shared__ counter the block set to 0
// before any thread arrives. Each warp's arriving lanes are counted by one
// leader; the last warp of a block counts the block for the launch; the
// launch's last block marks this rank's counter and waits for the neighbours.
// The rest of arrive(), for the last warp of a block (out of line: it must
// not cost the kernel registers).
static __device__ __noinline__ void block_arrived_last(const StepSignal& s) {
  // The whole block's writes before its count.
  __threadfence();
  const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
  if (atomicAdd(s.arrivals, 1u) != blocks - 1) return;
  *s.arrivals = 0;  // the next launch on this stream starts after this one ends
  // Every block's writes before the mark, for readers in other processes.
  __threadfence_system();
  *static_cast<volatile std::uint64_t*>(s.mine) = s.finished;
  for (int i = 0; i < s.count; ++i) {
    // Volatile: another process writes it.
    while (*static_cast<const volatile std::uint64_t*>(s.theirs[i]) < s.finished) {
      __nanosleep(100);
    }
  }
}

__device__ __forceinline__ void arrive(const StepSignal& s, unsigned* block_arrived) {
  const unsigned lanes = __activemask();
  __syncwarp(lanes);  // the lanes' writes before their leader counts them
  const unsigned lane =
      (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u;
  if (lane != static_cast<unsigned>(__ffs(lanes) - 1)) return;
  __threadfence_block();
  const unsigned block_threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned n = static_cast<unsigned>(__popc(lanes));
  if (atomicAdd(block_arrived, n) + n == block_threads) block_arrived_last(s);
}

// A one-block kernel's handshake (all its threads call it together).
__device__ inline void arrive_and_wait(const StepSignal& s) {
  __shared__ unsigned arrived;
  if (threadIdx.x + threadIdx.y + threadIdx.z == 0) arrived = 0;
  __syncthreads();
  arrive(s, &arrived);
}

}  // namespace mpsfw
