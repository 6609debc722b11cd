#pragma once
// Loops over a block's cells on any backend, the update written once as an
// MPSFW_LAMBDA, run by the same Exec primitives the particle layer runs on
// (core/particles/host_exec.hpp: OpenMP; cuda_exec.cuh: a thread a cell;
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

#include "core/base/hd.hpp"
#include "core/mesh/box.hpp"
#include "core/mesh/field_layout.hpp"

namespace mpsfw {

// The cells of a box numbered x fastest, then y, then z: number t's layout
// index and coordinates.
struct BoxCells {
  FieldLayout layout;
  Int3 lo;
  long nx = 1, nxy = 1;

  BoxCells(const FieldLayout& l, const Box& b)
      : layout(l), lo(b.lo), nx(b.size().x), nxy(static_cast<long>(b.size().x) * b.size().y) {}
  MPSFW_HD std::int64_t at(long t, int* i, int* j, int* k) const {
    const long z = t / nxy, rest = t - z * nxy, y = rest / nx;
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

template <class Exec, class F>
void for_each_cell(const Exec& exec, const FieldLayout& layout, const Box& box, const F& f) {
  if (box.empty()) return;
  const BoxCells cells(layout, box);
  exec.for_each(
      static_cast<long>(box.cells()), MPSFW_LAMBDA(long t) {
        int i, j, k;
        const std::int64_t c = cells.at(t, &i, &j, &k);
        f(c, i, j, k);
      });
}

template <class Exec, class F>
double sum_over_cells(const Exec& exec, const FieldLayout& layout, const Box& box, const F& f) {
  if (box.empty()) return 0;
  const BoxCells cells(layout, box);
  return exec.sum(
      static_cast<long>(box.cells()), MPSFW_LAMBDA(long t) { return f(cells.at(t)); });
}

template <class Exec, class F>
double max_over_cells(const Exec& exec, const FieldLayout& layout, const Box& box, const F& f) {
  if (box.empty()) return 0;
  const BoxCells cells(layout, box);
  return exec.max_of(
      static_cast<long>(box.cells()), MPSFW_LAMBDA(long t) { return f(cells.at(t)); });
}

template <class Exec, class F>
long count_over_cells(const Exec& exec, const FieldLayout& layout, const Box& box, const F& f) {
  if (box.empty()) return 0;
  const BoxCells cells(layout, box);
  return exec.count(
      static_cast<long>(box.cells()), MPSFW_LAMBDA(long t) { return f(cells.at(t)) ? 1L : 0L; });
}

}  // namespace mpsfw
