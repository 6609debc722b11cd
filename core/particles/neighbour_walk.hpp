#pragma once
// Walks a particle's neighbour list in list order with the next neighbours'
// positions already loading while a pair is computed: on a GPU a small
// system's few resident warps then still keep loads in flight. The order is
// the list's, so the sums equal a plain loop's bit for bit (every backend sums
// its pairs in list order). Every pair loop walks its lists with it
// (NeighbourRows::walk, and MD's tuned CUDA force kernel).
#include <mpsfw/core/base/hd.hpp>

#if defined(__CUDA_ARCH__)  // the device pass (host compilers warn of the pragma)
#define MPSFW_UNROLL _Pragma("unroll")
// Unrolling the pair loop (by 4, the compiler's choice too) was slower
// (docs/performance.md).
#define MPSFW_NO_UNROLL _Pragma("unroll 1")
#else
#define MPSFW_UNROLL
#define MPSFW_NO_UNROLL
#endif

namespace mpsfw {

// Neighbours loading ahead: 2 ahead was the fastest of 0, 2, 3, 4 and 6 for
// MD's CUDA force kernel on in.lj (docs/performance.md).
constexpr int kNeighboursAhead = 2;

// neighbour(k): the particle of list entry k, for k < n; position(j): particle
// j's position, loaded once; visit(q): the pair with the neighbour at q. Past
// the list's end `self` stands in: a valid particle, loaded ahead, never visited.
template <class Neighbour, class PositionOf, class Visit>
MPSFW_HD void walk_neighbours(int n, int self, const Neighbour& neighbour,
                              const PositionOf& position, const Visit& visit) {
  const auto atom = [&](int k) { return k < n ? neighbour(k) : self; };
  using Loaded = decltype(position(self));
  Loaded ahead[kNeighboursAhead];  // neighbours k, k + 1, ...
  MPSFW_UNROLL
  for (int a = 0; a < kNeighboursAhead; ++a) ahead[a] = position(atom(a));
  int next = atom(kNeighboursAhead);
  MPSFW_NO_UNROLL
  for (int k = 0; k < n; ++k) {
    const Loaded q = ahead[0];
    MPSFW_UNROLL
    for (int a = 0; a + 1 < kNeighboursAhead; ++a) ahead[a] = ahead[a + 1];
    ahead[kNeighboursAhead - 1] = position(next);
    next = atom(k + kNeighboursAhead + 1);
    visit(q);
  }
}

}  // namespace mpsfw
