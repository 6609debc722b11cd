// Splitting n cells over p blocks: contiguous, complete, sizes within one.
#include <gtest/gtest.h>

#include "core/mesh/decomposition.hpp"
#include "core/mesh/field_layout.hpp"

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
// whichever faces exchange halos; the inner box never touches an exchanged face.
TEST(ShellBoxes, InnerPlusShellCoverTheInteriorOnce) {
  for (FaceMask mask : {kAllFaces, 0u, 0x01u, 0x02u, 0x0cu, 0x30u, 0x15u, 0x2au}) {
    for (Int3 n : {Int3{1, 1, 1}, Int3{2, 5, 3}, Int3{3, 3, 3}, Int3{7, 4, 9}, Int3{1, 8, 8}}) {
      const FieldLayout layout(n);
      const Box in = inner_box(layout, mask);
      for (int d = 0; d < 3 && !in.empty(); ++d) {
        if (mask & (1u << (2 * d))) {
          EXPECT_GE(in.lo[d], 2);
        }
        if (mask & (1u << (2 * d + 1))) {
          EXPECT_LE(in.hi[d], n[d]);
        }
      }
      std::vector<int> hits(static_cast<size_t>(layout.size()), 0);
      auto mark = [&](const Box& b) {
        for (int k = b.lo.z; k < b.hi.z; ++k)
          for (int j = b.lo.y; j < b.hi.y; ++j)
            for (int i = b.lo.x; i < b.hi.x; ++i)
              ++hits[static_cast<size_t>(layout.index(i, j, k))];
      };
      if (!in.empty()) mark(in);
      const ShellBoxes shell = shell_boxes(layout, mask);
      for (int b = 0; b < shell.count; ++b) mark(shell.box[b]);
      for (int k = 0; k < n.z + 2; ++k)
        for (int j = 0; j < n.y + 2; ++j)
          for (int i = 0; i < n.x + 2; ++i) {
            const bool interior = i >= 1 && i <= n.x && j >= 1 && j <= n.y && k >= 1 && k <= n.z;
            EXPECT_EQ(hits[static_cast<size_t>(layout.index(i, j, k))], interior ? 1 : 0)
                << "mask " << mask << " block " << n.x << "x" << n.y << "x" << n.z << " cell " << i
                << "," << j << "," << k;
          }
    }
  }
}

}  // namespace
}  // namespace mpsfw
