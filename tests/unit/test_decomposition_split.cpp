// Splitting n cells over p blocks: contiguous, complete, sizes within one;
// and a block split for overlapping its halo exchange (core/grid/overlap_boxes.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <mpsfw/core/grid/overlap_boxes.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw {
namespace {

TEST(SplitEvenly, CoversTheRangeContiguouslyWithSizesWithinOne) {
  for (int n = 1; n <= 40; ++n) {
    for (int p = 1; p <= n; ++p) {
      int next = 0, smallest = n, largest = 0;
      for (int c = 0; c < p; ++c) {
        const Span1D s = split_evenly(n, p, c);
        EXPECT_EQ(s.offset, next) << "n=" << n << " p=" << p << " c=" << c;
        next = s.offset + s.count;
        smallest = std::min(smallest, s.count);
        largest = std::max(largest, s.count);
      }
      EXPECT_EQ(next, n) << "n=" << n << " p=" << p;
      EXPECT_LE(largest - smallest, 1) << "n=" << n << " p=" << p;
      EXPECT_GE(smallest, 1);
    }
  }
}

TEST(SplitEvenly, RemainderGoesToTheFirstBlocks) {
  EXPECT_EQ(split_evenly(10, 3, 0).count, 4);
  EXPECT_EQ(split_evenly(10, 3, 1).count, 3);
  EXPECT_EQ(split_evenly(10, 3, 2).offset, 7);
}

// Inner box and shell slabs together cover every interior cell exactly once,
// whichever faces exchange halos, for halos 1 to 3 cells wide and stencils
// reaching 1 cell up to the halo's width; the inner box keeps the reach off
// every exchanged face.
TEST(ShellBoxes, InnerPlusShellCoverTheInteriorOnce) {
  for (int h = 1; h <= 3; ++h) {
    for (int reach = 1; reach <= h; ++reach) {
      for (FaceMask mask = 0; mask <= kAllFaces; ++mask) {
        for (Int3 n : {Int3{1, 1, 1}, Int3{2, 5, 3}, Int3{3, 3, 3}, Int3{7, 4, 9}, Int3{1, 8, 8}}) {
          const FieldLayout layout(n, h);
          const std::string what = "halo " + std::to_string(h) + " reach " + std::to_string(reach) +
                                   " mask " + std::to_string(mask) + " block " +
                                   std::to_string(n.x) + "x" + std::to_string(n.y) + "x" +
                                   std::to_string(n.z);
          const Box in = inner_box(layout, mask, reach);
          for (int d = 0; d < 3 && !in.empty(); ++d) {
            if (mask & (1u << (2 * d))) {
              EXPECT_GE(in.lo[d], h + reach) << what;
            }
            if (mask & (1u << (2 * d + 1))) {
              EXPECT_LE(in.hi[d], n[d] + h - reach) << what;
            }
          }
          std::vector<int> hits(static_cast<size_t>(layout.size()), 0);
          long marked = 0;
          auto mark = [&](const Box& b) {
            for (int k = b.lo.z; k < b.hi.z; ++k)
              for (int j = b.lo.y; j < b.hi.y; ++j)
                for (int i = b.lo.x; i < b.hi.x; ++i) {
                  ASSERT_TRUE(i >= 0 && i < n.x + 2 * h && j >= 0 && j < n.y + 2 * h && k >= 0 &&
                              k < n.z + 2 * h)
                      << what << " cell " << i << "," << j << "," << k << " off the block";
                  ++hits[static_cast<size_t>(layout.index(i, j, k))];
                  ++marked;
                }
          };
          if (!in.empty()) mark(in);
          const ShellBoxes shell = shell_boxes(layout, mask, reach);
          for (int b = 0; b < shell.count; ++b) mark(shell.box[b]);
          EXPECT_EQ(marked, n.product()) << what;
          for (int k = 0; k < n.z + 2 * h; ++k)
            for (int j = 0; j < n.y + 2 * h; ++j)
              for (int i = 0; i < n.x + 2 * h; ++i) {
                const bool interior =
                    i >= h && i < n.x + h && j >= h && j < n.y + h && k >= h && k < n.z + h;
                EXPECT_EQ(hits[static_cast<size_t>(layout.index(i, j, k))], interior ? 1 : 0)
                    << what << " cell " << i << "," << j << "," << k;
              }
        }
      }
    }
  }
}

// A flat axis (a 2D grid's z: one cell, no halo) is never cut: the inner box
// and the shell cover the plane's interior once, at k = 0.
TEST(ShellBoxes, AFlatAxisKeepsItsOneCell) {
  for (int h = 1; h <= 2; ++h) {
    const FieldLayout layout({6, 5, 1}, h, {0, 0, 1});
    const FaceMask xy = 0x0f;  // x and y faces exchanged
    const Box in = inner_box(layout, xy);
    EXPECT_TRUE(in.lo == (Int3{2 * h, 2 * h, 0}) && in.hi == (Int3{6, 5, 1})) << "halo " << h;
    std::vector<int> hits(static_cast<size_t>(layout.size()), 0);
    const auto mark = [&](const Box& b) {
      for (int k = b.lo.z; k < b.hi.z; ++k)
        for (int j = b.lo.y; j < b.hi.y; ++j)
          for (int i = b.lo.x; i < b.hi.x; ++i) ++hits[static_cast<size_t>(layout.index(i, j, k))];
    };
    mark(in);
    const ShellBoxes shell = shell_boxes(layout, xy);
    for (int b = 0; b < shell.count; ++b) mark(shell.box[b]);
    const Box all = layout.interior();
    for (int j = 0; j < 5 + 2 * h; ++j)
      for (int i = 0; i < 6 + 2 * h; ++i) {
        const bool interior = i >= all.lo.x && i < all.hi.x && j >= all.lo.y && j < all.hi.y;
        EXPECT_EQ(hits[static_cast<size_t>(layout.index(i, j, 0))], interior ? 1 : 0)
            << "halo " << h << " cell " << i << "," << j;
      }
  }
}

// Without a reach, the stencil reaches as far as the halo is wide.
TEST(ShellBoxes, ReachDefaultsToTheHaloWidth) {
  for (int h = 1; h <= 3; ++h) {
    const FieldLayout layout({7, 4, 9}, h);
    for (FaceMask mask : {kAllFaces, 0x15u, 0x0cu}) {
      const Box a = inner_box(layout, mask), b = inner_box(layout, mask, h);
      EXPECT_TRUE(a.lo == b.lo && a.hi == b.hi) << "halo " << h << " mask " << mask;
      const ShellBoxes s = shell_boxes(layout, mask), t = shell_boxes(layout, mask, h);
      ASSERT_EQ(s.count, t.count);
      for (int i = 0; i < s.count; ++i) {
        EXPECT_TRUE(s.box[i].lo == t.box[i].lo && s.box[i].hi == t.box[i].hi);
      }
    }
  }
}

// A one-cell halo: the boxes heat updates, slab by slab and in this order
// (its last slab carries the pushes), written out.
TEST(ShellBoxes, OneCellHaloGivesTheSlabsHeatUpdates) {
  const FieldLayout layout({7, 4, 9});
  const auto expect_boxes = [](const ShellBoxes& s, const std::vector<Box>& want) {
    ASSERT_EQ(s.count, static_cast<int>(want.size()));
    for (int b = 0; b < s.count; ++b) {
      EXPECT_TRUE(s.box[b].lo == want[static_cast<size_t>(b)].lo &&
                  s.box[b].hi == want[static_cast<size_t>(b)].hi)
          << "slab " << b;
    }
  };
  const Box all = inner_box(layout);
  EXPECT_TRUE(all.lo == (Int3{2, 2, 2}) && all.hi == (Int3{7, 4, 9}));
  expect_boxes(shell_boxes(layout), {{{1, 1, 1}, {2, 5, 10}},
                                     {{7, 1, 1}, {8, 5, 10}},
                                     {{2, 1, 1}, {7, 2, 10}},
                                     {{2, 4, 1}, {7, 5, 10}},
                                     {{2, 2, 1}, {7, 4, 2}},
                                     {{2, 2, 9}, {7, 4, 10}}});
  const FaceMask low_faces = 0x15;
  const Box low = inner_box(layout, low_faces);
  EXPECT_TRUE(low.lo == (Int3{2, 2, 2}) && low.hi == (Int3{8, 5, 10}));
  expect_boxes(shell_boxes(layout, low_faces),
               {{{1, 1, 1}, {2, 5, 10}}, {{2, 1, 1}, {8, 2, 10}}, {{2, 2, 1}, {8, 5, 2}}});
  const Box none = inner_box(layout, 0);
  EXPECT_TRUE(none.lo == (Int3{1, 1, 1}) && none.hi == (Int3{8, 5, 10}));
  EXPECT_EQ(shell_boxes(layout, 0).count, 0);
}

}  // namespace
}  // namespace mpsfw
