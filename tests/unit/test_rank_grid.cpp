// Choosing the rank grid: hints are kept, the free dimensions give the block
// the smallest halo (faces across x weighted for fields), and grids that
// cannot work are refused with a message naming the problem.
#include <gtest/gtest.h>

#include <string>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw {
namespace {

std::string text(Int3 g) {
  return std::to_string(g.x) + "x" + std::to_string(g.y) + "x" + std::to_string(g.z);
}

std::string refusal(int ranks, Int3 hint, Int3 cells) {
  try {
    choose_rank_grid(ranks, hint, cells, kStridedFaceCost);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

// Halo cells of one block, written out independently of the implementation.
double halo_cells(Int3 g, Int3 cells, double x_weight) {
  const double bx = (cells.x + g.x - 1) / g.x, by = (cells.y + g.y - 1) / g.y,
               bz = (cells.z + g.z - 1) / g.z;
  return (g.x > 1 ? 2 * x_weight * by * bz : 0) + (g.y > 1 ? 2 * bx * bz : 0) +
         (g.z > 1 ? 2 * bx * by : 0);
}

TEST(RankGrid, FieldsOnACubeAreNotCutAcrossX) {
  const Int3 cube{256, 256, 256};
  EXPECT_EQ(text(choose_rank_grid(1, {0, 0, 0}, cube, kStridedFaceCost)), "1x1x1");
  EXPECT_EQ(text(choose_rank_grid(2, {0, 0, 0}, cube, kStridedFaceCost)), "1x1x2");
  EXPECT_EQ(text(choose_rank_grid(8, {0, 0, 0}, cube, kStridedFaceCost)), "1x2x4");
  EXPECT_EQ(text(choose_rank_grid(16, {0, 0, 0}, cube, kStridedFaceCost)), "1x4x4");
}

TEST(RankGrid, TheXWeightDecidesWhenXIsLong) {
  const Int3 long_x{512, 64, 64};
  EXPECT_EQ(text(choose_rank_grid(8, {0, 0, 0}, long_x, 1.0)), "8x1x1");
  EXPECT_EQ(text(choose_rank_grid(8, {0, 0, 0}, long_x, kStridedFaceCost)), "4x1x2");
}

TEST(RankGrid, HintsAreKeptAndTheRestChosen) {
  const Int3 cube{256, 256, 256};
  EXPECT_EQ(text(choose_rank_grid(8, {2, 0, 0}, cube, kStridedFaceCost)), "2x1x4");
  EXPECT_EQ(text(choose_rank_grid(8, {0, 0, 1}, cube, kStridedFaceCost)), "1x8x1");
  EXPECT_EQ(text(choose_rank_grid(8, {4, 2, 1}, cube, kStridedFaceCost)), "4x2x1");
}

TEST(RankGrid, XIsCutWhenNothingElseFits) {
  EXPECT_EQ(text(choose_rank_grid(4, {0, 0, 0}, {64, 1, 1}, kStridedFaceCost)), "4x1x1");
  EXPECT_EQ(text(choose_rank_grid(4, {0, 0, 0}, {64, 1, 3}, kStridedFaceCost)), "4x1x1");
}

TEST(RankGrid, NoOtherGridHasASmallerHalo) {
  for (double w : {1.0, kStridedFaceCost}) {
    for (Int3 cells : {Int3{256, 256, 256}, Int3{512, 64, 32}, Int3{30, 200, 7}, Int3{9, 9, 90}}) {
      for (int ranks = 1; ranks <= 64; ++ranks) {
        const Int3 g = choose_rank_grid(ranks, {0, 0, 0}, cells, w);
        ASSERT_EQ(g.product(), ranks);
        EXPECT_TRUE(g.x <= cells.x && g.y <= cells.y && g.z <= cells.z) << text(g);
        for (int px = 1; px <= ranks; ++px)
          for (int py = 1; px * py <= ranks; ++py) {
            if (ranks % (px * py) != 0) continue;
            const Int3 other{px, py, ranks / (px * py)};
            if (other.x > cells.x || other.y > cells.y || other.z > cells.z) continue;
            EXPECT_LE(halo_cells(g, cells, w), halo_cells(other, cells, w))
                << ranks << " ranks on " << text(cells) << ": chose " << text(g) << " over "
                << text(other);
          }
      }
    }
  }
}

TEST(RankGrid, ImpossibleGridsAreRefusedWithTheReason) {
  EXPECT_EQ(refusal(2, {1, 1, 1}, {8, 8, 8}),
            "rank grid 1x1x1 has 1 blocks but the job has 2 ranks");
  EXPECT_EQ(refusal(2, {3, 0, 0}, {8, 8, 8}),
            "rank grid 3x0x0 (0 = free) cannot be completed for 2 ranks");
  EXPECT_EQ(refusal(2, {2, 0, 0}, {1, 8, 8}),
            "rank grid 2x0x0 puts more ranks than cells (1) along dimension x; use fewer ranks "
            "or another rank grid");
  EXPECT_EQ(refusal(2, {0, 0, 0}, {1, 1, 1}),
            "no rank grid 0x0x0 (0 = free) for 2 ranks fits 1x1x1 cells with at least one cell "
            "per rank along each dimension; use fewer ranks");
  EXPECT_EQ(refusal(2, {0, -1, 0}, {8, 8, 8}), "rank grid 0x-1x0 has a negative entry");
}

}  // namespace
}  // namespace mpsfw
