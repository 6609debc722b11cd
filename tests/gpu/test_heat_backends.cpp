// The host and CUDA backends agree: the same input on both gives the same
// field (builds disable FMA contraction, so we expect equality to rounding;
// the tolerance allows for a future change of that). Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>

#include "support/gpu_skip.hpp"
#include "support/heat_runs.hpp"

namespace mpsfw {
namespace {

using testing_support::heat_config;
using testing_support::run_and_gather;
using testing_support::world_rank;

void expect_backends_agree(const std::vector<std::string>& overrides) {
  const heat::HeatConfig c = heat_config(overrides);
  const std::vector<double> host = run_and_gather(c, MPI_COMM_WORLD, Backend::Host);
  const std::vector<double> cuda = run_and_gather(c, MPI_COMM_WORLD, Backend::Cuda);
  if (world_rank() != 0) return;
  ASSERT_EQ(host.size(), cuda.size());
  double scale = 0, diff = 0;
  size_t identical = 0;
  for (size_t i = 0; i < host.size(); ++i) {
    scale = std::max(scale, std::fabs(host[i]));
    diff = std::max(diff, std::fabs(host[i] - cuda[i]));
    identical += host[i] == cuda[i];
  }
  std::printf("host vs cuda: max |diff| %.3e of max |u| %.3e; %zu of %zu cells identical\n", diff,
              scale, identical, host.size());
  EXPECT_GT(scale, 0.0);
  EXPECT_LE(diff, 1e-12 * scale);
}

TEST(HeatBackends, DirichletSine) {
  MPSFW_REQUIRE_GPU();
  expect_backends_agree({"heat.nx=40", "heat.ny=33", "heat.nz=27", "run.steps=50"});
}

TEST(HeatBackends, PeriodicGaussian) {
  MPSFW_REQUIRE_GPU();
  expect_backends_agree({"heat.nx=32", "heat.ny=32", "heat.nz=32", "heat.boundary=periodic",
                         "heat.initial=gaussian", "run.steps=50", "run.diag_every=10"});
}

}  // namespace
}  // namespace mpsfw
