// The variants' kernels and their table (heat_update_variants.hpp). Like the
// solver's kernel, each block covers a tile of x-y columns and marches a chunk
// of ZC planes along z; threads past the box's edges store nothing.
#include <cstdint>
#include <string>

#include "bench/heat_update_variants.hpp"
#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "solvers/heat/heat_update.cuh"

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

// --- x2-load, x2-shfl: two x cells per thread -------------------------------
// Each thread owns cells (i, i + 1) of a column: the center, above and y rows
// come as 16-byte double2 loads (half the load instructions). The x edge
// values i - 1 and i + 2 are scalar loads, or (kShuffle) the neighbouring
// lanes' registers, loaded only at a warp's ends and at the box's edge.

__device__ __forceinline__ void prefetch_l2(const double* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

// One bulk (TMA) prefetch into L2 of a warp's whole 512-byte row segment.
__device__ __forceinline__ void prefetch_l2_bulk(const double* p) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], 512;" ::"l"(p) : "memory");
}

__device__ __forceinline__ double2 load2(const double* p) {
  return __ldg(reinterpret_cast<const double2*>(p));
}

template <bool kShuffle>
struct PairColumn {
  std::int64_t c;            // index of cell (i, j, k), even
  bool store_pair, store_i;  // both cells in the box, or only cell i
  bool load_xm, load_xp;     // edge values not from a neighbouring lane
  bool prefetcher;           // this lane prefetches (every PL-th lane)
  double2 below, center;
};

// P > 0: also prefetch plane k + P into L2 (when `ahead` says it is in the box).
template <bool kShuffle, int P = 0, int PL = 1>
__device__ __forceinline__ void march_pair(const double* __restrict__ u, double* __restrict__ next,
                                           PairColumn<kShuffle>& p, std::int64_t sy,
                                           std::int64_t sz, Coefficients k, bool ahead = false) {
  // PL: every PL-th lane prefetches its own 16 bytes; PL = 32: lane 0 the
  // warp's 512 bytes in one bulk prefetch.
  if (P > 0 && ahead && p.prefetcher) {
    if (PL == 32) {
      prefetch_l2_bulk(u + p.c + P * sz);
    } else {
      prefetch_l2(u + p.c + P * sz);
    }
  }
  const double2 above = load2(u + p.c + sz);
  const double2 ym = load2(u + p.c - sy), yp = load2(u + p.c + sy);
  double xm = 0, xp = 0;
  if constexpr (kShuffle) {
    // Every lane of the warp takes part; lanes past the box hold copies.
    xm = __shfl_up_sync(0xffffffffu, p.center.y, 1);
    xp = __shfl_down_sync(0xffffffffu, p.center.x, 1);
  }
  if (p.load_xm) xm = __ldg(u + p.c - 1);
  if (p.load_xp) xp = __ldg(u + p.c + 2);
  const double2 out = {
      updated_value(p.center.x, xm, p.center.y, ym.x, yp.x, p.below.x, above.x, k),
      updated_value(p.center.y, p.center.x, xp, ym.y, yp.y, p.below.y, above.y, k)};
  // Two predicated stores, no branch: the next cell's loads can be issued early.
  if (p.store_pair) *reinterpret_cast<double2*>(next + p.c) = out;
  if (p.store_i) next[p.c] = out.x;
  p.below = p.center;
  p.center = above;
  p.c += sz;
}

template <int BX, int BY, int ZC, bool kShuffle, int P, int PL>
__global__ void __launch_bounds__(BX* BY)
    x2_kernel(const double* __restrict__ u, double* __restrict__ next, FieldLayout layout, Box box,
              Coefficients k) {
  static_assert(!kShuffle || BX % 32 == 0, "a warp must lie along one row");
  const int i = box.lo.x + 2 * (static_cast<int>(blockIdx.x) * BX + static_cast<int>(threadIdx.x));
  const int j = box.lo.y + static_cast<int>(blockIdx.y) * BY + static_cast<int>(threadIdx.y);
  if (j >= box.hi.y) return;  // whole warps, with kShuffle
  const bool store = i < box.hi.x;
  if (!kShuffle && !store) return;
  // Lanes past the box read the last pair (its cell i + 1 may be box.hi.x,
  // which the stencil reads anyway) so that they can shuffle with the others.
  const int last = box.lo.x + ((box.hi.x - 1 - box.lo.x) & ~1);
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
  const int k0 = box.lo.z + static_cast<int>(blockIdx.z) * ZC;
  PairColumn<kShuffle> p;
  p.c = layout.index(store ? i : last, j, k0);
  const bool pair = i + 1 < box.hi.x;
  p.store_pair = store && pair;
  p.store_i = store && !pair;
  p.load_xm = !kShuffle || lane == 0;
  p.prefetcher = lane % PL == 0;
  p.load_xp = pair && (!kShuffle || lane == 31 || i + 2 >= box.hi.x);
  p.below = load2(u + p.c - sz);
  p.center = load2(u + p.c);
  if (k0 + ZC <= box.hi.z) {
#pragma unroll
    for (int z = 0; z < ZC; ++z) {
      march_pair<kShuffle, P, PL>(u, next, p, sy, sz, k, k0 + z + P <= box.hi.z);
    }
    return;
  }
  for (int kz = k0; kz < box.hi.z; ++kz) march_pair(u, next, p, sy, sz, k);
}

// The pairs start on 16-byte boundaries only when box.lo.x does: rows start
// 64-byte aligned at the first interior cell (field_layout.hpp), so with
// halo 1 box.lo.x must be odd.
template <bool kShuffle, int P, int PL, int BX, int BY, int ZC>
void launch_x2(const double* u, double* next, const FieldLayout& layout, const Box& box,
               Coefficients k) {
  const auto misaligned = [](const double* p) {
    return reinterpret_cast<std::uintptr_t>(p) % sizeof(double2) != 0;
  };
  if ((layout.first + box.lo.x) % 2 != 0 || misaligned(u) || misaligned(next)) {
    throw Error("heat update variant x2: box.lo.x " + std::to_string(box.lo.x) +
                " does not start a 16-byte aligned pair");
  }
  dim3 grid;
  if (!grid_over<2 * BX, BY, ZC>(box, grid)) return;
  x2_kernel<BX, BY, ZC, kShuffle, P, PL><<<grid, dim3(BX, BY, 1)>>>(u, next, layout, box, k);
  MPSFW_CUDA_CHECK_LAUNCH();
}

template <int BX, int BY, int ZC>
constexpr auto x2_load = launch_x2<false, 0, 1, BX, BY, ZC>;
template <int BX, int BY, int ZC>
constexpr auto x2_shfl = launch_x2<true, 0, 1, BX, BY, ZC>;
// Prefetch plane k + 4 (k + 2, k + 8) into L2, from every lane or every 8th
// (one per 128-byte line).
template <int BX, int BY, int ZC>
constexpr auto x2_shfl_l2_4 = launch_x2<true, 4, 1, BX, BY, ZC>;
template <int BX, int BY, int ZC>
constexpr auto x2_shfl_l2_2 = launch_x2<true, 2, 1, BX, BY, ZC>;
template <int BX, int BY, int ZC>
constexpr auto x2_shfl_l2_8 = launch_x2<true, 8, 1, BX, BY, ZC>;
template <int BX, int BY, int ZC>
constexpr auto x2_shfl_l2_4_line = launch_x2<true, 4, 8, BX, BY, ZC>;
template <int BX, int BY, int ZC>
constexpr auto x2_shfl_l2_3 = launch_x2<true, 3, 1, BX, BY, ZC>;
template <int BX, int BY, int ZC>
constexpr auto x2_shfl_l2_6 = launch_x2<true, 6, 1, BX, BY, ZC>;
template <int BX, int BY, int ZC>
constexpr auto x2_shfl_bulk_4 = launch_x2<true, 4, 32, BX, BY, ZC>;
template <int BX, int BY, int ZC>
constexpr auto x2_shfl_bulk_6 = launch_x2<true, 6, 32, BX, BY, ZC>;
template <int BX, int BY, int ZC>
constexpr auto x2_shfl_bulk_8 = launch_x2<true, 8, 32, BX, BY, ZC>;

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
    if (P > 0 && k0 + z + P <= box.hi.z) prefetch_l2(u + c + P * sz);
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
    MPSFW_VARIANT("x2-load", x2_load, 32, 8, 8),
    MPSFW_VARIANT("x2-shfl", x2_shfl, 32, 8, 8),
    MPSFW_VARIANT("x2-shfl", x2_shfl, 32, 16, 8),
    MPSFW_VARIANT("x2-shfl-l2+4", x2_shfl_l2_4, 32, 8, 8),
    MPSFW_VARIANT("x2-shfl-l2+4", x2_shfl_l2_4, 32, 16, 8),
    MPSFW_VARIANT("x2-shfl-l2+3", x2_shfl_l2_3, 32, 16, 8),
    MPSFW_VARIANT("x2-shfl-l2+6", x2_shfl_l2_6, 32, 16, 8),
    MPSFW_VARIANT("x2-shfl-bulk+4", x2_shfl_bulk_4, 32, 8, 8),
    MPSFW_VARIANT("x2-shfl-bulk+4", x2_shfl_bulk_4, 32, 16, 8),
    MPSFW_VARIANT("x2-shfl-bulk+4", x2_shfl_bulk_4, 32, 8, 16),
    MPSFW_VARIANT("x2-shfl-bulk+6", x2_shfl_bulk_6, 32, 16, 8),
    MPSFW_VARIANT("x2-shfl-bulk+8", x2_shfl_bulk_8, 32, 16, 8),
    MPSFW_VARIANT("x2-shfl-bulk+8", x2_shfl_bulk_8, 32, 8, 16),
    MPSFW_VARIANT("prefetch-l2+4", prefetch_l2_4, 64, 4, 16),
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
