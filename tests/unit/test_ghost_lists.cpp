// The 26 ghost lists (core/particles/ghost_lists.hpp): every neighbour of the
// 3x3x3 block has one list, its opposite points back, and a particle is in a
// neighbour's list exactly when that neighbour needs it: some point of the
// neighbour's subdomain lies within the ghost width of the particle (tested on
// random particles against the distance to the neighbour's box, not the bands).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <set>

#include <mpsfw/core/particles/ghost_lists.hpp>

namespace mpsfw {
namespace {

TEST(MdGhostLists, EveryNeighbourHasOneListAndItsOppositePointsBack) {
  std::set<int> offsets;
  for (int list = 0; list < kNeighbours; ++list) {
    const int s[3] = {neighbour_step(list, 0), neighbour_step(list, 1), neighbour_step(list, 2)};
    for (int d = 0; d < 3; ++d) ASSERT_TRUE(s[d] >= -1 && s[d] <= 1);
    ASSERT_FALSE(s[0] == 0 && s[1] == 0 && s[2] == 0) << "list " << list << " is the rank itself";
    EXPECT_EQ(neighbour_index({s[0], s[1], s[2]}), list);
    offsets.insert(9 * s[0] + 3 * s[1] + s[2]);
    const int back = opposite_neighbour(list);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(neighbour_step(back, d), -s[d]) << "list " << list;
  }
  EXPECT_EQ(offsets.size(), 26u);
}

// A subdomain [0, w)^3 with ghost width g: the bands as ParticleExchange sets them.
GhostBands bands_of(const double w[3], double g) {
  GhostBands b{};
  for (int d = 0; d < 3; ++d) {
    b.low[d] = g;
    b.high[d] = w[d] - g;
  }
  return b;
}

TEST(GhostLists, AnInteriorParticleIsInNoListAndACornerParticleInSeven) {
  const double w[3] = {10, 10, 10};
  const GhostBands b = bands_of(w, 2.5);
  EXPECT_EQ(ghost_list_mask(5, 5, 5, b), 0u);
  EXPECT_EQ(ghost_list_mask(1, 5, 5, b), std::uint32_t{1} << neighbour_index({-1, 0, 0}));
  // On the band's edge: the low band is x < low, the high one x >= high.
  EXPECT_EQ(ghost_list_mask(2.5, 5, 5, b), 0u);
  EXPECT_EQ(ghost_list_mask(7.5, 5, 5, b), std::uint32_t{1} << neighbour_index({1, 0, 0}));
  const std::uint32_t edge = ghost_list_mask(1, 9, 5, b);
  EXPECT_EQ(edge, (std::uint32_t{1} << neighbour_index({-1, 0, 0})) |
                      (std::uint32_t{1} << neighbour_index({0, 1, 0})) |
                      (std::uint32_t{1} << neighbour_index({-1, 1, 0})));
  EXPECT_EQ(__builtin_popcount(ghost_list_mask(1, 9, 9.5, b)), 7);
}

// Whether some point of the neighbour at offset s (its subdomain the box
// [s w, (s + 1) w)) lies within distance g of x: the distance from x to that
// box, without the bands.
bool neighbour_needs(const double x[3], const int s[3], const double w[3], double g) {
  double d2 = 0;
  for (int d = 0; d < 3; ++d) {
    const double lo = s[d] * w[d], hi = (s[d] + 1) * w[d];
    const double gap = x[d] < lo ? lo - x[d] : x[d] >= hi ? x[d] - hi : 0.0;
    d2 += gap * gap;
  }
  return std::sqrt(d2) < g;
}

TEST(GhostLists, AParticleIsSentToEveryNeighbourThatNeedsIt) {
  std::mt19937_64 random(7);
  for (const double width : {10.0, 4.0}) {  // 4: narrower than two ghost widths
    const double w[3] = {width, width * 1.5, width}, g = 2.5;
    const GhostBands b = bands_of(w, g);
    std::uniform_real_distribution<double> along[3] = {
        std::uniform_real_distribution<double>(0, w[0]),
        std::uniform_real_distribution<double>(0, w[1]),
        std::uniform_real_distribution<double>(0, w[2])};
    for (int trial = 0; trial < 4000; ++trial) {
      const double x[3] = {along[0](random), along[1](random), along[2](random)};
      const std::uint32_t mask = ghost_list_mask(x[0], x[1], x[2], b);
      for (int list = 0; list < kNeighbours; ++list) {
        const int s[3] = {neighbour_step(list, 0), neighbour_step(list, 1),
                          neighbour_step(list, 2)};
        const bool sent = (mask >> list & 1u) != 0;
        // Needed by the neighbour: sent (no ghost missing).
        if (neighbour_needs(x, s, w, g)) {
          ASSERT_TRUE(sent) << "particle (" << x[0] << ", " << x[1] << ", " << x[2]
                            << ") not sent to list " << list;
        }
        // Sent: within g of the neighbour along every axis it lies across.
        if (sent) {
          for (int d = 0; d < 3; ++d) {
            const double gap = s[d] < 0 ? x[d] : s[d] > 0 ? w[d] - x[d] : 0.0;
            ASSERT_LT(gap, g + 1e-12) << "list " << list << ", dimension " << d;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace mpsfw
