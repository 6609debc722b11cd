#pragma once
// The CUDA update of a box, templated on its thread-block shape: the solver
// compiles the shapes it runs (heat_kernels_cuda.cu), bench/heat_update_shapes.cu
// the ones heat_bandwidth --sweep compares. Physics comes from heat_physics.hpp.
#include <cstdint>
#include <string>

#include "heat_physics.hpp"
#include <mpsfw/core/device/cuda_check.hpp>
#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw::heat::gpu {

// The solver's shape for the boxes the pair update (heat_update_pairs.cuh)
// does not take, but thin slabs: 64 x 4 threads, each marching through 8
// cells along z (docs/performance.md has the sweep it was chosen from).
constexpr int kUpdateBx = 64, kUpdateBy = 4, kUpdateZChunk = 8;

// Each thread owns one (i, j) column and marches ZC cells along z, passing the
// z neighbours on in registers. A whole chunk is unrolled so that all its loads
// can be in flight at once; only the last, partial chunk of a box takes the
// rolled loop. Streaming stores (evict-first) are an option the benchmark
// compares: they keep the written field from pushing the read one out of L2.
template <bool kStreamingStore>
__device__ __forceinline__ void store(double* p, double v) {
  if (kStreamingStore) {
    __stcs(p, v);
  } else {
    *p = v;
  }
}

// Updates cell c from registers (below, center) and memory, then moves the
// register window one cell up in z.
template <bool kStreamingStore>
__device__ __forceinline__ void march_one(const double* __restrict__ u, double* __restrict__ next,
                                          std::int64_t& c, std::int64_t sy, std::int64_t sz,
                                          double& below, double& center, Coefficients k) {
  const double above = __ldg(u + c + sz);
  store<kStreamingStore>(
      next + c, updated_value(center, __ldg(u + c - 1), __ldg(u + c + 1), __ldg(u + c - sy),
                              __ldg(u + c + sy), below, above, k));
  below = center;
  center = above;
  c += sz;
}

// This thread's column chunk of the box (blocks of BX x BY columns, ZC cells
// deep along z; `slice` is the block's place along z).
template <int BX, int BY, int ZC, bool kStreamingStore>
__device__ __forceinline__ void update_chunk(const double* __restrict__ u,
                                             double* __restrict__ next, const FieldLayout& layout,
                                             const Box& box, Coefficients k, unsigned slice) {
  const int i = box.lo.x + static_cast<int>(blockIdx.x) * BX + static_cast<int>(threadIdx.x);
  const int j = box.lo.y + static_cast<int>(blockIdx.y) * BY + static_cast<int>(threadIdx.y);
  if (i >= box.hi.x || j >= box.hi.y) return;
  const int k0 = box.lo.z + static_cast<int>(slice) * ZC;
  const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
  std::int64_t c = layout.index(i, j, k0);
  double below = __ldg(u + c - sz);
  double center = __ldg(u + c);
  if (k0 + ZC <= box.hi.z) {
#pragma unroll
    for (int z = 0; z < ZC; ++z) march_one<kStreamingStore>(u, next, c, sy, sz, below, center, k);
    return;
  }
  for (int kz = k0; kz < box.hi.z; ++kz) {
    march_one<kStreamingStore>(u, next, c, sy, sz, below, center, k);
  }
}

template <int BX, int BY, int ZC, bool kStreamingStore>
__global__ void __launch_bounds__(BX* BY)
    update_kernel(const double* __restrict__ u, double* __restrict__ next, FieldLayout layout,
                  Box box, Coefficients k) {
  update_chunk<BX, BY, ZC, kStreamingStore>(u, next, layout, box, k, blockIdx.z);
}

// The blocks of update_kernel over `box` (none for an empty box).
template <int BX, int BY, int ZC>
dim3 update_grid(const Box& box) {
  const Int3 s = box.empty() ? Int3{} : box.size();
  return dim3((s.x + BX - 1) / BX, (s.y + BY - 1) / BY, (s.z + ZC - 1) / ZC);
}

// Throws Error when `grid` (for `box`) is beyond what one launch can take.
inline void check_grid(const dim3& grid, const Box& box) {
  if (grid.y > 65535 || grid.z > 65535) {
    const Int3 s = box.empty() ? Int3{} : box.size();
    throw Error("CUDA update: box " + std::to_string(s.x) + "x" + std::to_string(s.y) + "x" +
                std::to_string(s.z) + " is too large for one launch");
  }
}

// next = one FTCS step of u, for the cells in `box`: one launch.
template <int BX, int BY, int ZC, bool kStreamingStore>
void launch_update_box(const double* u, double* next, const FieldLayout& layout, const Box& box,
                       Coefficients k) {
  const dim3 grid = update_grid<BX, BY, ZC>(box);
  check_grid(grid, box);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return;
  update_kernel<BX, BY, ZC, kStreamingStore><<<grid, dim3(BX, BY, 1)>>>(u, next, layout, box, k);
  MPSFW_CUDA_CHECK_LAUNCH();
}

}  // namespace mpsfw::heat::gpu
