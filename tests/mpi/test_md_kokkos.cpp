// The Kokkos backend runs MD's physics (md_physics.hpp) through Kokkos. Its
// store bins atoms with a stable counting sort and compacts with scans, so
// its neighbour lists list the same atoms in the same order as the host
// store's on any rank count: every force and position sum runs in the same
// order, and with no FMA contraction (host compilers here; --fmad=false where
// Kokkos compiles as CUDA) positions and forces equal the host backend's bit
// for bit. Energies are reductions, summed in another order on a GPU: within
// rounding. Also: forces against brute force, energy drift, N ranks vs 1.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/kokkos_runtime.hpp"
#include "core/memory.hpp"
#include "solvers/md/md_store.hpp"
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
using testing_support::world_rank;

// Kokkos is started by the first bind and may be finalised only once.
class KokkosStop : public ::testing::Environment {
 public:
  void TearDown() override { kokkos_stop(); }
};
const auto* const kStop = ::testing::AddGlobalTestEnvironment(new KokkosStop);

// 18x3x3 FCC cells, long along x so that up to 8 ranks fit along it; ghosts
// wrap through every face, edge and corner (as in test_md_ranks).
const std::vector<std::string> kSmall = {"md.cells_x=18", "md.cells_y=3", "md.cells_z=3",
                                         "run.thermo_every=0"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(MdKokkos, PositionsAndForcesEqualHostBitForBit) {
  // Rebuilds with migration across every face within 60 steps at 0.3 skin.
  const md::MdConfig config = md_config(with(kSmall, {"run.steps=60"}));
  auto kokkos = make_md_solver(config, MPI_COMM_WORLD, Backend::Kokkos);
  auto host = make_md_solver(config, MPI_COMM_WORLD, Backend::Host);
  kokkos->run(nullptr);
  host->run(nullptr);
  EXPECT_GT(kokkos->rebuilds(), 1);
  EXPECT_EQ(kokkos->rebuilds(), host->rebuilds());
  const auto k = gather_atoms(*kokkos, MPI_COMM_WORLD);
  const auto h = gather_atoms(*host, MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  ASSERT_EQ(k.size(), h.size());
  long differing = 0;
  for (const auto& [id, a] : h) {
    const auto it = k.find(id);
    ASSERT_NE(it, k.end()) << "atom " << id << " missing on the Kokkos backend";
    for (int d = 0; d < 3; ++d) {
      differing += !same_bits(a.atom.x[d], it->second.atom.x[d]);
      differing += !same_bits(a.atom.v[d], it->second.atom.v[d]);
      differing += !same_bits(a.force[d], it->second.force[d]);
    }
  }
  EXPECT_EQ(differing, 0) << "of " << 9 * h.size() << " values";
}

TEST(MdKokkos, ForcesEqualBruteForceRightAfterAndLongAfterARebuild) {
  for (const auto& variant : std::vector<std::vector<std::string>>{
           {"run.steps=12", "md.skin=1.2", "md.rebuild_every=12"},
           {"run.steps=40", "md.skin=1.2", "md.rebuild_every=1000"},
           {"run.steps=20", "md.skin=0"}}) {
    const md::MdConfig config = md_config(with(kSmall, variant));
    auto solver = make_md_solver(config, MPI_COMM_WORLD, Backend::Kokkos);
    solver->run(nullptr);
    const ForceCheck c = brute_force_check(*solver, config);
    if (world_rank() != 0) continue;
    EXPECT_GT(c.largest, 1.0) << variant[0] << ": the system is not at rest";
    EXPECT_LT(c.worst, 1e-12 * c.largest) << variant[1] << ": largest force " << c.largest;
  }
}

// in.lj's liquid (rho 0.8442, T0 1.44), 896 atoms, dt 0.005, 1000 steps.
TEST(MdKokkos, TotalEnergyDriftsLessThan1e4AndMomentumStaysZero) {
  const md::MdConfig config = md_config(
      {"md.cells_x=14", "md.cells_y=4", "md.cells_z=4", "run.steps=1000", "run.thermo_every=100"});
  auto solver = make_md_solver(config, MPI_COMM_WORLD, Backend::Kokkos);
  solver->run(nullptr);
  ASSERT_EQ(solver->thermo().size(), 11u);
  expect_energy_kept_and_momentum_zero(*solver);
}

// Same-GPU ghosts: a send list pushed into another array (a neighbour's,
// mapped, on a GPU) holds what pack_sends gives MPI, at the slots asked for;
// the position array is shared only on a GPU space, and keeps its address
// (generation) through a sort, so neighbours need not map it again.
TEST(MdKokkos, PushedSendsEqualPackedSends) {
  int node_size = 1;
  const int node_rank = testing_support::node_rank_and_size(MPI_COMM_WORLD, &node_size);
  const DeviceBinding device =
      bind_device(Backend::Kokkos, node_rank, node_size, CudaGate::without_mps());
  auto store = md::make_md_store(Backend::Kokkos);
  std::vector<md::AtomRecord> atoms(40);
  for (int i = 0; i < 40; ++i) {
    atoms[static_cast<size_t>(i)] = {{0.25 * i, 1.0 + 0.01 * i, 2.0 - 0.02 * i}, {0, 0, 0}, i};
  }
  store->assign(atoms);
  const long generation = store->positions_generation();
  const md::CellGrid grid{{-1, -1, -1}, {3, 3, 3}, {5, 2, 2}};
  store->sort_by_cell(grid);
  EXPECT_EQ(store->positions_generation(), generation) << "a sort moved the position array";
  long counts[2] = {0, 0};
  store->select_sends(0, 2.0, 8.0, 10.0, -10.0, counts);
  EXPECT_EQ(counts[0], 8);
  EXPECT_EQ(counts[1], 8);
  for (int list = 0; list < 2; ++list) {
    const double* packed = store->pack_sends(list);
    const std::vector<double> want(packed, packed + 3 * counts[list]);
    const long slot = 5;
    Array<double> target(device.memory, static_cast<size_t>(4 * (slot + counts[list])));
    std::vector<double> got(target.size(), -1.0);
    target.copy_from_host(got.data());
    store->push_sends(list, target.data(), slot);
    store->synchronize();
    target.copy_to_host(got.data());
    for (long t = 0; t < counts[list]; ++t) {
      for (int d = 0; d < 3; ++d) {
        EXPECT_EQ(got[static_cast<size_t>(4 * (slot + t) + d)],
                  want[static_cast<size_t>(3 * t + d)])
            << "list " << list << ", atom " << t << ", coordinate " << d;
      }
    }
    EXPECT_EQ(got[0], -1.0) << "wrote before the slot";
  }
  EXPECT_EQ(store->positions_base() != nullptr, kokkos_on_gpu());
  store->assign(std::vector<md::AtomRecord>(1000, atoms[0]));
  EXPECT_NE(store->positions_generation(), generation) << "a larger array, the same generation";
}

// The bound of test_md_ranks (docs/md.md): 1e-12 for positions after 100 steps.
TEST(MdKokkos, RanksMatchOneRankWithinRoundOffGrowth) {
  expect_ranks_match_one_rank(md_config({"md.cells_x=14", "md.cells_y=4", "md.cells_z=4",
                                         "run.steps=100", "run.thermo_every=100"}),
                              Backend::Kokkos);
}

}  // namespace
}  // namespace mpsfw
