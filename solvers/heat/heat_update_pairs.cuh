#pragma once
// The CUDA update of a box two x cells per thread, for boxes whose pairs are
// 16-byte aligned: two of the designs heat_update_choice.hpp chooses from,
// beside heat_update.cuh's one cell per thread. Same physics, same bits
// (heat_physics.hpp); docs/performance.md has the designs they came from
// and what each reached.
#include <cstdint>
#include <string>

#include "heat_physics.hpp"
#include "heat_update.cuh"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/cuda_check.hpp>
#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw::heat::gpu {

// The solver's shape: 32 x 16 threads (64 x 16 cells), 8 cells deep along z,
// with or without an L2 prefetch of the plane 4 ahead of the one it updates
// (heat_update_choice.hpp picks the faster on the GPU at hand).
constexpr int kPairBx = 32, kPairBy = 16, kPairZChunk = 8, kPairPrefetch = 4;

__device__ __forceinline__ double2 load_pair(const double* p) {
  return __ldg(reinterpret_cast<const double2*>(p));
}

// Plane k + P's bytes of this thread start towards L2 while plane k is
// computed: loads alone keep too few bytes in flight to reach the copy
// bandwidth (plane k + 2 was worse, k + 6 much worse: docs/performance.md).
__device__ __forceinline__ void prefetch_into_l2(const double* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

// One thread's column of pairs (i, i + 1): its register window along z and
// what it stores. The x edge values come from the neighbouring lanes; the
// lanes at a warp's ends and at the box's edge load them.
struct PairColumn {
  std::int64_t c;            // index of cell (i, j, k)
  bool store_pair, store_i;  // both cells in the box, or only cell i
  bool load_xm, load_xp;
  double2 below, center;
};

// Updates the pair at c from registers and memory and moves the window one
// plane up; with P > 0 and `prefetch`, plane k + P goes towards L2 first.
template <int P>
__device__ __forceinline__ void march_pair(const double* __restrict__ u, double* __restrict__ next,
                                           PairColumn& p, std::int64_t sy, std::int64_t sz,
                                           Coefficients k, bool prefetch) {
  if (P > 0 && prefetch) prefetch_into_l2(u + p.c + P * sz);
  const double2 above = load_pair(u + p.c + sz);
  const double2 ym = load_pair(u + p.c - sy), yp = load_pair(u + p.c + sy);
  // Every lane of the warp shuffles; lanes past the box hold copies.
  double xm = __shfl_up_sync(0xffffffffu, p.center.y, 1);
  double xp = __shfl_down_sync(0xffffffffu, p.center.x, 1);
  if (p.load_xm) xm = __ldg(u + p.c - 1);
  if (p.load_xp) xp = __ldg(u + p.c + 2);
  const double2 out = {
      updated_value(p.center.x, xm, p.center.y, ym.x, yp.x, p.below.x, above.x, k),
      updated_value(p.center.y, p.center.x, xp, ym.y, yp.y, p.below.y, above.y, k)};
  // Predicated stores, no branch: the next plane's loads can be issued early.
  if (p.store_pair) *reinterpret_cast<double2*>(next + p.c) = out;
  if (p.store_i) next[p.c] = out.x;
  p.below = p.center;
  p.center = above;
  p.c += sz;
}

template <int BX, int BY, int ZC, int P>
__global__ void __launch_bounds__(BX* BY)
    pair_update_kernel(const double* __restrict__ u, double* __restrict__ next, FieldLayout layout,
                       Box box, Coefficients k) {
  static_assert(BX % 32 == 0, "a warp lies along one row");
  const int i = box.lo.x + 2 * (static_cast<int>(blockIdx.x) * BX + static_cast<int>(threadIdx.x));
  const int j = box.lo.y + static_cast<int>(blockIdx.y) * BY + static_cast<int>(threadIdx.y);
  if (j >= box.hi.y) return;  // a whole warp
  // Lanes past the box read the last pair (its cell i + 1 may be box.hi.x,
  // which the stencil reads anyway) so that they can shuffle with the others.
  const bool store = i < box.hi.x;
  const int last = box.lo.x + ((box.hi.x - 1 - box.lo.x) & ~1);
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
  const int k0 = box.lo.z + static_cast<int>(blockIdx.z) * ZC;
  PairColumn p;
  p.c = layout.index(store ? i : last, j, k0);
  const bool pair = i + 1 < box.hi.x;
  p.store_pair = store && pair;
  p.store_i = store && !pair;
  p.load_xm = lane == 0;
  p.load_xp = pair && (lane == 31 || i + 2 >= box.hi.x);
  p.below = load_pair(u + p.c - sz);
  p.center = load_pair(u + p.c);
  if (k0 + ZC <= box.hi.z) {
#pragma unroll
    for (int z = 0; z < ZC; ++z) {
      march_pair<P>(u, next, p, sy, sz, k, k0 + z + P <= box.hi.z);
    }
    return;
  }
  for (int kz = k0; kz < box.hi.z; ++kz) march_pair<0>(u, next, p, sy, sz, k, false);
}

// Whether `box`'s pairs start on 16-byte boundaries: rows start 64-byte
// aligned at their first interior cell (field_layout.hpp), so with one halo
// cell box.lo.x must be odd (the interior's first cell, not the one after).
inline bool pairs_aligned(const double* u, const double* next, const FieldLayout& layout,
                          const Box& box) {
  const auto aligned = [](const double* p) {
    return reinterpret_cast<std::uintptr_t>(p) % sizeof(double2) == 0;
  };
  return (layout.first + box.lo.x) % 2 == 0 && aligned(u) && aligned(next);
}

// next = one FTCS step of u for the cells in `box`, two x cells per thread:
// one launch. Throws Error when the pairs are not aligned (pairs_aligned).
template <int BX, int BY, int ZC, int P>
void launch_pair_update(const double* u, double* next, const FieldLayout& layout, const Box& box,
                        Coefficients k) {
  if (!pairs_aligned(u, next, layout, box)) {
    throw Error("CUDA pair update: box.lo.x " + std::to_string(box.lo.x) +
                " does not start a 16-byte aligned pair");
  }
  const dim3 grid = update_grid<2 * BX, BY, ZC>(box);
  check_grid(grid, box);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return;
  pair_update_kernel<BX, BY, ZC, P><<<grid, dim3(BX, BY, 1)>>>(u, next, layout, box, k);
  MPSFW_CUDA_CHECK_LAUNCH();
}

}  // namespace mpsfw::heat::gpu
