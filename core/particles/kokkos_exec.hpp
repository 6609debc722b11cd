#pragma once
// The Kokkos backend of the particle layer's primitives (particle_arrays.hpp
// says what each must do): Kokkos patterns in the default execution space
// over raw pointers into core memory (the GPU's with a CUDA Kokkos, so that
// same-GPU neighbours can map it). Included by sources built with
// mpsfw_kokkos_sources only.
#include <Kokkos_Core.hpp>
#include <cstddef>

#include "core/backend.hpp"
#include "core/hd.hpp"
#include "core/kokkos_launch.hpp"
#include "core/memory.hpp"

namespace mpsfw {

class KokkosExec {
  using Space = Kokkos::DefaultExecutionSpace;
  using Range = Kokkos::RangePolicy<Space, Kokkos::IndexType<long>>;
  // Closures as kernel arguments (core/kokkos_launch.hpp): some carry the 26
  // ghost lists' runs.
  static decltype(as_kernel_argument(Range())) range(long n) {
    return as_kernel_argument(Range(0, n));
  }

 public:
  static constexpr Backend kSpace =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space::memory_space>::accessible
          ? Backend::Host
          : Backend::Cuda;
  static constexpr bool kRowsTransposed = kSpace == Backend::Cuda;

  template <class F>
  void for_each(long n, const F& f) const {
    if (n > 0) Kokkos::parallel_for("mpsfw::particles::for_each", range(n), f);
  }

  template <class F>
  long count(long n, const F& f) const {
    long total = 0;
    if (n <= 0) return total;
    Kokkos::parallel_reduce(
        "mpsfw::particles::count", range(n), MPSFW_LAMBDA(long i, long& s) { s += f(i); }, total);
    return total;
  }

  template <class F>
  double max_of(long n, const F& f) const {
    double largest = 0;
    if (n <= 0) return largest;
    Kokkos::parallel_reduce(
        "mpsfw::particles::max_of", range(n),
        MPSFW_LAMBDA(long i, double& m) {
          const double v = f(i);
          if (v > m) m = v;
        },
        Kokkos::Max<double>(largest));
    return largest;
  }

  // Kokkos's reduction order: fixed for n and the execution space's
  // configuration (thread count, launch shape), not the host's sequential one.
  template <class F>
  double sum(long n, const F& f) const {
    double total = 0;
    if (n <= 0) return total;
    Kokkos::parallel_reduce(
        "mpsfw::particles::sum", range(n), MPSFW_LAMBDA(long i, double& s) { s += f(i); },
        Kokkos::Sum<double>(total));
    return total;
  }

  long exclusive_scan(const long* in, long* out, long n) const {
    long total = 0;
    if (n <= 0) return total;
    Kokkos::parallel_scan(
        "mpsfw::particles::exclusive_scan", range(n),
        MPSFW_LAMBDA(long i, long& before, bool final) {
          const long v = in[i];
          if (final) out[i] = before;
          before += v;
        },
        total);
    return total;
  }

  // A counting sort: each key's count by atomics, their starts by a scan,
  // places by atomics, and each key's run back into index order (insertion
  // sort: a key, a link cell, holds a few tens of particles), so stable.
  void sort_by_key(const int* key, long n, int keys, long* order, long* start) const {
    if (static_cast<long>(fill_.size()) < keys + 1L)
      fill_ = Array<long>(kSpace, static_cast<std::size_t>(keys + keys / 4 + 16));
    long* fill = fill_.data();
    for_each(
        keys + 1L, MPSFW_LAMBDA(long k) { fill[k] = 0; });
    for_each(
        n, MPSFW_LAMBDA(long i) { Kokkos::atomic_fetch_add(&fill[key[i]], 1L); });
    exclusive_scan(fill, start, keys + 1L);
    for_each(
        keys + 1L, MPSFW_LAMBDA(long k) { fill[k] = start[k]; });
    for_each(
        n, MPSFW_LAMBDA(long i) { order[Kokkos::atomic_fetch_add(&fill[key[i]], 1L)] = i; });
    for_each(
        keys, MPSFW_LAMBDA(long k) {
          for (long a = start[k] + 1; a < start[k + 1]; ++a) {
            const long particle = order[a];
            long b = a;
            for (; b > start[k] && order[b - 1] > particle; --b) order[b] = order[b - 1];
            order[b] = particle;
          }
        });
  }

  void synchronize() const { Kokkos::fence(); }

 private:
  mutable Array<long> fill_;  // sort_by_key's counts, then places
};

}  // namespace mpsfw
