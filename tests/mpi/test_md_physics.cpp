// MD's physics checks, one body each, run on every backend the build has:
// forces against a brute-force O(N^2) reference (right after a rebuild, long
// after one, rebuilt every step, without a skin, and with atoms outrunning
// half the skin every step), energy and momentum kept over 1000 steps of
// in.lj's liquid, and N ranks against one rank within the round-off growth
// of docs/md.md. ctest runs the host (and, where built, Kokkos) cases as
// test_md_physics.npN and the CUDA ones as test_md_physics_cuda.npN, a GPU
// test (skipped without a GPU). Also: a kick that waits for the next pass is
// seen by every read of the velocities.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/gpu_skip.hpp"
#include "support/kokkos_stop.hpp"
#include "support/md_runs.hpp"
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/neighbour_schedule.hpp>
#include <mpsfw/core/particles/particle_exchange.hpp>
#include <mpsfw/solvers/md/md_config.hpp>
#include <mpsfw/solvers/md/md_initial.hpp>
#include <mpsfw/solvers/md/md_physics.hpp>
#include <mpsfw/solvers/md/md_solver.hpp>
#include <mpsfw/solvers/md/md_store.hpp>

namespace mpsfw {
namespace {

using testing_support::brute_force_check;
using testing_support::expect_energy_kept_and_momentum_zero;
using testing_support::expect_ranks_match_one_rank;
using testing_support::ForceCheck;
using testing_support::make_md_solver;
using testing_support::md_config;
using testing_support::world_rank;

// 18x3x3 FCC cells (648 atoms) in a 30.2 x 5.04 x 5.04 box: the cutoff 2.5 is
// just under half the box along y and z, so ghosts wrap through every face,
// edge and corner at every rank count; 8 ranks fit along x with a skin of 1.2.
const std::vector<std::string> kSmall = {"md.cells_x=18", "md.cells_y=3", "md.cells_z=3",
                                         "run.diag_every=0"};
// 14x4x4 FCC cells (896 atoms): in.lj's liquid (rho 0.8442, T0 1.44).
const std::vector<std::string> kLiquid = {"md.cells_x=14", "md.cells_y=4", "md.cells_z=4"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

class MdPhysics : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::Kokkos && !built_with_kokkos()) {
      GTEST_SKIP() << "built without Kokkos";
    }
    if (GetParam() == Backend::Cuda) MPSFW_REQUIRE_GPU();
  }

  // Runs the small box with `more` and compares its forces with brute force:
  // off the lattice (where every force vanishes) sums in another order agree
  // to 1e-12 of the largest force. Returns the solver's rebuild count.
  long expect_brute_force(const std::vector<std::string>& more, const std::string& what,
                          long* on_lists = nullptr) {
    const md::MdConfig config = md_config(with(kSmall, more));
    auto solver = make_md_solver(config, MPI_COMM_WORLD, GetParam());
    mpsfw::run_time_loop(*solver, nullptr);
    const ForceCheck c = brute_force_check(*solver, config);
    if (on_lists != nullptr) *on_lists = solver->steps_on_lists();
    if (world_rank() == 0) {
      EXPECT_GT(c.largest, 1.0) << what << ": the system is not at rest";
      EXPECT_LT(c.worst, 1e-12 * c.largest) << what << ": largest force " << c.largest;
    }
    return solver->rebuilds();
  }
};

TEST_P(MdPhysics, ForcesEqualBruteForceRightAfterAndLongAfterARebuild) {
  expect_brute_force({"run.steps=30"}, "default skin, 30 steps");
  long on_lists = -1;
  expect_brute_force({"run.steps=12", "md.skin=1.2", "md.rebuild_every=12"},
                     "right after a forced rebuild", &on_lists);
  EXPECT_EQ(on_lists, 0);
  expect_brute_force({"run.steps=40", "md.skin=1.2", "md.rebuild_every=1000"},
                     "long after a rebuild", &on_lists);
  EXPECT_GE(on_lists, 15) << "the test wants many steps on one list";
  EXPECT_EQ(expect_brute_force({"run.steps=20", "md.rebuild_every=1"}, "rebuilt every step"), 20);
  EXPECT_EQ(expect_brute_force({"run.steps=20", "md.skin=0"}, "no skin"), 20);
}

// A time step four times in.lj's with a thin skin: atoms move more than
// skin/2 in one step. The displacement check catches it on every step (a
// rebuild before each force computation), so no pair within the cutoff is missed.
TEST_P(MdPhysics, AtomsMovingMoreThanHalfTheSkinPerStepForceARebuildEveryStep) {
  EXPECT_EQ(
      expect_brute_force({"run.steps=10", "md.dt=0.02", "md.skin=0.05", "md.rebuild_every=1000"},
                         "dt 0.02, skin 0.05"),
      10);
}

// The kick that ends a step may wait for the next kick_drift (one pass for
// both): every read of the velocities sees it all the same, bit for bit the
// arithmetic of md_physics.hpp, and the pass after applies it first. One
// store per rank (MPI_COMM_SELF), the small box.
TEST_P(MdPhysics, AKickIsInTheVelocitiesThatAnyReadOrLaterPassSees) {
  const md::MdConfig c = md_config(kSmall);
  const CartDecomposition dec(MPI_COMM_SELF, md::link_cells(c), {0, 0, 0}, {true, true, true});
  const Subdomain dom = subdomain_of(dec, c.box);
  ParticleExchange ex(dec, dom, md::ghost_width(c));
  auto store = md::make_md_store(GetParam(), c.pair);
  store->assign(md::fcc_atoms(c, dom, MPI_COMM_SELF));
  PhaseTimers timers;
  NeighbourSchedule({md::ghost_width(c), c.skin, 0}, timers).rebuild(ex, *store, 0);
  store->compute_forces();
  const std::vector<md::AtomRecord> before = store->download();
  const std::vector<double> f = store->download_forces();
  const double h = 0.5 * c.dt;
  std::vector<md::AtomRecord> want = before;
  const auto kick_want = [&] {
    for (std::size_t i = 0; i < want.size(); ++i) {
      for (int d = 0; d < 3; ++d) want[i].v[d] = md::kicked(want[i].v[d], f[3 * i + d], h, c.mass);
    }
  };
  const auto expect_want = [&](const std::vector<md::AtomRecord>& got, const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    long differ = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      for (int d = 0; d < 3; ++d) {
        differ += got[i].x[d] != want[i].x[d] || got[i].v[d] != want[i].v[d];
      }
    }
    EXPECT_EQ(differ, 0) << what;
  };
  // Read back at once.
  store->kick(h, c.mass);
  kick_want();
  expect_want(store->download(), "a download right after the kick");
  // Applied by the next kick_drift before its own half kick.
  store->kick(h, c.mass);
  store->kick_drift(h, c.dt, c.mass);
  kick_want();
  kick_want();
  for (auto& a : want) {
    for (int d = 0; d < 3; ++d) a.x[d] = md::drifted(a.x[d], a.v[d], c.dt);
  }
  expect_want(store->download(), "the kick_drift after a kick");
  // Carried by atoms that leave (everything leaves an empty band).
  store->kick(h, c.mass);
  kick_want();
  const double lo[3] = {-1, -1, -1}, hi[3] = {-0.5, -0.5, -0.5};
  std::vector<md::AtomRecord> left;
  store->take_leaving_atoms(lo, hi, &left);
  std::sort(left.begin(), left.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  std::sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  expect_want(left, "atoms leaving right after the kick");
}

// dt = 0.005, 1000 steps: total energy within 1e-4, momentum zero.
TEST_P(MdPhysics, TotalEnergyDriftsLessThan1e4AndMomentumStaysZero) {
  const md::MdConfig config = md_config(with(kLiquid, {"run.steps=1000", "run.diag_every=50"}));
  auto solver = make_md_solver(config, MPI_COMM_WORLD, GetParam());
  mpsfw::run_time_loop(*solver, nullptr);
  ASSERT_EQ(solver->thermo().size(), 21u);
  expect_energy_kept_and_momentum_zero(*solver);
}

// N ranks sum forces in another order than one rank (different ghosts, cells
// and atom order), so trajectories differ by round-off that chaos amplifies as
// d(t) = d0 exp(lambda t) (the growth seen is in docs/md.md). After 100 steps
// (t = 0.5) the bound is 1e-12 for positions, well above that growth, and
// 1e-13 relative for the total energy.
TEST_P(MdPhysics, TrajectoryMatchesOneRankWithinRoundOffGrowth) {
  expect_ranks_match_one_rank(md_config(with(kLiquid, {"run.steps=100", "run.diag_every=100"})),
                              GetParam());
}

INSTANTIATE_TEST_SUITE_P(Backends, MdPhysics,
                         ::testing::Values(Backend::Host, Backend::Kokkos, Backend::Cuda),
                         [](const ::testing::TestParamInfo<Backend>& backend) {
                           return std::string(to_string(backend.param));
                         });

}  // namespace
}  // namespace mpsfw
