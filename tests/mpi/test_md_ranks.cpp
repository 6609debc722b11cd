// The MD solver across ranks (ctest runs this at 1 to 8 ranks; the boxes are
// long along x so that up to 8 ranks fit along it, uneven at 3, 5, 6, 7):
// forces against a brute-force O(N^2) reference, energy and momentum
// conservation, and the N-rank trajectory against the 1-rank one. Host
// backend: the physics is the same code on every backend (md_physics.hpp);
// host vs CUDA is tests/gpu's job.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "core/time_loop.hpp"
#include "solvers/md/md_config.hpp"
#include "solvers/md/md_solver.hpp"
#include "support/md_runs.hpp"

namespace mpsfw {
namespace {

using testing_support::brute_force_check;
using testing_support::expect_energy_kept_and_momentum_zero;
using testing_support::expect_ranks_match_one_rank;
using testing_support::ForceCheck;
using testing_support::gather_atoms;
using testing_support::make_md_solver;
using testing_support::md_config;
using testing_support::periodic_delta;
using testing_support::world_rank;

// 18x3x3 FCC cells (648 atoms) in a 30.2 x 5.04 x 5.04 box: the cutoff 2.5 is
// just under half the box along y and z, so ghosts wrap through every face,
// edge and corner at every rank count; 8 ranks fit along x with a skin of 1.2.
const std::vector<std::string> kSmall = {"md.cells_x=18", "md.cells_y=3", "md.cells_z=3",
                                         "run.thermo_every=0"};
// 14x4x4 FCC cells (896 atoms): the liquid of the conservation tests.
const std::vector<std::string> kLiquid = {"md.cells_x=14", "md.cells_y=4", "md.cells_z=4"};

std::vector<std::string> liquid(std::vector<std::string> more) {
  more.insert(more.begin(), kLiquid.begin(), kLiquid.end());
  return more;
}

// Runs `steps` steps on the small box and compares the forces with brute force.
ForceCheck forces_after(long steps, std::vector<std::string> more, long* rebuilds, long* on_lists) {
  std::vector<std::string> o = kSmall;
  o.push_back("run.steps=" + std::to_string(steps));
  o.insert(o.end(), more.begin(), more.end());
  const md::MdConfig config = md_config(o);
  auto solver = make_md_solver(config, MPI_COMM_WORLD, Backend::Host);
  mpsfw::run_time_loop(*solver, nullptr);
  *rebuilds = solver->rebuilds();
  *on_lists = solver->steps_on_lists();
  return brute_force_check(*solver, config);
}

// Positions are away from the perfect lattice (where all forces vanish) after
// a few steps. Bound: 1e-12 of the largest force (sums in another order).
void expect_brute_force(const ForceCheck& c, const std::string& what) {
  if (world_rank() != 0) return;
  EXPECT_GT(c.largest, 1.0) << what << ": the system is not at rest";
  EXPECT_LT(c.worst, 1e-12 * c.largest) << what << ": largest force " << c.largest;
}

TEST(MdRanks, ForcesEqualBruteForceWithMinimumImage) {
  long rebuilds = 0, on_lists = 0;
  expect_brute_force(forces_after(30, {}, &rebuilds, &on_lists), "default skin, 30 steps");
}

// The Verlet lists: on the step of a rebuild, and many steps after one (a
// wide skin moves the next rebuild far out), and with the lists rebuilt
// every step or without a skin (the link-cell path).
TEST(MdRanks, VerletListForcesEqualBruteForceRightAfterAndLongAfterARebuild) {
  long rebuilds = 0, on_lists = 0;
  expect_brute_force(forces_after(12, {"md.skin=1.2", "md.rebuild_every=12"}, &rebuilds, &on_lists),
                     "right after a forced rebuild");
  EXPECT_EQ(on_lists, 0);
  expect_brute_force(
      forces_after(40, {"md.skin=1.2", "md.rebuild_every=1000"}, &rebuilds, &on_lists),
      "long after a rebuild");
  EXPECT_GE(on_lists, 15) << "the test wants many steps on one list";
  expect_brute_force(forces_after(20, {"md.rebuild_every=1"}, &rebuilds, &on_lists),
                     "rebuilt every step");
  EXPECT_EQ(rebuilds, 20);
  expect_brute_force(forces_after(20, {"md.skin=0"}, &rebuilds, &on_lists), "no skin");
  EXPECT_EQ(rebuilds, 20);
}

// A time step four times in.lj's with a thin skin: atoms move more than skin/2 in one
// step. The displacement check catches it on every step (a rebuild before
// each force computation), so no pair within the cutoff is missed.
TEST(MdRanks, AtomsMovingMoreThanHalfTheSkinPerStepForceARebuildEveryStep) {
  long rebuilds = 0, on_lists = 0;
  expect_brute_force(forces_after(10, {"md.dt=0.02", "md.skin=0.05", "md.rebuild_every=1000"},
                                  &rebuilds, &on_lists),
                     "dt 0.02, skin 0.05");
  EXPECT_EQ(rebuilds, 10);
}

// Skin 0 and a rebuild every step take the link-cell path of the lists; the
// default skin must give the same trajectory within round-off.
TEST(MdRanks, SkinAndRebuildIntervalDoNotChangeTheTrajectory) {
  std::vector<std::map<std::int64_t, testing_support::GatheredAtom>> runs;
  md::MdConfig config;
  for (const char* variant : {"md.skin=0", "md.rebuild_every=1", "md.skin=0.3"}) {
    config = md_config(liquid({"run.steps=100", "run.thermo_every=0", variant}));
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

// rho = 0.8442, T0 = 1.44 (LAMMPS in.lj), 896 atoms, dt = 0.005, 1000 steps.
TEST(MdRanks, TotalEnergyDriftsLessThan1e4AndMomentumStaysZero) {
  const md::MdConfig config = md_config(liquid({"run.steps=1000", "run.thermo_every=50"}));
  auto solver = make_md_solver(config, MPI_COMM_WORLD, Backend::Host);
  mpsfw::run_time_loop(*solver, nullptr);
  ASSERT_EQ(solver->thermo().size(), 21u);
  expect_energy_kept_and_momentum_zero(*solver);
}

// Velocity rescaling: every thermostat_every steps the temperature is set to
// the target exactly; after thermostat_until the run is NVE again and its total
// energy stays put.
TEST(MdRanks, RescalingThermostatHoldsTheTargetThenLetsGo) {
  const md::MdConfig config = md_config(
      liquid({"run.steps=200", "run.thermo_every=10", "md.thermostat=rescale",
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

// N ranks sum forces in another order than one rank (different ghosts, cells
// and atom order), so trajectories differ by round-off that chaos amplifies as
// d(t) = d0 exp(lambda t). Measured here (8 ranks vs 1, 256 atoms): largest
// position difference 8e-15 at t = 0.5, 6e-13 at t = 2, 7e-9 at t = 5, i.e.
// lambda ~ 3 per time unit from d0 ~ 2e-15 (a few ulps of coordinates ~ 5).
// After 100 steps (t = 0.5) the bound is 1e-12 for positions (about 100x the
// measured value) and 1e-13 relative for the total energy.
TEST(MdRanks, TrajectoryMatchesOneRankWithinRoundOffGrowth) {
  expect_ranks_match_one_rank(md_config(liquid({"run.steps=100", "run.thermo_every=100"})),
                              Backend::Host);
}

}  // namespace
}  // namespace mpsfw
