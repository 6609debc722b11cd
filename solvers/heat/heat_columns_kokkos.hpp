#pragma once
// The heat update of a box as columns, for Kokkos kernels on a GPU space
// (heat_kernels_kokkos.cpp; bench/heat_kokkos_variants times other depths):
// work item t is column (i, j) of z chunk t / (nx ny), x fastest so that a
// warp's loads coalesce, marched Depth cells up z with the z neighbours
// passed on in registers, a whole chunk unrolled so that its loads are in
// flight together (the native kernel's march, heat_update.cuh). Work items
// are 32-bit and split by unsigned 32-bit division: 64-bit division made the
// prologue before a thread's first load slower (docs/performance.md).
// Physics: heat_physics.hpp.
#include <Kokkos_Core.hpp>
#include <climits>
#include <cstdint>
#include <string>

#include "heat_physics.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw::heat {

// Updates cell c from registers (below, center) and memory, then moves the
// window one cell up in z. With Prefetch > 0 and `prefetch` (that cell is in
// the field) on a CUDA GPU, the cell Prefetch planes up starts towards L2
// first (the native kernel's prefetch; nothing elsewhere).
template <int Prefetch>
KOKKOS_INLINE_FUNCTION void march_one(const double* KOKKOS_RESTRICT u, double* KOKKOS_RESTRICT next,
                                      std::int64_t& c, std::int64_t sy, std::int64_t sz,
                                      double& below, double& center, Coefficients k,
                                      bool prefetch) {
#ifdef __CUDA_ARCH__
  if (Prefetch > 0 && prefetch)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(u + c + Prefetch * sz));
#else
  (void)prefetch;
#endif
  const double above = u[c + sz];
  next[c] = updated_value(center, u[c - 1], u[c + 1], u[c - sy], u[c + sy], below, above, k);
  below = center;
  center = above;
  c += sz;
}

template <int Depth, int Prefetch = 0>
struct ColumnMarch {
  FieldLayout layout;
  std::int64_t sy = 0, sz = 0;  // the layout's strides, computed once on the host
  Int3 lo, hi;
  unsigned nx = 0, ny = 0;
  int columns_ = 0;
  Coefficients k;

  // Throws Error when the box has more columns than a 32-bit work index
  // reaches (2^31 - 1 columns of Depth cells: far more than a GPU holds).
  ColumnMarch(const FieldLayout& l, const Box& box, Coefficients coefficients)
      : layout(l), sy(l.stride_y()), sz(l.stride_z()), k(coefficients) {
    if (box.empty()) return;
    lo = box.lo;
    hi = box.hi;
    const Int3 size = box.size();
    const std::int64_t columns = std::int64_t{size.x} * size.y * ((size.z + Depth - 1) / Depth);
    if (columns > INT_MAX) {
      throw Error("heat (Kokkos): a box of " + std::to_string(size.x) + "x" +
                  std::to_string(size.y) + "x" + std::to_string(size.z) + " cells has " +
                  std::to_string(columns) + " columns, more than one launch indexes");
    }
    nx = static_cast<unsigned>(size.x);
    ny = static_cast<unsigned>(size.y);
    columns_ = static_cast<int>(columns);
  }

  int columns() const { return columns_; }

  // Column t's first cell into c; returns its cells (Depth, fewer in the
  // box's last chunk). For other passes over the same columns (the
  // diagnostics' reductions).
  KOKKOS_INLINE_FUNCTION int start(int t, std::int64_t& c) const {
    int i = 0, j = 0, k0 = 0;
    locate(t, i, j, k0);
    c = layout.index(i, j, k0);
    return k0 + Depth <= hi.z ? Depth : hi.z - k0;
  }

  // Column t's cell (i, j, k0): its lowest.
  KOKKOS_INLINE_FUNCTION void locate(int t, int& i, int& j, int& k0) const {
    const unsigned ut = static_cast<unsigned>(t), rest = ut / nx, chunk = rest / ny;
    i = lo.x + static_cast<int>(ut - rest * nx);
    j = lo.y + static_cast<int>(rest - chunk * ny);
    k0 = lo.z + static_cast<int>(chunk) * Depth;
  }

  KOKKOS_INLINE_FUNCTION void column(const double* u, double* next, int t) const {
    // Restrict-qualified locals: the compiler then reads u through the
    // read-only path (restrict only on parameters, march_one's or this
    // function's, did not). The strides come from the host: computing the z
    // stride here took more registers and lost the gain (docs/performance.md).
    const double* KOKKOS_RESTRICT in = u;
    double* KOKKOS_RESTRICT out = next;
    int i = 0, j = 0, k0 = 0;
    locate(t, i, j, k0);
    std::int64_t c = layout.index(i, j, k0);
    double below = in[c - sz], center = in[c];
    if (k0 + Depth <= hi.z) {
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int z = 0; z < Depth; ++z)
        march_one<Prefetch>(in, out, c, sy, sz, below, center, k, k0 + z + Prefetch <= hi.z);
      return;
    }
    for (int kz = k0; kz < hi.z; ++kz)
      march_one<Prefetch>(in, out, c, sy, sz, below, center, k, kz + Prefetch <= hi.z);
  }
};

}  // namespace mpsfw::heat
