#pragma once
// The CUDA backend of the particle layer's primitives (particle_arrays.hpp
// says what each must do): one kernel launch per for_each on the default
// stream, CUB for scans, reductions and the stable radix sort. Included by
// CUDA sources only (nvcc with --extended-lambda).
#include <cuda_runtime.h>

#include <cstddef>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "core/backend.hpp"
#include "core/cuda_check.hpp"
#include "core/memory.hpp"
#include "neighbour_rows.hpp"

namespace mpsfw {
namespace cuda_exec {

constexpr int kThreads = 256;

template <class F>
__global__ void for_each_kernel(long n, F f) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}

}  // namespace cuda_exec

class CudaExec {
 public:
  static constexpr Backend kSpace = Backend::Cuda;
  static constexpr bool kRowsTransposed = true;  // a warp's k-th entries coalesce

  template <class F>
  void for_each(long n, const F& f) const {
    if (n <= 0) return;
    const auto blocks = static_cast<unsigned>((n + cuda_exec::kThreads - 1) / cuda_exec::kThreads);
    cuda_exec::for_each_kernel<<<blocks, cuda_exec::kThreads>>>(n, f);
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  template <class F>
  long count(long n, const F& f) const {
    if (n <= 0) return 0;
    long* v = values<long>(n);
    for_each(n, [=] __device__(long i) { v[i] = f(i); });
    return reduced(v, n, false, 0L);
  }

  template <class F>
  double max_of(long n, const F& f) const {
    if (n <= 0) return 0;
    double* v = values<double>(n);
    for_each(n, [=] __device__(long i) { v[i] = f(i); });
    return reduced(v, n, true, 0.0);
  }

  // CUB's tree: the same order for the same n (run after run), not the
  // host's sequential one.
  template <class F>
  double sum(long n, const F& f) const {
    if (n <= 0) return 0;
    double* v = values<double>(n);
    for_each(n, [=] __device__(long i) { v[i] = f(i); });
    return reduced(v, n, false, 0.0);
  }

  template <class F, class Use>
  void scan(long n, const F& f, const Use& use) const {
    if (n <= 0) return;
    long* in = values<long>(n);
    long* out = scanned(n);
    for_each(n, [=] __device__(long i) { in[i] = f(i); });
    std::size_t bytes = 0;
    MPSFW_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n));
    MPSFW_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp(bytes), bytes, in, out, n));
    for_each(n, [=] __device__(long i) { use(i, out[i]); });
  }

  // CUB's radix sort is stable; each key's start by binary search.
  void sort_by_key(const int* key, long n, int keys, long* order, long* start) const {
    int bits = 1;
    while (bits < 31 && (1L << bits) < keys) ++bits;
    int* sorted = sorted_keys(n);
    long* iota = values<long>(n);
    for_each(n, [=] __device__(long i) { iota[i] = i; });
    if (n > 0) {
      std::size_t bytes = 0;
      MPSFW_CUDA_CHECK(
          cub::DeviceRadixSort::SortPairs(nullptr, bytes, key, sorted, iota, order, n, 0, bits));
      MPSFW_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp(bytes), bytes, key, sorted, iota, order,
                                                       n, 0, bits));
    }
    for_each(keys + 1, [=] __device__(long k) {
      long lo = 0, hi = n;  // the first position with sorted[p] >= k
      while (lo < hi) {
        const long mid = (lo + hi) / 2;
        if (sorted[mid] < k) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      start[k] = lo;
    });
  }

  // A thread a particle (neighbour_rows.hpp).
  long list_neighbours(const NeighbourBuild& b) const { return list_each_particle(*this, b); }

  void synchronize() const { MPSFW_CUDA_CHECK(cudaStreamSynchronize(0)); }

 private:
  // The sum of v[0 .. n - 1], or with `largest` its largest.
  template <class T>
  T reduced(const T* v, long n, bool largest, T init) const {
    T* out = reinterpret_cast<T*>(result_.data());
    std::size_t bytes = 0;
    if (largest) {
      MPSFW_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, bytes, v, out, n));
      MPSFW_CUDA_CHECK(cub::DeviceReduce::Max(temp(bytes), bytes, v, out, n));
    } else {
      MPSFW_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, v, out, n));
      MPSFW_CUDA_CHECK(cub::DeviceReduce::Sum(temp(bytes), bytes, v, out, n));
    }
    T host = init;
    MPSFW_CUDA_CHECK(cudaMemcpy(&host, out, sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  // Grow-only device scratch: CUB's temporaries, per-particle values, keys.
  void* temp(std::size_t bytes) const { return grown(&temp_, bytes); }
  template <class T>
  T* values(long n) const {
    return static_cast<T*>(grown(&values_, static_cast<std::size_t>(n) * sizeof(T)));
  }
  long* scanned(long n) const {
    return static_cast<long*>(grown(&scanned_, static_cast<std::size_t>(n) * sizeof(long)));
  }
  int* sorted_keys(long n) const {
    return static_cast<int*>(grown(&keys_, static_cast<std::size_t>(n) * sizeof(int)));
  }
  static void* grown(Array<char>* a, std::size_t bytes) {
    if (a->size() < bytes + 1) *a = Array<char>(Backend::Cuda, bytes + bytes / 4 + 256);
    return a->data();
  }

  mutable Array<char> temp_, values_, scanned_, keys_;
  mutable Array<char> result_{Backend::Cuda, 16};
};

}  // namespace mpsfw
