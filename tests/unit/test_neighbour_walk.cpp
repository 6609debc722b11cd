// walk_neighbours (core/particles/neighbour_walk.hpp), the list walk of every
// pair loop: it visits exactly the list's entries, in list order, whatever
// the list's length against the loads it keeps ahead; past the list's end it
// loads only the atom itself, and never visits it.
#include <gtest/gtest.h>

#include <vector>

#include <mpsfw/core/particles/neighbour_walk.hpp>

namespace mpsfw {
namespace {

struct Walk {
  std::vector<int> visited, loaded;
};

Walk walk(const std::vector<int>& list, int self) {
  Walk w;
  walk_neighbours(
      static_cast<int>(list.size()), self, [&](int k) { return list.at(static_cast<size_t>(k)); },
      [&](int j) {
        w.loaded.push_back(j);
        return j * 10;  // a "position" that names its atom
      },
      [&](int position) { w.visited.push_back(position / 10); });
  return w;
}

TEST(NeighbourWalk, VisitsTheListInOrderAtEveryLength) {
  for (int n = 0; n <= 3 * kNeighboursAhead + 1; ++n) {
    std::vector<int> list;
    for (int k = 0; k < n; ++k) list.push_back(100 + 7 * k);
    const Walk w = walk(list, 5);
    EXPECT_EQ(w.visited, list) << "list of " << n;
    // Every entry loaded once, in order; the rest of the loads are atom 5.
    ASSERT_EQ(w.loaded.size(), list.size() + kNeighboursAhead) << "list of " << n;
    for (int k = 0; k < n; ++k)
      EXPECT_EQ(w.loaded[static_cast<size_t>(k)], list[static_cast<size_t>(k)]);
    for (size_t k = list.size(); k < w.loaded.size(); ++k) EXPECT_EQ(w.loaded[k], 5);
  }
}

TEST(NeighbourWalk, SumsAsAPlainLoopBitForBit) {
  // Terms of very different size: any reordering of the sum changes its bits.
  std::vector<int> list;
  for (int k = 0; k < 61; ++k) list.push_back((k * 37) % 61);
  const auto term = [](int j) { return 1.0 / (1.0 + j) * (j % 2 == 0 ? 1e16 : 1.0); };
  double plain = 0;
  for (int j : list) plain += term(j);
  double walked = 0;
  walk_neighbours(
      static_cast<int>(list.size()), 0, [&](int k) { return list[static_cast<size_t>(k)]; },
      [&](int j) { return term(j); }, [&](double t) { walked += t; });
  EXPECT_EQ(walked, plain);
}

}  // namespace
}  // namespace mpsfw
