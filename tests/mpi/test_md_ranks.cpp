// The MD solver across ranks (ctest runs this at 1 to 8 ranks; the box is
// long along x so that up to 8 ranks fit along it, uneven at 3, 5, 6, 7): the
// skin and rebuild interval do not change the trajectory, and the rescaling
// thermostat. Host backend. The physics checks every backend runs (forces
// against brute force, energy drift, N ranks vs 1) are test_md_physics.cpp's.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "support/md_runs.hpp"
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/solvers/md/md_config.hpp>
#include <mpsfw/solvers/md/md_solver.hpp>

namespace mpsfw {
namespace {

using testing_support::gather_atoms;
using testing_support::make_md_solver;
using testing_support::md_config;
using testing_support::periodic_delta;
using testing_support::world_rank;

// 14x4x4 FCC cells (896 atoms): the liquid of the conservation tests.
const std::vector<std::string> kLiquid = {"md.cells_x=14", "md.cells_y=4", "md.cells_z=4"};

std::vector<std::string> liquid(std::vector<std::string> more) {
  more.insert(more.begin(), kLiquid.begin(), kLiquid.end());
  return more;
}

// Skin 0 and a rebuild every step take the link-cell path of the lists; the
// default skin must give the same trajectory within round-off.
TEST(MdRanks, SkinAndRebuildIntervalDoNotChangeTheTrajectory) {
  std::vector<std::map<std::int64_t, testing_support::GatheredAtom>> runs;
  md::MdConfig config;
  for (const char* variant : {"md.skin=0", "md.rebuild_every=1", "md.skin=0.3"}) {
    config = md_config(liquid({"run.steps=100", "run.diag_every=0", variant}));
    auto solver = make_md_solver(config, MPI_COMM_WORLD, Backend::Host);
    mpsfw::run_time_loop(*solver, nullptr);
    runs.push_back(gather_atoms(*solver, MPI_COMM_WORLD));
  }
  if (world_rank() != 0) return;
  for (size_t r = 1; r < runs.size(); ++r) {
    ASSERT_EQ(runs[r].size(), runs[0].size());
    double worst = 0;
    for (const auto& [id, a] : runs[0]) {
      const auto& b = runs[r].at(id);
      for (int d = 0; d < 3; ++d) {
        worst = std::max(worst, std::abs(periodic_delta(a.atom.x[d], b.atom.x[d], config.box[d])));
      }
    }
    EXPECT_LT(worst, 1e-12) << "variant " << r << " vs skin 0";
  }
}

// Velocity rescaling: every thermostat_every steps the temperature is set to
// the target exactly; after thermostat_until the run is NVE again and its total
// energy stays put.
TEST(MdRanks, RescalingThermostatHoldsTheTargetThenLetsGo) {
  const md::MdConfig config = md_config(
      liquid({"run.steps=200", "run.diag_every=10", "md.thermostat=rescale",
              "md.thermostat_every=10", "md.thermostat_until=100", "md.target_temperature=0.5"}));
  auto solver = make_md_solver(config, MPI_COMM_WORLD, Backend::Host);
  mpsfw::run_time_loop(*solver, nullptr);
  std::vector<double> after_nve;
  for (const md::Thermo& t : solver->thermo()) {
    if (t.step > 0 && t.step <= 100) {
      EXPECT_NEAR(t.temperature, 0.5, 1e-12) << "step " << t.step;
    }
    if (t.step >= 110) after_nve.push_back(t.total);
  }
  ASSERT_FALSE(after_nve.empty());
  // Without the thermostat the lattice start would settle near T = 0.72.
  EXPECT_LT(solver->thermo().back().temperature, 0.65);
  for (double e : after_nve) EXPECT_NEAR(e, after_nve.front(), 1e-4 * std::abs(after_nve.front()));
}

}  // namespace
}  // namespace mpsfw
