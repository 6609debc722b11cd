// The Kokkos backend runs MD's physics (md_physics.hpp) through Kokkos. Its
// store bins atoms with a stable counting sort and compacts with scans, so
// its neighbour lists list the same atoms in the same order as the host
// store's on any rank count: every force and position sum runs in the same
// order, and with no FMA contraction (host compilers here; --fmad=false where
// Kokkos compiles as CUDA) positions and forces equal the host backend's bit
// for bit. Energies are reductions, summed in another order on a GPU: within
// rounding. The physics checks of every backend (forces against brute force,
// energy drift, N ranks vs 1) are test_md_physics.cpp's.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "support/kokkos_stop.hpp"
#include "support/md_runs.hpp"
#include <mpsfw/core/device/kokkos_runtime.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/solvers/md/md_store.hpp>

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

// 18x3x3 FCC cells, long along x so that up to 8 ranks fit along it; ghosts
// wrap through every face, edge and corner (as in test_md_ranks).
const std::vector<std::string> kSmall = {"md.cells_x=18", "md.cells_y=3", "md.cells_z=3",
                                         "run.diag_every=0"};

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
  mpsfw::run_time_loop(*kokkos, nullptr);
  mpsfw::run_time_loop(*host, nullptr);
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

// 1000 atoms on a 10x10x10 lattice (spacing 1, a little jitter) in a box of
// 10, in a shuffled store order; with bands 2 from each face a face list
// holds 2x10x10 of them, an edge list 2x2x10, a corner list 2x2x2.
std::vector<md::AtomRecord> lattice_atoms() {
  std::vector<md::AtomRecord> atoms(1000);
  for (int q = 0; q < 1000; ++q) {
    const int a = (q * 389) % 1000, i = a / 100, j = (a / 10) % 10, k = a % 10;
    atoms[static_cast<size_t>(q)] = {
        {0.5 + i + 0.01 * ((3 * i + 5 * j + 7 * k) % 4), 0.5 + j + 0.01 * ((i + 2 * j + 3 * k) % 3),
         0.5 + k + 0.01 * ((2 * i + j + k) % 5)},
        {0.1 * (j - 4.5), 0.1 * (k - 4.5), 0.1 * (i - 4.5)},
        a};
  }
  return atoms;
}

// Bands 2 from each face of the box [0, 10)^3; shift(list, d) from the
// list's offset along d.
GhostBands lattice_bands(double (*shift)(int offset, int d)) {
  GhostBands bands{};
  for (int d = 0; d < 3; ++d) {
    bands.low[d] = 2;
    bands.high[d] = 8;
  }
  for (int list = 0; list < kNeighbours; ++list) {
    for (int d = 0; d < 3; ++d) bands.shift[list][d] = shift(neighbour_step(list, d), d);
  }
  return bands;
}
// A rank alone in a periodic box: every list goes to itself, across the edges.
double periodic_shift(int offset, int /*d*/) { return -10.0 * offset; }
// Some shifts, some not, one not a box length.
double mixed_shift(int offset, int d) {
  return d == 0 ? -10.0 * offset : d == 1 ? 0.375 * offset : 0.0;
}

// Link cells over the box widened by the bands.
const CellGrid kLatticeGrid{{-2, -2, -2}, {2, 2, 2}, {7, 7, 7}};

bool same_record(const md::AtomRecord& a, const md::AtomRecord& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

constexpr std::uint32_t kAllLists = (std::uint32_t{1} << kNeighbours) - 1;

// Each list's packed positions, packed into a buffer in the store's space
// and copied out of it.
std::vector<std::vector<double>> packed_lists(md::MdStore& store, std::uint32_t lists,
                                              const long counts[kNeighbours]) {
  long total = 0;
  for (int list = 0; list < kNeighbours; ++list) {
    if ((lists >> list & 1u) != 0) total += counts[list];
  }
  Array<double> buffer(store.space(), static_cast<size_t>(3 * total));
  store.pack_sends(lists, buffer.data());
  std::vector<double> all(buffer.size());
  buffer.copy_to_host(all.data());
  std::vector<std::vector<double>> out(kNeighbours);
  const double* p = all.data();
  for (int list = 0; list < kNeighbours; ++list) {
    if ((lists >> list & 1u) == 0) continue;
    out[static_cast<size_t>(list)].assign(p, p + 3 * counts[list]);
    p += 3 * counts[list];
  }
  return out;
}

long bits_differing(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return static_cast<long>(std::max(a.size(), b.size()));
  long differing = 0;
  for (size_t k = 0; k < a.size(); ++k) differing += !same_bits(a[k], b[k]);
  return differing;
}

// Same-GPU ghosts: a send list pushed into another array (a neighbour's,
// mapped, on a GPU) holds what pack_sends gives MPI, at the slots asked for,
// and that is each list's atoms by ghost_list_mask in store order, shifted;
// the position array is shared only on a GPU space, and keeps its address
// (generation) through a sort, so neighbours need not map it again.
TEST(MdKokkos, PushedSendsEqualPackedSends) {
  int node_size = 1;
  const int node_rank = testing_support::node_rank_and_size(MPI_COMM_WORLD, &node_size);
  const DeviceBinding device =
      bind_device(Backend::Kokkos, node_rank, node_size, CudaGate::without_mps());
  auto store = md::make_md_store(Backend::Kokkos, md::lennard_jones(1, 1, 2.5));
  store->assign(lattice_atoms());
  const long generation = store->positions_generation();
  store->sort_by_cell(kLatticeGrid);
  EXPECT_EQ(store->positions_generation(), generation) << "a sort moved the position array";
  const GhostBands bands = lattice_bands(mixed_shift);
  long counts[kNeighbours] = {};
  store->select_sends(bands, counts);
  const std::vector<md::AtomRecord> atoms = store->download();
  long total = 0;
  for (int list = 0; list < kNeighbours; ++list) {
    long want = 1;
    for (int d = 0; d < 3; ++d) want *= neighbour_step(list, d) == 0 ? 10 : 2;
    EXPECT_EQ(counts[list], want) << "list " << list;
    total += counts[list];
  }
  const auto packed = packed_lists(*store, kAllLists, counts);
  // Each list: the atoms its mask bit marks, in store order, shifted.
  for (int list = 0; list < kNeighbours; ++list) {
    std::vector<double> want;
    for (const md::AtomRecord& a : atoms) {
      if ((ghost_list_mask(a.x[0], a.x[1], a.x[2], bands) >> list & 1u) == 0) continue;
      for (int d = 0; d < 3; ++d) want.push_back(a.x[d] + bands.shift[list][d]);
    }
    EXPECT_EQ(bits_differing(packed[static_cast<size_t>(list)], want), 0) << "list " << list;
  }
  // Selected again (the entries now fit their room at once), some lists packed.
  long again[kNeighbours] = {};
  store->select_sends(bands, again);
  const std::uint32_t some = 0x2A5A5A5u;
  const auto some_packed = packed_lists(*store, some, again);
  for (int list = 0; list < kNeighbours; ++list) {
    EXPECT_EQ(again[list], counts[list]) << "list " << list;
    if ((some >> list & 1u) == 0) continue;
    EXPECT_EQ(
        bits_differing(some_packed[static_cast<size_t>(list)], packed[static_cast<size_t>(list)]),
        0)
        << "list " << list << " packed with others left out";
  }
  const long slot = 5;
  Array<double> target(device.memory, static_cast<size_t>(4 * (slot + total)));
  std::vector<double> got(target.size(), -1.0);
  target.copy_from_host(got.data());
  long at = slot;
  for (int list = 0; list < kNeighbours; ++list) {
    store->push_sends(list, target.data(), at);
    at += counts[list];
  }
  store->synchronize();
  target.copy_to_host(got.data());
  at = slot;
  for (int list = 0; list < kNeighbours; ++list) {
    const std::vector<double>& want = packed[static_cast<size_t>(list)];
    long differing = 0;
    for (long t = 0; t < counts[list]; ++t) {
      for (int d = 0; d < 3; ++d) {
        differing += !same_bits(got[static_cast<size_t>(4 * (at + t) + d)],
                                want[static_cast<size_t>(3 * t + d)]);
      }
    }
    EXPECT_EQ(differing, 0) << "list " << list << " pushed from slot " << at;
    at += counts[list];
  }
  for (long k = 0; k < 4 * slot; ++k) {
    EXPECT_EQ(got[static_cast<size_t>(k)], -1.0) << "wrote before the slot";
  }
  // All lists in one launch, each at its own slot (in reverse list order
  // here), the same positions; with a handshake (a native kernel) it declines.
  Array<double> all_target(device.memory, static_cast<size_t>(4 * (slot + total)));
  std::vector<double> all_got(all_target.size(), -1.0);
  all_target.copy_from_host(all_got.data());
  void* targets[kNeighbours];
  long slots[kNeighbours];
  at = slot;
  for (int list = kNeighbours - 1; list >= 0; --list) {
    targets[list] = all_target.data();
    slots[list] = at;
    at += counts[list];
  }
  std::uint64_t counter = 0;
  StepHandshake handshake;
  handshake.mine = &counter;
  EXPECT_FALSE(store->push_all(targets, slots, 0, handshake));
  store->synchronize();
  all_target.copy_to_host(all_got.data());
  EXPECT_EQ(std::count(all_got.begin(), all_got.end(), -1.0), static_cast<long>(all_got.size()))
      << "push_all with a handshake wrote";
  ASSERT_TRUE(store->push_all(targets, slots, 0, StepHandshake{}));
  store->synchronize();
  all_target.copy_to_host(all_got.data());
  for (int list = 0; list < kNeighbours; ++list) {
    const std::vector<double>& want = packed[static_cast<size_t>(list)];
    long differing = 0;
    for (long t = 0; t < counts[list]; ++t) {
      for (int d = 0; d < 3; ++d) {
        differing += !same_bits(all_got[static_cast<size_t>(4 * (slots[list] + t) + d)],
                                want[static_cast<size_t>(3 * t + d)]);
      }
    }
    EXPECT_EQ(differing, 0) << "list " << list << " pushed by push_all from slot " << slots[list];
  }
  EXPECT_EQ(store->positions_base() != nullptr, kokkos_on_gpu());
  store->assign(std::vector<md::AtomRecord>(2000, atoms[0]));
  EXPECT_NE(store->positions_generation(), generation) << "a larger array, the same generation";
}

// Ghost lists, their own periodic images (copied, unpacked from the host
// buffer in two parts, refreshed after a move) and migration give what the
// host store gives, bit for bit: the same lists, the same packed positions,
// the same forces, the same leaving atoms in the same order.
TEST(MdKokkos, GhostsAndMigrationEqualHostStore) {
  int node_size = 1;
  const int node_rank = testing_support::node_rank_and_size(MPI_COMM_WORLD, &node_size);
  bind_device(Backend::Kokkos, node_rank, node_size, CudaGate::without_mps());
  const md::LennardJones p = md::lennard_jones(1, 1, 2);
  auto kokkos = md::make_md_store(Backend::Kokkos, p);
  auto host = md::make_md_store(Backend::Host, p);
  const GhostBands bands = lattice_bands(periodic_shift);
  long counts[kNeighbours] = {}, host_counts[kNeighbours] = {};
  long first[kNeighbours] = {};
  long total = 0;
  for (md::MdStore* store : {kokkos.get(), host.get()}) {
    store->assign(lattice_atoms());
    store->sort_by_cell(kLatticeGrid);
    store->select_sends(bands, store == host.get() ? host_counts : counts);
  }
  for (int list = 0; list < kNeighbours; ++list) {
    EXPECT_EQ(counts[list], host_counts[list]) << "list " << list;
    first[list] = total;
    total += counts[list];
  }
  const auto packed = packed_lists(*kokkos, kAllLists, counts);
  const auto host_packed = packed_lists(*host, kAllLists, host_counts);
  for (int list = 0; list < kNeighbours; ++list) {
    EXPECT_EQ(
        bits_differing(packed[static_cast<size_t>(list)], host_packed[static_cast<size_t>(list)]),
        0)
        << "list " << list;
  }
  const auto forces_match = [&](const char* what) {
    for (md::MdStore* store : {kokkos.get(), host.get()}) store->compute_forces();
    const std::vector<double> f = kokkos->download_forces(), h = host->download_forces();
    double largest = 0;
    for (double c : h) largest = std::max(largest, std::fabs(c));
    EXPECT_GT(largest, 1.0) << what << ": no forces";
    EXPECT_EQ(bits_differing(f, h), 0) << what << ": forces differ from the host store's";
  };
  // Every list is this rank's own images: copied straight into ghost slots.
  for (md::MdStore* store : {kokkos.get(), host.get()}) {
    store->copy_sends_to_ghosts(kAllLists, first);
    EXPECT_EQ(store->ghosts(), total);
    store->build_neighbors(kLatticeGrid, p.cutoff);
  }
  forces_match("copied images");
  // The owned atoms move; their images follow.
  for (md::MdStore* store : {kokkos.get(), host.get()}) {
    store->kick_drift(0.0025, 0.005, 1.0);
    store->refresh_own_images();
  }
  forces_match("refreshed images");
  // The same ghosts through the host buffer, in two parts.
  kokkos->clear_ghosts();
  const auto moved = packed_lists(*kokkos, kAllLists, counts);
  std::vector<double> slots(static_cast<size_t>(3 * total));
  for (int list = 0; list < kNeighbours; ++list) {
    const std::vector<double>& from = moved[static_cast<size_t>(list)];
    std::copy(from.begin(), from.end(), slots.begin() + 3 * first[list]);
  }
  Array<double> in(kokkos->space(), slots.size());
  in.copy_from_host(slots.data());
  kokkos->unpack_ghosts(in.data(), total / 3, total - total / 3);
  kokkos->unpack_ghosts(in.data(), 0, total / 3);
  kokkos->synchronize();  // before `in` goes
  EXPECT_EQ(kokkos->ghosts(), total);
  host->clear_ghosts();
  host->copy_sends_to_ghosts(kAllLists, first);
  for (md::MdStore* store : {kokkos.get(), host.get()}) {
    store->build_neighbors(kLatticeGrid, p.cutoff);
  }
  forces_match("unpacked ghosts");
  // Migration: the atoms outside [1, 9)^3 leave in store order; one with a
  // NaN coordinate stays.
  const md::AtomRecord lost = {{5, std::nan(""), 5}, {0, 0, 0}, 1000};
  const double lo[3] = {1, 1, 1}, hi[3] = {9, 9, 9};
  std::vector<md::AtomRecord> leaving, host_leaving = {lost};
  leaving.push_back(lost);
  for (md::MdStore* store : {kokkos.get(), host.get()}) {
    store->add_owned_atoms({lost});
    store->take_leaving_atoms(lo, hi, store == host.get() ? &host_leaving : &leaving);
    EXPECT_EQ(store->ghosts(), 0);
  }
  ASSERT_EQ(leaving.size(), 1u + 488u) << "appended after what was there";
  ASSERT_EQ(host_leaving.size(), leaving.size());
  for (size_t k = 0; k < leaving.size(); ++k) {
    EXPECT_TRUE(same_record(leaving[k], host_leaving[k])) << "leaving atom " << k;
  }
  const std::vector<md::AtomRecord> kept = kokkos->download(), host_kept = host->download();
  ASSERT_EQ(kept.size(), 513u);
  ASSERT_EQ(host_kept.size(), kept.size());
  long nan_atoms = 0;
  for (size_t k = 0; k < kept.size(); ++k) {
    EXPECT_TRUE(same_record(kept[k], host_kept[k])) << "kept atom " << k;
    nan_atoms += kept[k].id == lost.id;
  }
  EXPECT_EQ(nan_atoms, 1) << "the NaN atom left";
}

}  // namespace
}  // namespace mpsfw
