// The grid loops (core/grid/grid_loops.hpp) on the host backend: a loop over
// a box visits each of its cells once, with the coordinates its index names,
// and no other cell (the interior, a face, an empty box); the reductions
// give a serial loop's sum, maximum and count, the same bits twice; a box
// beyond 32-bit numbering is walked in slabs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <mpsfw/core/grid/grid_loops.hpp>
#include <mpsfw/core/particles/host_exec.hpp>

namespace mpsfw {
namespace {

const FieldLayout kLayout({5, 4, 3}, 2);

// How often each cell of the layout was visited by a loop over `box`.
std::vector<int> visits(const Box& box) {
  std::vector<int> seen(static_cast<size_t>(kLayout.size()), 0);
  std::vector<int> wrong(1, 0);
  int* s = seen.data();
  int* w = wrong.data();
  const FieldLayout l = kLayout;
  for_each_cell(HostExec{}, kLayout, box, [=](std::int64_t c, int i, int j, int k) {
    if (c != l.index(i, j, k)) w[0] = 1;
#pragma omp atomic
    ++s[c];
  });
  EXPECT_EQ(wrong[0], 0) << "an index that is not its coordinates'";
  return seen;
}

void expect_visits_exactly(const Box& box) {
  const std::vector<int> seen = visits(box);
  long inside = 0;
  const int h = kLayout.halo;
  for (int kk = 0; kk < kLayout.n.z + 2 * h; ++kk)
    for (int jj = 0; jj < kLayout.n.y + 2 * h; ++jj)
      for (int ii = 0; ii < kLayout.n.x + 2 * h; ++ii) {
        const bool in = ii >= box.lo.x && ii < box.hi.x && jj >= box.lo.y && jj < box.hi.y &&
                        kk >= box.lo.z && kk < box.hi.z;
        const int want = in ? 1 : 0;
        inside += want;
        ASSERT_EQ(seen[static_cast<size_t>(kLayout.index(ii, jj, kk))], want)
            << "cell " << ii << " " << jj << " " << kk;
      }
  EXPECT_EQ(inside, box.cells());
}

TEST(GridLoops, EachCellOfTheBoxOnce) {
  expect_visits_exactly(kLayout.interior());
  const Box b = kLayout.interior();
  expect_visits_exactly({{b.lo.x, b.lo.y, b.lo.z}, {b.hi.x, b.hi.y, b.lo.z + 1}});  // a face
  expect_visits_exactly({{0, 0, 0}, {b.hi.x + 2, b.hi.y + 2, b.hi.z + 2}});         // with the halo
  expect_visits_exactly({{3, 3, 3}, {3, 5, 5}});                                    // empty
}

TEST(GridLoops, ReductionsAreTheSerialOnes) {
  std::vector<double> u(static_cast<size_t>(kLayout.size()), 0.0);
  const Box b = kLayout.interior();
  double sum = 0, largest = 0;
  for (int k = b.lo.z; k < b.hi.z; ++k)
    for (int j = b.lo.y; j < b.hi.y; ++j)
      for (int i = b.lo.x; i < b.hi.x; ++i) {
        const double v = std::sin(0.37 * i + 1.3 * j + 2.1 * k);
        u[static_cast<size_t>(kLayout.index(i, j, k))] = v;
        sum += v * v;
        largest = std::max(largest, std::fabs(v));
      }
  const double* p = u.data();
  const auto square = [=](std::int64_t c) { return p[c] * p[c]; };
  const double got = sum_over_cells(HostExec{}, kLayout, b, square);
  EXPECT_NEAR(got, sum, 1e-12 * sum);
  EXPECT_EQ(sum_over_cells(HostExec{}, kLayout, b, square), got);
  EXPECT_EQ(max_over_cells(HostExec{}, kLayout, b, [=](std::int64_t c) { return std::fabs(p[c]); }),
            largest);
  const auto not_finite = [=](std::int64_t c) { return !std::isfinite(p[c]); };
  EXPECT_EQ(count_over_cells(HostExec{}, kLayout, b, not_finite), 0);
  u[static_cast<size_t>(kLayout.index(3, 4, 2))] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(count_over_cells(HostExec{}, kLayout, b, not_finite), 1);
}

// A box of more cells than a loop's 32-bit numbers reach is walked in z
// slabs that cover it once, each under kMaxLoopCells; a plane that large
// alone is refused.
TEST(GridLoops, BigBoxesWalkInSlabsThatCoverThem) {
  const Box big{{0, 0, 3}, {1 << 10, 1 << 10, 3 + 4096}};  // 2^32 cells
  const int depth = slab_depth(big);
  EXPECT_EQ(depth, 2047);
  int next = big.lo.z;
  for (int z = big.lo.z; z < big.hi.z; z += depth) {
    const Box slab = z_slab(big, z, depth);
    EXPECT_EQ(slab.lo.z, next);
    EXPECT_LT(slab.cells(), kMaxLoopCells);
    EXPECT_EQ(slab.size().x, big.size().x);
    next = slab.hi.z;
  }
  EXPECT_EQ(next, big.hi.z);
  const Box small{{2, 2, 2}, {7, 6, 5}};
  EXPECT_EQ(slab_depth(small), 3);
  EXPECT_THROW(slab_depth(Box{{0, 0, 0}, {1 << 16, 1 << 15, 1}}), Error);
}

}  // namespace
}  // namespace mpsfw
