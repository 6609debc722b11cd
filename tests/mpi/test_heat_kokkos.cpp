// The Kokkos backend runs heat's physics (heat_physics.hpp) through Kokkos:
// on a host execution space (Serial in CI) its field equals the host
// backend's bit for bit (the same per-cell expression, no FMA contraction on
// the host), and N ranks under Kokkos equal one rank under Kokkos bit for bit.
// Diagnostics are sums in another order: equal within rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "support/heat_runs.hpp"
#include "support/pushed_updates.hpp"
#include <mpsfw/core/comm/halo_pushes.hpp>
#include <mpsfw/core/comm/halo_regions.hpp>
#include <mpsfw/core/device/kokkos_runtime.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/solvers/heat/heat_kernels.hpp>

namespace mpsfw {
namespace {

using testing_support::expect_pushes_copy_the_planes;
using testing_support::expect_same_interior;
using testing_support::heat_config;
using testing_support::PushOrder;
using testing_support::run_and_gather;
using testing_support::update_with_pushes;
using testing_support::world_rank;

// Kokkos is started by the first bind and may be finalised only once.
class KokkosStop : public ::testing::Environment {
 public:
  void TearDown() override { kokkos_stop(); }
};
const auto* const kStop = ::testing::AddGlobalTestEnvironment(new KokkosStop);

// Index of the first value whose bits differ, or a.size().
size_t first_difference(const std::vector<double>& a, const std::vector<double>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return i;
  }
  return a.size();
}

void expect_kokkos_equals_host(const std::vector<std::string>& overrides) {
  const heat::HeatConfig config = heat_config(overrides);
  const std::vector<double> kokkos = run_and_gather(config, MPI_COMM_WORLD, Backend::Kokkos);
  const std::vector<double> host = run_and_gather(config, MPI_COMM_WORLD, Backend::Host);
  if (world_rank() != 0) return;
  ASSERT_EQ(kokkos.size(), host.size());
  const size_t at = first_difference(kokkos, host);
  EXPECT_EQ(at, host.size()) << "first differing cell " << at;
  double norm = 0;
  for (double v : host) norm += v * v;
  EXPECT_GT(norm, 0.0);  // the run computed something
}

TEST(HeatKokkos, DirichletSineEqualsHostBitForBit) {
  expect_kokkos_equals_host({"heat.nx=13", "heat.ny=11", "heat.nz=9", "run.steps=25"});
}

TEST(HeatKokkos, PeriodicGaussianEqualsHostBitForBit) {
  expect_kokkos_equals_host({"heat.nx=12", "heat.ny=10", "heat.nz=7", "heat.boundary=periodic",
                             "heat.initial=gaussian", "run.steps=25"});
}

// Deeper than several of a GPU space's column chunks along z (8 cells), with
// a partial chunk on top.
TEST(HeatKokkos, DeepBoxEqualsHostBitForBit) {
  expect_kokkos_equals_host({"heat.nx=20", "heat.ny=6", "heat.nz=37", "heat.boundary=periodic",
                             "heat.initial=gaussian", "run.steps=12"});
}

TEST(HeatKokkos, RanksEqualOneRankBitForBit) {
  const heat::HeatConfig config =
      heat_config({"heat.nx=14", "heat.ny=9", "heat.nz=11", "heat.boundary=periodic",
                   "heat.initial=gaussian", "run.steps=20"});
  const std::vector<double> many = run_and_gather(config, MPI_COMM_WORLD, Backend::Kokkos);
  if (world_rank() != 0) return;
  heat::HeatConfig single = config;
  single.rank_grid_hint = {0, 0, 0};
  const std::vector<double> one = run_and_gather(single, MPI_COMM_SELF, Backend::Kokkos);
  ASSERT_EQ(many.size(), one.size());
  EXPECT_EQ(first_difference(many, one), one.size());
}

// Same-GPU halos: the update also writes the new values of the pushed planes
// into the neighbours' halos (here one scratch field standing for them all,
// every face pushed), as the host backend's update does.
TEST(HeatKokkos, PushedPlanesEqualHostBitForBit) {
  const FieldLayout layout(Int3{40, 7, 6});
  const size_t size = static_cast<size_t>(layout.size());
  const heat::Coefficients k = heat::coefficients(1e-4, 0.1, 0.01, 0.01, 0.01);
  std::vector<double> pattern(size);
  for (size_t c = 0; c < size; ++c) pattern[c] = 1.0 + 1e-3 * static_cast<double>(c % 977);
  int node_size = 1;
  const int node_rank = testing_support::node_rank_and_size(MPI_COMM_WORLD, &node_size);
  std::vector<double> results[2][2];  // [backend][next, scratch]
  const Backend backends[2] = {Backend::Host, Backend::Kokkos};
  for (int b = 0; b < 2; ++b) {
    const DeviceBinding device =
        bind_device(backends[b], node_rank, node_size, CudaGate::without_mps());
    Array<double> u(device.memory, size), next(device.memory, size), scratch(device.memory, size);
    u.copy_from_host(pattern.data());
    next.copy_from_host(pattern.data());
    scratch.copy_from_host(pattern.data());
    HaloPushes pushes;
    for (int f = 0; f < 6; ++f) {
      pushes.face[f] = push_target(layout, f, layout, scratch.data());
      pushes.faces |= 1u << f;
    }
    auto kernels = heat::make_heat_kernels(device.backend);
    kernels->update(u.data(), next.data(), layout, layout.interior(), k, pushes);
    kernels->synchronize();
    for (int r = 0; r < 2; ++r) results[b][r].resize(size);
    next.copy_to_host(results[b][0].data());
    scratch.copy_to_host(results[b][1].data());
  }
  EXPECT_EQ(first_difference(results[1][0], results[0][0]), size) << "next";
  EXPECT_EQ(first_difference(results[1][1], results[0][1]), size) << "pushed planes";
  EXPECT_NE(first_difference(results[0][1], pattern), size) << "the host pushed nothing";
}

// The boundary-first launch (tiles of the pushed planes, then the columns
// of the rest, in one launch): the host backend's plain update of the whole
// block, bit for bit, every pushed plane in the sink's halo and nothing else
// written, for several sets of faces. The block is wider than a tile (64
// cells) and deeper than a column (8) on its odd sides.
TEST(HeatKokkos, BoundaryFirstEqualsThePlainUpdate) {
  int node_size = 1;
  const int node_rank = testing_support::node_rank_and_size(MPI_COMM_WORLD, &node_size);
  const DeviceBinding device =
      bind_device(Backend::Kokkos, node_rank, node_size, CudaGate::without_mps());
  const FieldLayout layout(Int3{70, 9, 19});
  const auto plain = update_with_pushes(Backend::Host, layout, 0, PushOrder::Last);
  const FaceMask face_sets[] = {kAllFaces, 0x3c /* y and z */, 1u << ZHi, 0x3 /* x */,
                                (1u << XLo) | (1u << YHi) | (1u << ZLo)};
  for (FaceMask faces : face_sets) {
    SCOPED_TRACE("faces " + std::to_string(faces));
    const auto first =
        update_with_pushes(device.backend, layout, faces, PushOrder::BoundaryFirst, device.memory);
    expect_same_interior(first.next, plain.next, layout);
    expect_pushes_copy_the_planes(first, layout, faces);
  }
}

TEST(HeatKokkos, DiagnosticsAgreeWithHost) {
  const heat::HeatConfig config =
      heat_config({"heat.nx=16", "heat.ny=12", "heat.nz=10", "run.steps=15", "run.diag_every=5"});
  int node_size = 1;
  const int node_rank = testing_support::node_rank_and_size(MPI_COMM_WORLD, &node_size);
  std::vector<heat::Diagnostics> rows[2];
  const Backend backends[2] = {Backend::Host, Backend::Kokkos};
  for (int b = 0; b < 2; ++b) {
    const DeviceBinding device =
        bind_device(backends[b], node_rank, node_size, CudaGate::without_mps());
    heat::HeatSolver solver(config, MPI_COMM_WORLD, device, mpi_is_cuda_aware());
    mpsfw::run_time_loop(solver, nullptr);
    rows[b] = solver.diagnostics();
  }
  ASSERT_EQ(rows[0].size(), rows[1].size());
  ASSERT_EQ(rows[0].size(), 4u);  // steps 0, 5, 10, 15
  for (size_t r = 0; r < rows[0].size(); ++r) {
    EXPECT_EQ(rows[0][r].step, rows[1][r].step);
    EXPECT_NEAR(rows[1][r].total_heat, rows[0][r].total_heat,
                1e-13 * std::fabs(rows[0][r].total_heat));
    EXPECT_EQ(rows[1][r].max_change, rows[0][r].max_change);  // a maximum: order-free
  }
}

}  // namespace
}  // namespace mpsfw
