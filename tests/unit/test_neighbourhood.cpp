// One name for a neighbour (core/mesh/neighbourhood.hpp): its offset and its
// number 0..25, the faces among them, opposites.
#include <gtest/gtest.h>

#include <set>

#include <mpsfw/core/mesh/neighbourhood.hpp>

namespace mpsfw {
namespace {

TEST(Neighbourhood, EveryOffsetHasOneNumberAndBack) {
  std::set<int> seen;
  for (int x = -1; x <= 1; ++x) {
    for (int y = -1; y <= 1; ++y) {
      for (int z = -1; z <= 1; ++z) {
        if (x == 0 && y == 0 && z == 0) continue;
        const int n = neighbour_index({x, y, z});
        ASSERT_GE(n, 0);
        ASSERT_LT(n, kNeighbours);
        EXPECT_TRUE(neighbour_offset(n) == (Int3{x, y, z})) << n;
        seen.insert(n);
      }
    }
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kNeighbours));
}

TEST(Neighbourhood, TheOppositeIsTheNegatedOffset) {
  for (int n = 0; n < kNeighbours; ++n) {
    EXPECT_EQ(opposite_neighbour(n), neighbour_index(opposite(neighbour_offset(n)))) << n;
  }
}

TEST(Neighbourhood, FacesAreTheNeighboursWithOneNonzeroComponent) {
  const Int3 expected[kFaces] = {{-1, 0, 0}, {1, 0, 0},  {0, -1, 0},
                                 {0, 1, 0},  {0, 0, -1}, {0, 0, 1}};
  for (int f = 0; f < kFaces; ++f) {
    EXPECT_TRUE(face_offset(f) == expected[f]) << f;
    EXPECT_EQ(face_neighbour(opposite_face(f)), opposite_neighbour(face_neighbour(f))) << f;
  }
  const auto faces = neighbour_offsets(false);
  ASSERT_EQ(faces.size(), static_cast<size_t>(kFaces));
  for (const Int3& o : faces) EXPECT_EQ((o.x != 0) + (o.y != 0) + (o.z != 0), 1);
  EXPECT_EQ(neighbour_offsets(true).size(), static_cast<size_t>(kNeighbours));
}

}  // namespace
}  // namespace mpsfw
