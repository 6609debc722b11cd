#pragma once
// sort_by_key (particle_arrays.hpp) for the parallel backends (CUDA, and
// Kokkos on any space), written once over an Exec's for_each and scan: each key's count by atomics,
// their starts by a scan, places by atomics (in no set order), then every particle's place within
// its key's run by its rank there (the run's particles of lower index: a key, a link cell, holds a
// few tens), so stable: the order a stable radix sort gives. No memset and no copy on the stream
// (each costs a wait of its own where MPS clients share the GPU: docs/performance.md).
#include <algorithm>

#include <mpsfw/core/base/hd.hpp>

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
// key[i] = key_of(i) first, in the pass that zeroes the counts, and each
// key's start written over its count by the scan: five passes (the scan
// one call) where a sort of given keys needs seven.
template <class Exec, class KeyOf>
void counting_sort_by_key(const Exec& exec, long n, int keys, const KeyOf& key_of, int* key,
                          long* order, long* start, long* fill, long* placed) {
  const long counts = keys + 1L;
  exec.for_each(
      std::max(n, counts), MPSFW_LAMBDA(long i) {
        if (i < n) key[i] = key_of(i);
        if (i < counts) fill[i] = 0;
      });
  exec.for_each(
      n, MPSFW_LAMBDA(long i) { fetch_add(&fill[key[i]], 1L); });
  // Each position reads its count before it writes its start there.
  exec.scan(
      counts, MPSFW_LAMBDA(long k) { return fill[k]; },
      MPSFW_LAMBDA(long k, long before) {
        start[k] = before;
        fill[k] = before;
      });
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
