// Results must not depend on the number of ranks: the field after N-rank runs
// equals the 1-rank run bit for bit, for uneven splits, explicit rank grids and
// both boundary kinds. Rank 0 computes the 1-rank reference on MPI_COMM_SELF.
#include <gtest/gtest.h>

#include <cstring>

#include "support/heat_runs.hpp"

namespace mpsfw {
namespace {

using testing_support::heat_config;
using testing_support::run_and_gather;
using testing_support::world_rank;

struct Case {
  const char* name;
  std::vector<std::string> overrides;
};

void expect_same_bits_as_one_rank(const Case& c) {
  const heat::HeatConfig config = heat_config(c.overrides);
  const std::vector<double> many = run_and_gather(config, MPI_COMM_WORLD, Backend::Auto);
  if (world_rank() != 0) return;
  heat::HeatConfig single = config;
  single.rank_grid_hint = {0, 0, 0};
  const std::vector<double> one = run_and_gather(single, MPI_COMM_SELF, Backend::Auto);
  ASSERT_EQ(many.size(), one.size()) << c.name;
  size_t first_diff = many.size();
  for (size_t i = 0; i < many.size() && first_diff == many.size(); ++i) {
    if (std::memcmp(&many[i], &one[i], sizeof(double)) != 0) first_diff = i;
  }
  EXPECT_EQ(first_diff, many.size()) << c.name << ": first differing cell " << first_diff << ": "
                                     << (first_diff < many.size() ? many[first_diff] : 0) << " vs "
                                     << (first_diff < one.size() ? one[first_diff] : 0);
  // Not a trivial field: the run changed something.
  double norm = 0;
  for (double v : one) norm += v * v;
  EXPECT_GT(norm, 0.0) << c.name;
}

TEST(HeatRanks, DirichletSineUnevenSplit) {
  expect_same_bits_as_one_rank(
      {"dirichlet sine 13x11x9", {"heat.nx=13", "heat.ny=11", "heat.nz=9", "run.steps=25"}});
}

TEST(HeatRanks, PeriodicGaussianUnevenSplit) {
  expect_same_bits_as_one_rank({"periodic gaussian 12x10x7",
                                {"heat.nx=12", "heat.ny=10", "heat.nz=7", "heat.boundary=periodic",
                                 "heat.initial=gaussian", "run.steps=25"}});
}

TEST(HeatRanks, AllRanksAlongZ) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  expect_same_bits_as_one_rank({"1x1xN periodic",
                                {"heat.nx=6", "heat.ny=5", "heat.nz=17", "heat.boundary=periodic",
                                 "run.px=1", "run.py=1", "run.steps=20"}});
}

TEST(HeatRanks, AllRanksAlongXWithNonzeroWalls) {
  expect_same_bits_as_one_rank({"Nx1x1 dirichlet walls=2",
                                {"heat.nx=19", "heat.ny=4", "heat.nz=5", "heat.boundary_value=2",
                                 "run.py=1", "run.pz=1", "run.steps=20"}});
}

}  // namespace
}  // namespace mpsfw
