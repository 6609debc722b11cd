// The MD solver across ranks (ctest runs this at 1 to 8 ranks; the boxes are
// long along x so that up to 8 ranks fit along it, uneven at 3, 5, 6, 7):
// forces against a brute-force O(N^2) reference, energy and momentum
// conservation, and the N-rank trajectory against the 1-rank one. Host
// backend: the physics is the same code on every backend (md_physics.hpp);
// host vs CUDA is tests/gpu's job.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "solvers/md/md_config.hpp"
#include "solvers/md/md_solver.hpp"
#include "support/md_runs.hpp"

namespace mpsfw {
namespace {

using testing_support::gather_atoms;
using testing_support::make_md_solver;
using testing_support::md_config;
using testing_support::periodic_delta;
using testing_support::world_rank;

int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// 14x3x3 FCC cells (504 atoms) in a 23.5 x 5.04 x 5.04 box: the cutoff 2.5 is
// just under half the box along y and z, so ghosts wrap through every face,
// edge and corner at every rank count.
const std::vector<std::string> kSmall = {"md.cells_x=14", "md.cells_y=3", "md.cells_z=3",
                                         "run.thermo_every=0"};
// 14x4x4 FCC cells (896 atoms): the liquid of the conservation tests.
const std::vector<std::string> kLiquid = {"md.cells_x=14", "md.cells_y=4", "md.cells_z=4"};

std::vector<std::string> liquid(std::vector<std::string> more) {
  more.insert(more.begin(), kLiquid.begin(), kLiquid.end());
  return more;
}

TEST(MdRanks, ForcesEqualBruteForceWithMinimumImage) {
  std::vector<std::string> o = kSmall;
  o.push_back("run.steps=30");  // away from the perfect lattice, where all forces vanish
  const md::MdConfig config = md_config(o);
  auto solver = make_md_solver(config, MPI_COMM_WORLD, Backend::Host);
  solver->run(nullptr);
  const auto atoms = gather_atoms(*solver, MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  ASSERT_EQ(static_cast<long>(atoms.size()), solver->total_atoms());
  double worst = 0, largest = 0;
  for (const auto& [id, a] : atoms) {
    double f[3] = {0, 0, 0};
    for (const auto& [other_id, b] : atoms) {
      if (other_id == id) continue;
      double r[3], r2 = 0;
      for (int d = 0; d < 3; ++d) {
        r[d] = periodic_delta(a.atom.x[d], b.atom.x[d], config.box[d]);
        r2 += r[d] * r[d];
      }
      const md::PairTerm t = md::lj_pair(r2, config.lj);
      for (int d = 0; d < 3; ++d) f[d] += t.f_over_r * r[d];
    }
    for (int d = 0; d < 3; ++d) {
      worst = std::max(worst, std::abs(f[d] - a.force[d]));
      largest = std::max(largest, std::abs(f[d]));
    }
  }
  EXPECT_GT(largest, 1.0);  // the system is not at rest
  EXPECT_LT(worst, 1e-10 * largest) << "largest force " << largest;
}

// rho = 0.8442, T0 = 1.44 (LAMMPS in.lj), 896 atoms, dt = 0.005, 1000 steps.
TEST(MdRanks, TotalEnergyDriftsLessThan1e4AndMomentumStaysZero) {
  const md::MdConfig config = md_config(liquid({"run.steps=1000", "run.thermo_every=50"}));
  auto solver = make_md_solver(config, MPI_COMM_WORLD, Backend::Host);
  solver->run(nullptr);
  const std::vector<md::Thermo>& thermo = solver->thermo();
  ASSERT_EQ(thermo.size(), 21u);
  const double e0 = thermo.front().total;
  double drift = 0;
  for (const md::Thermo& t : thermo) drift = std::max(drift, std::abs((t.total - e0) / e0));
  EXPECT_LT(drift, 1e-4) << "E0 " << e0 << ", E_end " << thermo.back().total;
  // The liquid really moved: the kinetic energy changed a lot from the lattice start.
  EXPECT_LT(thermo.back().temperature, 0.9 * thermo.front().temperature);
  // Total momentum is zero at the start; the pair forces cancel to round-off.
  const double scale = std::sqrt(thermo.front().kinetic * 2) * static_cast<double>(solver->total_atoms());
  for (const md::Thermo& t : thermo) {
    for (int d = 0; d < 3; ++d) EXPECT_LT(std::abs(t.momentum[d]), 1e-12 * scale) << "step " << t.step;
  }
}

// Velocity rescaling: every thermostat_every steps the temperature is set to
// the target exactly; after thermostat_until the run is NVE again and its total
// energy stays put.
TEST(MdRanks, RescalingThermostatHoldsTheTargetThenLetsGo) {
  const md::MdConfig config = md_config(liquid({"run.steps=200", "run.thermo_every=10",
                                                "md.thermostat=rescale", "md.thermostat_every=10",
                                                "md.thermostat_until=100",
                                                "md.target_temperature=0.5"}));
  auto solver = make_md_solver(config, MPI_COMM_WORLD, Backend::Host);
  solver->run(nullptr);
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
  const md::MdConfig config = md_config(liquid({"run.steps=100", "run.thermo_every=100"}));
  auto many = make_md_solver(config, MPI_COMM_WORLD, Backend::Host);
  many->run(nullptr);
  const auto many_atoms = gather_atoms(*many, MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  auto one = make_md_solver(config, MPI_COMM_SELF, Backend::Host);
  one->run(nullptr);
  const auto one_atoms = gather_atoms(*one, MPI_COMM_SELF);
  ASSERT_EQ(many_atoms.size(), one_atoms.size());
  double worst = 0;
  for (const auto& [id, a] : one_atoms) {
    const auto it = many_atoms.find(id);
    ASSERT_NE(it, many_atoms.end()) << "atom " << id << " lost on " << world_size() << " ranks";
    for (int d = 0; d < 3; ++d) {
      worst = std::max(worst, std::abs(periodic_delta(a.atom.x[d], it->second.atom.x[d], config.box[d])));
    }
  }
  std::printf("%d ranks vs 1: largest position difference %.3g, total energy %.17g vs %.17g\n",
              world_size(), worst, many->thermo().back().total, one->thermo().back().total);
  EXPECT_LT(worst, 1e-12) << "largest position difference after 100 steps";
  const double e1 = one->thermo().back().total, en = many->thermo().back().total;
  EXPECT_LT(std::abs(e1 - en), 1e-13 * std::abs(e1));
}

}  // namespace
}  // namespace mpsfw
