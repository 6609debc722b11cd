// PhaseTimers::reduce when ranks timed different phases: a rank whose halos
// all go device to device never times the MPI phases its neighbour on another
// GPU does, and the report's reduction must still line the phases up.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include <mpsfw/core/device/timers.hpp>

namespace mpsfw {
namespace {

TEST(PhaseTimers, RanksWithDifferentPhasesReduceByName) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  PhaseTimers t;
  t.add("update", 1.0 + rank);
  // Odd ranks time an extra phase, and in another order than rank 0 would.
  if (rank % 2 == 1) t.add("halo wait", 2.0);
  t.add("halo sync", 0.5);
  const std::vector<PhaseStats> all = t.reduce(MPI_COMM_WORLD);
  const bool any_odd = ranks > 1;
  ASSERT_EQ(all.size(), any_odd ? 3u : 2u);
  // Rank 0's order first, then the phases only later ranks timed.
  EXPECT_EQ(all[0].name, "update");
  EXPECT_EQ(all[1].name, "halo sync");
  EXPECT_DOUBLE_EQ(all[0].min, 1.0);
  EXPECT_DOUBLE_EQ(all[0].max, ranks);
  EXPECT_DOUBLE_EQ(all[0].avg, (ranks + 1) / 2.0);
  EXPECT_DOUBLE_EQ(all[1].avg, 0.5);
  if (any_odd) {
    const int odd = ranks / 2;
    EXPECT_EQ(all[2].name, "halo wait");
    EXPECT_DOUBLE_EQ(all[2].min, 0.0);  // the even ranks never timed it
    EXPECT_DOUBLE_EQ(all[2].max, 2.0);
    EXPECT_DOUBLE_EQ(all[2].avg, 2.0 * odd / ranks);
  }
}

}  // namespace
}  // namespace mpsfw
