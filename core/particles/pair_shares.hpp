#pragma once
// What a pair loop over half lists (each pair listed once: NeighbourLists::
// Half) needs to give both particles their share: atomic adds, since another
// row may add to the same neighbour at the same time, on the host and on a
// GPU alike; and fixed-point sums, whose integer adds give the same
// bits in any order, so that a sum over pairs does not depend on the order
// rows run in, nor (with ParticleExchange::add_ghosts_to_owners) on the rank
// grid.
#include <cmath>
#include <cstdint>
#include <cstring>

#include <mpsfw/core/base/hd.hpp>

namespace mpsfw {

// *at += v, atomically (on the host through the compiler's atomic builtins,
// whatever threads the host backend runs).
MPSFW_HD void atomic_add(double* at, double v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(at, v);
#else
  auto* word = reinterpret_cast<std::uint64_t*>(at);
  std::uint64_t seen = __atomic_load_n(word, __ATOMIC_RELAXED), next;
  do {
    double sum;
    std::memcpy(&sum, &seen, sizeof sum);
    sum += v;
    std::memcpy(&next, &sum, sizeof next);
  } while (
      !__atomic_compare_exchange_n(word, &seen, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
#endif
}
MPSFW_HD void atomic_add(std::int64_t* at, std::int64_t v) {
#if defined(__CUDA_ARCH__)
  // Two's complement: the unsigned sum wraps to the signed one.
  atomicAdd(reinterpret_cast<unsigned long long*>(at), static_cast<unsigned long long>(v));
#else
  __atomic_fetch_add(at, v, __ATOMIC_RELAXED);
#endif
}

// Reals as integers of 1/scale: v becomes round(v * scale), exact to half of
// 1/scale, summed exactly (in any order) while the sum stays below 2^63 /
// scale in magnitude. A scale of 2^32 keeps ~9 decimals below 1 and sums up to
// ~2e9.
struct FixedPoint {
  double scale = 4294967296.0;  // 2^32

  MPSFW_HD std::int64_t of(double v) const {
#if defined(__CUDA_ARCH__)
    return __double2ll_rn(v * scale);
#else
    return std::llrint(v * scale);
#endif
  }
  MPSFW_HD double value(std::int64_t fixed) const { return static_cast<double>(fixed) / scale; }
};

}  // namespace mpsfw
