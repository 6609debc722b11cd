#pragma once
// sort_by_key (particle_arrays.hpp) for the parallel backends (CUDA, and
// Kokkos on any space), written once over an Exec's for_each and scan: each key's count by atomics,
// their starts by a scan, places by atomics (in no set order), then every particle's place within
// its key's run by its rank there (the run's particles of lower index: a key, a link cell, holds a
// few tens), so stable: the order a stable radix sort gives. No memset and no copy on the stream
// (each costs a wait of its own where MPS clients share the GPU: docs/performance.md, 2026-11-28).
#include "core/hd.hpp"

namespace mpsfw {

// *p += v, returning the value before, on the device (an atomic) or the host.
MPSFW_HD long fetch_add(long* p, long v) {
#if defined(__CUDA_ARCH__)
  return static_cast<long>(
      atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)));
#else
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

// `fill` holds keys + 1 longs and `placed` n, both the caller's scratch.
template <class Exec>
void counting_sort_by_key(const Exec& exec, const int* key, long n, int keys, long* order,
                          long* start, long* fill, long* placed) {
  exec.for_each(
      keys + 1L, MPSFW_LAMBDA(long k) { fill[k] = 0; });
  exec.for_each(
      n, MPSFW_LAMBDA(long i) { fetch_add(&fill[key[i]], 1L); });
  exec.scan(
      keys + 1L, MPSFW_LAMBDA(long k) { return fill[k]; },
      MPSFW_LAMBDA(long k, long before) { start[k] = before; });
  exec.for_each(
      keys + 1L, MPSFW_LAMBDA(long k) { fill[k] = start[k]; });
  exec.for_each(
      n, MPSFW_LAMBDA(long i) { placed[fetch_add(&fill[key[i]], 1L)] = i; });
  exec.for_each(
      n, MPSFW_LAMBDA(long p) {
        const long particle = placed[p];
        const int k = key[particle];
        long rank = start[k];
        for (long a = start[k]; a < start[k + 1]; ++a) rank += placed[a] < particle ? 1 : 0;
        order[rank] = particle;
      });
}

}  // namespace mpsfw
