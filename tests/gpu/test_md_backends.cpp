// The host and CUDA MD stores agree: after 5 steps (off the lattice, where
// every force is ~0; atoms have barely moved, so few have migrated) forces
// agree to 1e-13 of the largest, and after 100 steps trajectories agree
// within the round-off growth measured in tests/mpi/test_md_ranks.cpp (the
// CUDA store reorders atoms when they migrate, so sums run in another order).
// Ghost positions pushed device to device between ranks on the GPU (CUDA
// IPC) equal those sent through MPI bit for bit, and sleeping waits (a
// crowded node) equal spinning ones. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "support/gpu_skip.hpp"
#include "support/md_runs.hpp"
#include <mpsfw/core/driver/time_loop.hpp>

namespace mpsfw {
namespace {

using testing_support::gather_atoms;
using testing_support::make_md_solver;
using testing_support::md_config;
using testing_support::periodic_delta;
using testing_support::world_rank;

struct Difference {
  double position = 0, force = 0, largest_force = 0;
};

Difference compare(long steps) {
  const md::MdConfig c = md_config({"md.cells_x=6", "md.cells_y=6", "md.cells_z=6",
                                    "run.steps=" + std::to_string(steps), "run.diag_every=0"});
  auto host = make_md_solver(c, MPI_COMM_WORLD, Backend::Host);
  auto cuda = make_md_solver(c, MPI_COMM_WORLD, Backend::Cuda);
  mpsfw::run_time_loop(*host, nullptr);
  mpsfw::run_time_loop(*cuda, nullptr);
  const auto h = gather_atoms(*host, MPI_COMM_WORLD);
  const auto g = gather_atoms(*cuda, MPI_COMM_WORLD);
  Difference diff;
  if (world_rank() != 0) return diff;
  EXPECT_EQ(h.size(), g.size());
  for (const auto& [id, a] : h) {
    const auto it = g.find(id);
    if (it == g.end()) {
      ADD_FAILURE() << "atom " << id << " missing on the CUDA backend";
      continue;
    }
    for (int d = 0; d < 3; ++d) {
      diff.position = std::max(
          diff.position, std::abs(periodic_delta(a.atom.x[d], it->second.atom.x[d], c.box[d])));
      diff.force = std::max(diff.force, std::abs(a.force[d] - it->second.force[d]));
      diff.largest_force = std::max(diff.largest_force, std::abs(a.force[d]));
    }
  }
  std::printf("host vs cuda after %ld steps: positions %.3g, forces %.3g of %.3g\n", steps,
              diff.position, diff.force, diff.largest_force);
  return diff;
}

using GatheredRun = std::map<std::int64_t, testing_support::GatheredAtom>;

// Position and force components (and velocity ones, if asked) whose bits
// differ between two runs of the same atoms.
long differing_values(const GatheredRun& a, const GatheredRun& b, bool with_velocities) {
  long differ = 0;
  for (const auto& [id, x] : a) {
    const auto& y = b.at(id);
    for (int d = 0; d < 3; ++d) {
      differ += x.atom.x[d] != y.atom.x[d] || x.force[d] != y.force[d] ||
                (with_velocities && x.atom.v[d] != y.atom.v[d]);
    }
  }
  return differ;
}

TEST(MdBackends, EarlyForcesAgree) {
  MPSFW_REQUIRE_GPU();
  const Difference d = compare(5);
  if (world_rank() != 0) return;
  EXPECT_GT(d.largest_force, 1.0);
  EXPECT_LE(d.force, 1e-13 * d.largest_force);
}

TEST(MdBackends, TrajectoriesAgreeAfter100Steps) {
  MPSFW_REQUIRE_GPU();
  const Difference d = compare(100);
  if (world_rank() != 0) return;
  EXPECT_GT(d.largest_force, 1.0);
  EXPECT_LT(d.position, 1e-12);
  EXPECT_LT(d.force, 1e-9 * d.largest_force);
}

// Same-GPU ghosts: the same arithmetic (position + shift) on another path,
// so the trajectories are identical, not just close.
TEST(MdBackends, SameGpuGhostsEqualMpiGhostsBitForBit) {
  MPSFW_REQUIRE_GPU();
  GatheredRun runs[2];
  md::MdConfig c;
  const char* halo[2] = {"run.halo=mpi", "run.halo=ipc"};
  for (int k = 0; k < 2; ++k) {
    c = md_config({"md.cells_x=8", "md.cells_y=8", "md.cells_z=8", "run.steps=100",
                   "run.diag_every=0", halo[k]});
    auto solver = make_md_solver(c, MPI_COMM_WORLD, Backend::Cuda);
    mpsfw::run_time_loop(*solver, nullptr);
    if (k == 1 && solver->decomposition().size() > 1) {
      EXPECT_NE(solver->ghost_path().find("device to device"), std::string::npos)
          << solver->ghost_path();
    }
    EXPECT_GT(solver->rebuilds(), 2) << "the steps between rebuilds are what this compares";
    runs[k] = gather_atoms(*solver, MPI_COMM_WORLD);
  }
  if (world_rank() != 0) return;
  ASSERT_EQ(runs[0].size(), runs[1].size());
  EXPECT_EQ(differing_values(runs[0], runs[1], false), 0)
      << "coordinates or forces that differ between MPI and same-GPU ghosts";
}

// A node whose ranks outnumber its cores: every wait of the CUDA store sleeps
// (blocking-sync waits for the process, an event for the displacement, a
// polled all-reduce). Only the waiting changes, so the trajectory must not.
TEST(MdBackends, SleepingWaitsOfACrowdedNodeChangeNoBit) {
  MPSFW_REQUIRE_GPU();
  const md::MdConfig c = md_config(
      {"md.cells_x=8", "md.cells_y=8", "md.cells_z=8", "run.steps=100", "run.diag_every=0"});
  int node_size = 1;
  const int node_rank = testing_support::node_rank_and_size(MPI_COMM_WORLD, &node_size);
  DeviceBinding device = bind_device(Backend::Cuda, node_rank, node_size, CudaGate::without_mps());
  GatheredRun runs[2];
  long rebuilds[2] = {0, 0};
  for (int crowded = 0; crowded < 2; ++crowded) {
    device.crowded = crowded == 1;
    md::MdSolver solver(c, MPI_COMM_WORLD, device);
    mpsfw::run_time_loop(solver, nullptr);
    rebuilds[crowded] = solver.rebuilds();
    runs[crowded] = gather_atoms(solver, MPI_COMM_WORLD);
  }
  EXPECT_GT(rebuilds[0], 2) << "the rebuilds' waits are part of what this compares";
  EXPECT_EQ(rebuilds[1], rebuilds[0]);
  if (world_rank() != 0) return;
  ASSERT_EQ(runs[0].size(), runs[1].size());
  EXPECT_EQ(differing_values(runs[0], runs[1], true), 0)
      << "values that differ between spinning and sleeping waits";
}

}  // namespace
}  // namespace mpsfw
