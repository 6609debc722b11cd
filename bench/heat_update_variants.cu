// The variants' kernels and their table (heat_update_variants.hpp). Like the
// solver's kernel, each block covers a tile of x-y columns and marches a chunk
// of ZC planes along z; threads past the box's edges store nothing.
#include <cstdint>
#include <string>

#include "bench/heat_update_variants.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/cuda_check.hpp>
#include <mpsfw/solvers/heat/heat_update.cuh>
#include <mpsfw/solvers/heat/heat_update_pairs.cuh>

namespace mpsfw::bench {
namespace {

using heat::Coefficients;
using heat::updated_value;

// The blocks over `box` for blocks of CX x BY cells and ZC planes (Error when
// too many); false when there are none.
template <int CX, int BY, int ZC>
bool grid_over(const Box& box, dim3& grid) {
  grid = heat::gpu::update_grid<CX, BY, ZC>(box);
  heat::gpu::check_grid(grid, box);
  return grid.x > 0 && grid.y > 0 && grid.z > 0;
}

// --- pairs: the solver's pair update (heat_update_pairs.cuh) -----------------
// Two x cells per thread, x edges shuffled between lanes, plane k + P
// prefetched into L2 (P = 0: none), at more shapes than the solver compiles.
template <int P, int BX, int BY, int ZC>
void launch_pairs(const double* u, double* next, const FieldLayout& layout, const Box& box,
                  Coefficients k) {
  heat::gpu::launch_pair_update<BX, BY, ZC, P>(u, next, layout, box, k);
}
// The one-cell update (heat_update.cuh), for comparison at any size.
template <int BX, int BY, int ZC>
constexpr auto one_cell = heat::gpu::launch_update_box<BX, BY, ZC, false>;
template <int BX, int BY, int ZC>
constexpr auto pairs = launch_pairs<0, BX, BY, ZC>;
template <int BX, int BY, int ZC>
constexpr auto pairs_l2_3 = launch_pairs<3, BX, BY, ZC>;
template <int BX, int BY, int ZC>
constexpr auto pairs_l2_4 = launch_pairs<4, BX, BY, ZC>;

// --- prefetch: the solver's column march, longer chunks ----------------------
// One cell per thread as in heat_update.cuh, but the "above" values come from
// a queue loaded D planes ahead, so that long chunks keep loads in flight.
// ptxas may reschedule that queue to save registers; a prefetch into L2 of
// plane k + P (P > 0) costs no register and cannot be undone that way.

template <int BX, int BY, int ZC, int D, int P>
__global__ void __launch_bounds__(BX* BY)
    prefetch_kernel(const double* __restrict__ u, double* __restrict__ next, FieldLayout layout,
                    Box box, Coefficients k) {
  static_assert(D >= 1 && D <= ZC, "the queue lies inside the chunk");
  const int i = box.lo.x + static_cast<int>(blockIdx.x) * BX + static_cast<int>(threadIdx.x);
  const int j = box.lo.y + static_cast<int>(blockIdx.y) * BY + static_cast<int>(threadIdx.y);
  if (i >= box.hi.x || j >= box.hi.y) return;
  const int k0 = box.lo.z + static_cast<int>(blockIdx.z) * ZC;
  const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
  std::int64_t c = layout.index(i, j, k0);
  double below = __ldg(u + c - sz);
  double center = __ldg(u + c);
  if (k0 + ZC > box.hi.z) {
    for (int kz = k0; kz < box.hi.z; ++kz) {
      heat::gpu::march_one<false>(u, next, c, sy, sz, below, center, k);
    }
    return;
  }
  double ahead[D];  // planes k + 1 .. k + D of cell k's column
#pragma unroll
  for (int d = 0; d < D; ++d) ahead[d] = __ldg(u + c + (d + 1) * sz);
#pragma unroll
  for (int z = 0; z < ZC; ++z) {
    if (P > 0 && k0 + z + P <= box.hi.z) heat::gpu::prefetch_into_l2(u + c + P * sz);
    const double above = ahead[0];
#pragma unroll
    for (int d = 0; d + 1 < D; ++d) ahead[d] = ahead[d + 1];
    if (z + D + 1 <= ZC) ahead[D - 1] = __ldg(u + c + (D + 1) * sz);  // up to plane k0 + ZC
    next[c] = updated_value(center, __ldg(u + c - 1), __ldg(u + c + 1), __ldg(u + c - sy),
                            __ldg(u + c + sy), below, above, k);
    below = center;
    center = above;
    c += sz;
  }
}

template <int P, int BX, int BY, int ZC>
void launch_prefetch(const double* u, double* next, const FieldLayout& layout, const Box& box,
                     Coefficients k) {
  dim3 grid;
  if (!grid_over<BX, BY, ZC>(box, grid)) return;
  prefetch_kernel<BX, BY, ZC, 2, P><<<grid, dim3(BX, BY, 1)>>>(u, next, layout, box, k);
  MPSFW_CUDA_CHECK_LAUNCH();
}

template <int BX, int BY, int ZC>
constexpr auto prefetch = launch_prefetch<0, BX, BY, ZC>;
template <int BX, int BY, int ZC>
constexpr auto prefetch_l2_4 = launch_prefetch<4, BX, BY, ZC>;
template <int BX, int BY, int ZC>
constexpr auto prefetch_l2_8 = launch_prefetch<8, BX, BY, ZC>;

// --- smem-2.5d: x and y neighbours from a shared plane tile ------------------
// The block writes each plane of its (BX + 2) x (BY + 2) tile into shared
// memory once (its halo ring by the first 2 (BX + BY) threads) and reads the x
// and y neighbours from there: each cell is loaded once per block, not five
// times through L1. Two tiles alternate, so one __syncthreads per plane
// suffices; each thread's next values are loaded two planes ahead, before it.
template <int BX, int BY, int ZC>
__global__ void __launch_bounds__(BX* BY)
    smem_kernel(const double* __restrict__ u, double* __restrict__ next, FieldLayout layout,
                Box box, Coefficients k) {
  static_assert(BX * BY >= 2 * (BX + BY), "enough threads for the halo ring");
  __shared__ double tile[2][BY + 2][BX + 2];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int bi = box.lo.x + static_cast<int>(blockIdx.x) * BX;
  const int bj = box.lo.y + static_cast<int>(blockIdx.y) * BY;
  const int k0 = box.lo.z + static_cast<int>(blockIdx.z) * ZC;
  const int nz = min(ZC, box.hi.z - k0);
  const bool store = bi + tx < box.hi.x && bj + ty < box.hi.y;
  // Every thread takes part in the barriers; those past the box read the
  // nearest cell the stencil reads (x = box.hi.x or y = box.hi.y).
  const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
  std::int64_t c = layout.index(min(bi + tx, box.hi.x), min(bj + ty, box.hi.y), k0);
  // Halo cell h of the ring (no corners): rows below and above, then the
  // columns left and right.
  const int h = tx + BX * ty;
  const bool has_halo = h < 2 * (BX + BY);
  int hx = 0, hy = 0;
  if (h < 2 * BX) {
    hx = 1 + h % BX;
    hy = h < BX ? 0 : BY + 1;
  } else if (has_halo) {
    hx = h < 2 * BX + BY ? 0 : BX + 1;
    hy = 1 + (h - 2 * BX) % BY;
  }
  std::int64_t hc =
      layout.index(min(bi + hx - 1, box.hi.x), min(bj + hy - 1, box.hi.y), k0);  // its cell
  double below = __ldg(u + c - sz), center = __ldg(u + c), above = __ldg(u + c + sz);
  double halo = 0, halo_above = 0;
  if (has_halo) {
    halo = __ldg(u + hc);
    halo_above = __ldg(u + hc + sz);
  }
#pragma unroll 2
  for (int z = 0; z < nz; ++z) {
    double(*t)[BX + 2] = tile[z & 1];
    t[ty + 1][tx + 1] = center;
    if (has_halo) t[hy][hx] = halo;
    double after = 0, halo_after = 0;
    if (z + 2 <= nz) {  // plane k0 + z + 2, at most box.hi.z
      after = __ldg(u + c + 2 * sz);
      if (has_halo) halo_after = __ldg(u + hc + 2 * sz);
    }
    __syncthreads();
    if (store) {
      next[c] = updated_value(center, t[ty + 1][tx], t[ty + 1][tx + 2], t[ty][tx + 1],
                              t[ty + 2][tx + 1], below, above, k);
    }
    below = center;
    center = above;
    above = after;
    halo = halo_above;
    halo_above = halo_after;
    c += sz;
    hc += sz;
  }
}

template <int BX, int BY, int ZC>
void launch_smem(const double* u, double* next, const FieldLayout& layout, const Box& box,
                 Coefficients k) {
  dim3 grid;
  if (!grid_over<BX, BY, ZC>(box, grid)) return;
  smem_kernel<BX, BY, ZC><<<grid, dim3(BX, BY, 1)>>>(u, next, layout, box, k);
  MPSFW_CUDA_CHECK_LAUNCH();
}

// --- the table ---------------------------------------------------------------
using Launcher = void (*)(const double*, double*, const FieldLayout&, const Box&, Coefficients);
struct Variant {
  const char* name;
  Launcher launch;
};

#define MPSFW_VARIANT(DESIGN, LAUNCH, BX, BY, ZC) \
  { DESIGN " " #BX "x" #BY " z" #ZC, LAUNCH<BX, BY, ZC> }
const Variant kVariants[] = {
    MPSFW_VARIANT("one-cell", one_cell, 64, 4, 8),
    MPSFW_VARIANT("pairs", pairs, 32, 8, 8),
    MPSFW_VARIANT("pairs", pairs, 32, 16, 8),
    MPSFW_VARIANT("pairs-l2+4", pairs_l2_4, 32, 8, 8),
    MPSFW_VARIANT("pairs-l2+4", pairs_l2_4, 32, 16, 8),
    MPSFW_VARIANT("pairs-l2+4", pairs_l2_4, 32, 8, 16),
    MPSFW_VARIANT("pairs-l2+4", pairs_l2_4, 32, 4, 8),
    MPSFW_VARIANT("pairs-l2+4", pairs_l2_4, 64, 4, 8),
    MPSFW_VARIANT("pairs-l2+3", pairs_l2_3, 32, 16, 8),
    MPSFW_VARIANT("prefetch", prefetch, 64, 4, 16),
    MPSFW_VARIANT("prefetch-l2+4", prefetch_l2_4, 64, 4, 16),
    MPSFW_VARIANT("smem-2.5d", launch_smem, 32, 8, 16),
    MPSFW_VARIANT("smem-2.5d", launch_smem, 64, 8, 64),
};
#undef MPSFW_VARIANT

}  // namespace

std::vector<std::string> update_variants() {
  std::vector<std::string> names;
  for (const Variant& v : kVariants) names.emplace_back(v.name);
  return names;
}

void launch_update_variant(const std::string& name, const double* u, double* next,
                           const FieldLayout& layout, const Box& box, heat::Coefficients k) {
  for (const Variant& v : kVariants) {
    if (name == v.name) {
      v.launch(u, next, layout, box, k);
      return;
    }
  }
  throw Error("heat update variant '" + name + "' is not compiled in");
}

}  // namespace mpsfw::bench
