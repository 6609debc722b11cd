#pragma once
// The CUDA backend of the particle layer's primitives (particle_arrays.hpp
// says what each must do): one kernel launch per for_each on the default
// stream, CUB for scans and sums, the counting sort of counting_sort.hpp,
// largest values by one atomic a warp into a device word (read when asked),
// counts likewise, and the neighbour lists built a warp per link cell.
// Included by CUDA sources only (nvcc with --extended-lambda).
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <climits>
#include <cmath>
#include <cstddef>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <string>

#include "counting_sort.hpp"
#include "neighbour_rows.hpp"
#include "word_landing.hpp"
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/comm/step_handshake.hpp>
#include <mpsfw/core/device/cuda_check.hpp>
#include <mpsfw/core/device/memory.hpp>

namespace mpsfw {
namespace cuda_exec {

constexpr int kThreads = 256;

template <class F>
__global__ void for_each_kernel(long n, F f) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}

// for_each_kernel for bodies that walk neighbour lists: blocks of
// kWalkThreads, as MD's force loop was tuned (docs/performance.md); the bounds
// let ptxas plan its registers for that size.
constexpr int kWalkThreads = 128;
template <class F>
__global__ void __launch_bounds__(kWalkThreads) for_each_walk_kernel(int n, F f) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) f(i);
}

// f(i) for every i < n, then the step's handshake (step_handshake.hpp): the
// block that arrives last marks this rank done and waits for its neighbours,
// so that what follows on the stream sees their writes.
template <class F>
__global__ void for_each_then_kernel(long n, F f, __grid_constant__ const StepHandshake h) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) f(i);
  __shared__ bool last;
  __syncthreads();  // the block's writes, before its arrival
  // The writes may go to a peer GPU: a system-wide fence.
  if (threadIdx.x == 0) last = arrived_last(h, gridDim.x, true);
  __syncthreads();
  if (last) mark_and_wait(h, static_cast<int>(threadIdx.x));
}

// The largest of f(i) >= 0 (NaN counts as HUGE_VAL) into *largest (zero
// before), as the bits of a non-negative double, which order like the
// values: one atomic a warp. The block that arrives last (at *arrivals)
// hands the result to *landing, a host word the device can write, so that
// no copy follows on the stream, then runs the handshake `then` if any (one
// block waits, never the whole launch). *clear, the next call's word, is
// zeroed.
template <class F>
__global__ void max_kernel(long n, F f, unsigned long long* largest, unsigned long long* clear,
                           unsigned* arrivals, unsigned long long* landing,
                           __grid_constant__ const StepHandshake then) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i == 0) *clear = 0;
  double v = 0;
  if (i < n) {
    v = f(i);
    if (!(v >= 0)) v = HUGE_VAL;
  }
  for (int o = 16; o > 0; o /= 2) v = fmax(v, __shfl_down_sync(0xffffffffu, v, o));
  if ((threadIdx.x & 31) == 0 && v > 0) {
    atomicMax(largest, static_cast<unsigned long long>(__double_as_longlong(v)));
    __threadfence();  // before the block counts itself in
  }
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) {
    last = last_to_arrive(arrivals, gridDim.x, false);
    if (last) {
      *static_cast<volatile unsigned long long*>(landing) = atomicAdd(largest, 0ull);
      __threadfence_system();
    }
  }
  if (then.empty()) return;
  __syncthreads();
  if (last) mark_and_wait(then, static_cast<int>(threadIdx.x));
}

// The sum of f(i) into *total (zero before): one atomic a warp, exact in
// any order. *clear, the next call's word, is zeroed.
template <class F>
__global__ void count_kernel(long n, F f, unsigned long long* total, unsigned long long* clear) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i == 0) *clear = 0;
  long v = i < n ? static_cast<long>(f(i)) : 0;
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0 && v != 0) atomicAdd(total, static_cast<unsigned long long>(v));
}

// Two device words taken in turn by the kernels that leave one result in a
// word (max_kernel, count_kernel, list_kernel): a launch writes next() while
// it zeroes other(), the word of the launch after it, so no memset runs
// between calls.
class WordPair {
 public:
  WordPair() {
    MPSFW_CUDA_CHECK(cudaMemset(words_.data(), 0, 2 * sizeof(unsigned long long)));
    MPSFW_CUDA_CHECK(cudaMemset(arrivals_.data(), 0, sizeof(unsigned)));
  }
  unsigned long long* next() {
    slot_ ^= 1;
    return words_.data() + slot_;
  }
  unsigned long long* other() { return words_.data() + (slot_ ^ 1); }
  const unsigned long long* current() const { return words_.data() + slot_; }
  // The blocks of a launch counting themselves in (zero between launches).
  unsigned* arrivals() { return arrivals_.data(); }

 private:
  Array<unsigned long long> words_{Backend::Cuda, 2};
  Array<unsigned> arrivals_{Backend::Cuda, 1};
  int slot_ = 0;
};

// NeighbourBuild's lists, a warp per link cell (kListWarps cells a block), a
// lane per particle of it: the warp loads each (z, y) row of cells (its three
// cells along x one range of `sorted`, the points in cell order) into a
// shared tile 32 at a time, and every lane tests its particle against the
// tile. The longest count goes to *longest (max_kernel's words). The bounds
// ask for 8 blocks an SM: with no minimum ptxas kept 32 registers and spilled.
constexpr int kListWarps = 4;
template <int Warps>
__global__ void __launch_bounds__(Warps * 32, 8)
    list_kernel(__grid_constant__ const NeighbourBuild b, const ParticlePoint* sorted,
                unsigned long long* longest, unsigned long long* clear) {
  constexpr unsigned kAll = 0xffffffffu;
  __shared__ ParticlePoint tiles[Warps][32];
  __shared__ int tile_indices[Warps][32];
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) / 32;
  if (blockIdx.x == 0 && threadIdx.x == 0) *clear = 0;
  ParticlePoint* tile = tiles[warp];
  int* tile_index = tile_indices[warp];
  const int nx = b.grid.count[0], ny = b.grid.count[1], nz = b.grid.count[2];
  const int cell = static_cast<int>(blockIdx.x) * Warps + warp;
  if (cell >= nx * ny * nz) return;  // whole warps only: no block-wide barrier follows
  const int cx = cell % nx, cy = (cell / nx) % ny, cz = cell / (nx * ny);
  const int x_lo = cx > 0 ? cx - 1 : 0, x_hi = cx < nx - 1 ? cx + 1 : nx - 1;
  const long begin = b.start[cell], end = b.start[cell + 1];
  int most = 0;
  for (long first = begin; first < end; first += 32) {
    const long s = first + lane;
    const long i = s < end ? b.order[s] : b.owned;
    const bool mine = i < b.owned;  // ghosts need no list
    if (!__any_sync(kAll, mine)) continue;
    ParticlePoint pi{};
    if (mine) pi = sorted[s];
    long k = 0;
    for (int z = cz - 1; z <= cz + 1; ++z) {
      if (z < 0 || z >= nz) continue;
      for (int y = cy - 1; y <= cy + 1; ++y) {
        if (y < 0 || y >= ny) continue;
        const long row = (static_cast<long>(z) * ny + y) * nx;
        const long row_end = b.start[row + x_hi + 1];
        for (long t0 = b.start[row + x_lo]; t0 < row_end; t0 += 32) {
          __syncwarp();  // the previous tile is no longer read
          const long t = t0 + lane;
          if (t < row_end) {
            tile[lane] = sorted[t];
            tile_index[lane] = static_cast<int>(b.order[t]);
          }
          __syncwarp();
          if (!mine) continue;
          const int n = row_end - t0 < 32 ? static_cast<int>(row_end - t0) : 32;
          for (int u = 0; u < n; ++u) {
            const int j = tile_index[u];
            const double dx = pi.c[0] - tile[u].c[0], dy = pi.c[1] - tile[u].c[1],
                         dz = pi.c[2] - tile[u].c[2];
            if (j == i || dx * dx + dy * dy + dz * dz >= b.reach2) continue;
            if (k < b.width) b.index[i * b.row_step + k * b.entry_step] = j;
            ++k;
          }
        }
      }
    }
    if (mine) {
      b.count[i] = static_cast<int>(k);
      most = max(most, static_cast<int>(k));
    }
  }
  for (int o = 16; o > 0; o /= 2) most = max(most, __shfl_down_sync(kAll, most, o));
  if (lane == 0 && most > 0) {
    atomicMax(longest,
              static_cast<unsigned long long>(__double_as_longlong(static_cast<double>(most))));
  }
}

}  // namespace cuda_exec

class CudaExec {
 public:
  static constexpr Backend kSpace = Backend::Cuda;
  static constexpr bool kRowsTransposed = true;  // a warp's k-th entries coalesce
  static constexpr bool kFusedMax = true;        // max_later (particle_arrays.hpp)
  static constexpr bool kMaxLaterWaits = true;   // max_later runs a handshake too

  template <class F>
  void for_each(long n, const F& f) const {
    if (n <= 0) return;
    const auto blocks = static_cast<unsigned>((n + cuda_exec::kThreads - 1) / cuda_exec::kThreads);
    cuda_exec::for_each_kernel<<<blocks, cuda_exec::kThreads>>>(n, f);
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  // for_each for pair loops (n < 2^31, as neighbour lists index).
  template <class F>
  void for_each_walk(long n, const F& f) const {
    if (n <= 0) return;
    const auto blocks =
        static_cast<unsigned>((n + cuda_exec::kWalkThreads - 1) / cuda_exec::kWalkThreads);
    cuda_exec::for_each_walk_kernel<<<blocks, cuda_exec::kWalkThreads>>>(static_cast<int>(n), f);
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  template <class F>
  long count(long n, const F& f) const {
    if (n <= 0) return 0;
    unsigned long long* word = counted_.next();
    const auto blocks = static_cast<unsigned>((n + cuda_exec::kThreads - 1) / cuda_exec::kThreads);
    cuda_exec::count_kernel<<<blocks, cuda_exec::kThreads>>>(n, f, word, counted_.other());
    MPSFW_CUDA_CHECK_LAUNCH();
    return static_cast<long>(read_word(word));
  }

  CudaExec() = default;
  CudaExec(const CudaExec&) = delete;
  CudaExec& operator=(const CudaExec&) = delete;

  template <class F>
  bool for_each_then(long n, const F& f, const StepHandshake& h) const {
    if (h.empty()) {
      for_each(n, f);
      return true;
    }
    const auto blocks = static_cast<unsigned>((n + cuda_exec::kThreads - 1) / cuda_exec::kThreads);
    const unsigned grid = blocks > 0 ? blocks : 1;  // the handshake runs even for none
    cuda_exec::for_each_then_kernel<<<grid, cuda_exec::kThreads>>>(n, f, h);
    MPSFW_CUDA_CHECK_LAUNCH();
    return true;
  }

  template <class F>
  void max_later(long n, const F& f, const StepHandshake& then = {}) const {
    unsigned long long* word = largest_.next();
    const long launched = n > 0 ? n : 1;  // clears the next word even for none
    const auto blocks =
        static_cast<unsigned>((launched + cuda_exec::kThreads - 1) / cuda_exec::kThreads);
    cuda_exec::max_kernel<<<blocks, cuda_exec::kThreads>>>(
        n, f, word, largest_.other(), largest_.arrivals(), later_.landing(), then);
    MPSFW_CUDA_CHECK_LAUNCH();
    // Landed when this pass ends: later_max waits for it, not for what the
    // caller queues after it (neighbour_schedule.hpp).
    later_.arm();
  }
  double later_max() const { return double_of_bits(later_.bits()); }
  template <class F>
  double max_of(long n, const F& f) const {
    max_later(n, f);
    return later_max();
  }

  // CUB's tree: the same order for the same n (run after run), not the
  // host's sequential one.
  template <class F>
  double sum(long n, const F& f) const {
    if (n <= 0) return 0;
    double* v = values<double>(n);
    for_each(n, [=] __device__(long i) { v[i] = f(i); });
    return summed(v, n);
  }

  // One pass of CUB's scan: f(i) read as its input, use(i, before) as its
  // output, nothing stored between.
  template <class F, class Use>
  void scan(long n, const F& f, const Use& use) const {
    // A __device__-only lambda's result type is unknown to the host: CUB
    // would launch a kernel for the wrong type (invalid device function).
    static_assert(!__nv_is_extended_device_lambda_closure_type(F) &&
                      !__nv_is_extended_device_lambda_closure_type(Use),
                  "CudaExec::scan takes __host__ __device__ lambdas (MPSFW_LAMBDA)");
    if (n <= 0) return;
    if (n <= INT_MAX) {  // CUB is faster with 32-bit offsets
      scan_over<int>(static_cast<int>(n), f, use);
    } else {
      scan_over<long>(n, f, use);
    }
  }

  // The parallel backends' counting sort (counting_sort.hpp).
  template <class KeyOf>
  void sort_by_key(long n, int keys, const KeyOf& key_of, int* key, long* order,
                   long* start) const {
    long* fill = values<long>(keys + 1L + n);
    counting_sort_by_key(*this, n, keys, key_of, key, order, start, fill, fill + keys + 1);
  }

  // A warp a link cell (cuda_exec::list_kernel), over the particles' points
  // gathered into cell order.
  long list_neighbours(const NeighbourBuild& b) const {
    auto* sorted = static_cast<ParticlePoint*>(
        grown(&sorted_, static_cast<std::size_t>(b.binned) * sizeof(ParticlePoint)));
    const double* x = b.x;
    const long* order = b.order;
    for_each(b.binned, [=] __device__(long s) { sorted[s] = point_of(x, order[s]); });
    const int cells = b.grid.count[0] * b.grid.count[1] * b.grid.count[2];
    unsigned long long* word = largest_.next();
    constexpr int kWarps = cuda_exec::kListWarps;
    cuda_exec::list_kernel<kWarps>
        <<<(cells + kWarps - 1) / kWarps, kWarps * 32>>>(b, sorted, word, largest_.other());
    MPSFW_CUDA_CHECK_LAUNCH();
    return static_cast<long>(read_largest());
  }

  void synchronize() const { MPSFW_CUDA_CHECK(cudaStreamSynchronize(0)); }

 private:
  template <class Offset, class F, class Use>
  void scan_over(Offset n, const F& f, const Use& use) const {
    const auto in = thrust::make_transform_iterator(thrust::counting_iterator<Offset>(0), f);
    const auto out = thrust::make_tabulate_output_iterator(use);
    std::size_t bytes = 0;
    MPSFW_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n));
    MPSFW_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp(bytes), bytes, in, out, n));
  }
  // The sum of v[0 .. n - 1].
  template <class T>
  T summed(const T* v, long n) const {
    T* out = reinterpret_cast<T*>(result_.data());
    std::size_t bytes = 0;
    MPSFW_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, v, out, n));
    MPSFW_CUDA_CHECK(cub::DeviceReduce::Sum(temp(bytes), bytes, v, out, n));
    T host = 0;
    MPSFW_CUDA_CHECK(cudaMemcpy(&host, out, sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  double read_largest() const { return double_of_bits(read_word(largest_.current())); }
  unsigned long long read_word(const unsigned long long* word) const {
    read_.start(word);
    return read_.bits();
  }
  // Grow-only device scratch: CUB's temporaries, per-particle values.
  void* temp(std::size_t bytes) const { return grown(&temp_, bytes); }
  template <class T>
  T* values(long n) const {
    return static_cast<T*>(grown(&values_, static_cast<std::size_t>(n) * sizeof(T)));
  }
  static void* grown(Array<char>* a, std::size_t bytes) {
    if (a->size() < bytes + 1) *a = Array<char>(Backend::Cuda, bytes + bytes / 4 + 256);
    return a->data();
  }

  mutable Array<char> temp_, values_, sorted_;
  mutable Array<char> result_{Backend::Cuda, 16};
  mutable cuda_exec::WordPair largest_;  // max_later's and the list build's longest count
  mutable cuda_exec::WordPair counted_;  // count's
  mutable WordLanding later_;            // max_later's result, on its way
  mutable WordLanding read_;             // read_word's
};

}  // namespace mpsfw
