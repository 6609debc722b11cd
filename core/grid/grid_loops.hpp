#pragma once
// Loops over a block's cells on any backend, the update written once as an
// MPSFW_LAMBDA, run by the same Exec primitives the particle layer runs on
// (core/particles/host_exec.hpp: OpenMP over rows; cuda_exec.cuh: a thread a cell;
// kokkos_exec.hpp: Kokkos), as amrex::ParallelFor and Parthenon's par_for:
//   for_each_cell(exec, layout, box, MPSFW_LAMBDA(std::int64_t c, int i, int j, int k) {...})
// calls f for every cell (i, j, k) of `box` (layout indices: the interior is
// layout.interior(), any other box — a shell, a face — works alike), c the
// cell's index in a field of `layout`. Reductions over a box:
//   sum_over_cells(exec, layout, box, f)    the sum of double f(c), in an
//                                           order fixed by the box and the
//                                           backend (the same bits run after run)
//   max_over_cells(exec, layout, box, f)    the largest f(c) >= 0 (0 for none)
//   count_over_cells(exec, layout, box, f)  how many cells f(c) is true for
//                                           (e.g. !std::isfinite: a guard)
// Nothing waits for a for_each_cell on a GPU; the reductions return their
// result.
#include <cstdint>
#include <string>
#include <type_traits>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/hd.hpp>
#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw {

// The cells of a box numbered x fastest, then y, then z: number t's layout
// index and coordinates. Numbers are 32-bit (a GPU divides those several times
// faster than 64-bit ones): the loops below walk a box in slabs of fewer than
// kMaxLoopCells cells.
constexpr long kMaxLoopCells = 1L << 31;

struct BoxCells {
  FieldLayout layout;
  Int3 lo;
  unsigned nx = 1, nxy = 1;

  BoxCells(const FieldLayout& l, const Box& b)
      : layout(l),
        lo(b.lo),
        nx(static_cast<unsigned>(b.size().x)),
        nxy(static_cast<unsigned>(b.size().x) * static_cast<unsigned>(b.size().y)) {}
  MPSFW_HD std::int64_t at(long t, int* i, int* j, int* k) const {
    const unsigned n = static_cast<unsigned>(t);
    const unsigned z = n / nxy, rest = n - z * nxy, y = rest / nx;
    *i = lo.x + static_cast<int>(rest - y * nx);
    *j = lo.y + static_cast<int>(y);
    *k = lo.z + static_cast<int>(z);
    return layout.index(*i, *j, *k);
  }
  MPSFW_HD std::int64_t at(long t) const {
    int i, j, k;
    return at(t, &i, &j, &k);
  }
};

// How many z planes of `box` a slab holds: every slab under kMaxLoopCells
// cells (one slab for any box of fewer). The loops below walk the slabs in a
// plain loop: an extended lambda may not be defined inside another lambda.
inline int slab_depth(const Box& box) {
  const long plane = static_cast<long>(box.size().x) * box.size().y;
  if (plane >= kMaxLoopCells) {
    throw Error("a grid loop over a box of " + std::to_string(plane) +
                " cells a plane: a plane may hold fewer than 2^31");
  }
  const long depth = (kMaxLoopCells - 1) / plane;
  return depth < box.size().z ? static_cast<int>(depth) : box.size().z;
}
// The slab of `box` from plane z, `depth` planes deep (fewer at the end).
inline Box z_slab(const Box& box, int z, int depth) {
  Box slab = box;
  slab.lo.z = z;
  slab.hi.z = box.hi.z - z > depth ? z + depth : box.hi.z;
  return slab;
}

class HostExec;  // core/particles/host_exec.hpp

template <class Exec, class F>
void for_each_cell(const Exec& exec, const FieldLayout& layout, const Box& box, const F& f) {
  if (box.empty()) return;
  if constexpr (std::is_same_v<Exec, HostExec>) {  // a loop nest, rows in parallel
    exec.for_each_row(box, [&](int j, int k) {
      const std::int64_t row = layout.index(0, j, k);
      for (int i = box.lo.x; i < box.hi.x; ++i) f(row + i, i, j, k);
    });
    return;
  }
  const int depth = slab_depth(box);
  for (int z = box.lo.z; z < box.hi.z; z += depth) {
    const Box slab = z_slab(box, z, depth);
    const BoxCells cells(layout, slab);
    exec.for_each(
        static_cast<long>(slab.cells()), MPSFW_LAMBDA(long t) {
          int i, j, k;
          const std::int64_t c = cells.at(t, &i, &j, &k);
          f(c, i, j, k);
        });
  }
}

template <class Exec, class F>
double sum_over_cells(const Exec& exec, const FieldLayout& layout, const Box& box, const F& f) {
  if (box.empty()) return 0;
  const int depth = slab_depth(box);
  double sum = 0;
  for (int z = box.lo.z; z < box.hi.z; z += depth) {
    const Box slab = z_slab(box, z, depth);
    const BoxCells cells(layout, slab);
    sum += exec.sum(
        static_cast<long>(slab.cells()), MPSFW_LAMBDA(long t) { return f(cells.at(t)); });
  }
  return sum;
}

template <class Exec, class F>
double max_over_cells(const Exec& exec, const FieldLayout& layout, const Box& box, const F& f) {
  if (box.empty()) return 0;
  const int depth = slab_depth(box);
  double largest = 0;
  for (int z = box.lo.z; z < box.hi.z; z += depth) {
    const Box slab = z_slab(box, z, depth);
    const BoxCells cells(layout, slab);
    const double m = exec.max_of(
        static_cast<long>(slab.cells()), MPSFW_LAMBDA(long t) { return f(cells.at(t)); });
    largest = m > largest ? m : largest;
  }
  return largest;
}

template <class Exec, class F>
long count_over_cells(const Exec& exec, const FieldLayout& layout, const Box& box, const F& f) {
  if (box.empty()) return 0;
  const int depth = slab_depth(box);
  long count = 0;
  for (int z = box.lo.z; z < box.hi.z; z += depth) {
    const Box slab = z_slab(box, z, depth);
    const BoxCells cells(layout, slab);
    count += exec.count(
        static_cast<long>(slab.cells()), MPSFW_LAMBDA(long t) { return f(cells.at(t)) ? 1L : 0L; });
  }
  return count;
}

}  // namespace mpsfw
