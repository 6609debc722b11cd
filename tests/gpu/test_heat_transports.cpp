// Same-GPU halos: the heat solver on the CUDA backend gives the same field,
// bit for bit, whether halos between ranks on the GPU go device to device
// (run.halo = ipc: pushed by the update kernels, ordered by GPU-side waits
// under MPS, by a host barrier without MPS and with run.halo_sync = barrier)
// or through MPI (run.halo = mpi), and all equal a one-rank run. The IPC runs
// must really use IPC wherever every rank is linked to every other (one GPU,
// or peer GPUs of one node: halo_transport.hpp's linked_groups): then every
// face with a neighbour is pushed, none goes through MPI. (The orderings
// production does not run, pushed last and pulled, are
// bench/heat_halo_variants.) Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "support/gpu_skip.hpp"
#include "support/heat_runs.hpp"
#include <mpsfw/core/comm/halo_transport.hpp>
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/driver/time_loop.hpp>

namespace mpsfw {
namespace {

using testing_support::heat_config;
using testing_support::node_rank_and_size;
using testing_support::world_rank;

struct Outcome {
  std::vector<double> field;  // on rank 0 of comm
  int direct_faces = 0;       // summed over ranks
  int mpi_faces = 0;          // summed over ranks
  bool all_linked = false;    // every rank of comm in one linked group
  int visible_gpus = 0;
  std::string order;    // how rank 0 orders its direct pulls
  int mps_enabled = 0;  // 1: an MPS client
};

Outcome run_cuda(std::vector<std::string> overrides, const std::string& halo, MPI_Comm comm) {
  overrides.push_back("run.halo=" + halo);
  const heat::HeatConfig c = heat_config(overrides);
  int node_size = 1;
  const int node_rank = node_rank_and_size(comm, &node_size);
  const DeviceBinding device =
      bind_device(Backend::Cuda, node_rank, node_size, CudaGate::without_mps());
  heat::HeatSolver solver(c, comm, device, mpi_is_cuda_aware());
  mpsfw::run_time_loop(solver, nullptr);
  Outcome o;
  o.field = solver.gather_global();
  const int mine[2] = {face_count(solver.halo().routes().direct),
                       face_count(solver.halo().routes().mpi)};
  int sum[2] = {0, 0};
  MPI_Allreduce(mine, sum, 2, MPI_INT, MPI_SUM, comm);
  o.direct_faces = sum[0];
  o.mpi_faces = sum[1];
  // Linked as run.halo = ipc sees them (same GPU or peer GPUs of a node).
  const std::vector<int> groups = linked_groups(
      device_locations(comm, as_transport_allows(device_location(device), HaloTransport::Ipc)));
  o.all_linked = std::all_of(groups.begin(), groups.end(), [](int g) { return g == 0; });
  o.visible_gpus = device.visible_gpus;
  o.order = describe(solver.halo().routes().ordering);
  o.mps_enabled = device.mps_enabled;
  return o;
}

bool bitwise_equal(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void expect_transports_agree(const std::vector<std::string>& overrides, bool periodic) {
  const Outcome mpi = run_cuda(overrides, "mpi", MPI_COMM_WORLD);
  const Outcome ipc = run_cuda(overrides, "ipc", MPI_COMM_WORLD);
  std::vector<std::string> barrier = overrides;
  barrier.push_back("run.halo_sync=barrier");
  const Outcome ipc_barrier = run_cuda(barrier, "ipc", MPI_COMM_WORLD);
  Outcome single;
  if (world_rank() == 0) single = run_cuda(overrides, "mpi", MPI_COMM_SELF);
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  EXPECT_EQ(mpi.direct_faces, 0);
  if (ipc.visible_gpus == 1) {
    EXPECT_TRUE(ipc.all_linked) << "ranks of one GPU not linked";
  }
  if (ipc.all_linked && (ranks > 1 || periodic)) {
    // Every face the MPI run sent as a message must now be pushed.
    EXPECT_GT(ipc.direct_faces, 0) << "run.halo = ipc moved no face directly between linked ranks";
    EXPECT_EQ(ipc.direct_faces, mpi.mpi_faces) << "faces with a neighbour: " << mpi.mpi_faces;
    EXPECT_EQ(ipc.mpi_faces, 0) << "run.halo = ipc sent faces through MPI between linked ranks";
    // Under MPS the streams wait for each other on the GPU, else a host barrier.
    EXPECT_EQ(ipc.order, ipc.mps_enabled == 1 ? "GPU-side waits" : "a host barrier");
    EXPECT_EQ(ipc_barrier.order, "a host barrier");
  }
  if (world_rank() != 0) return;
  const auto same = [](const Outcome& a, const Outcome& b) {
    return bitwise_equal(a.field, b.field) ? "identical" : "DIFFER";
  };
  std::printf(
      "ipc vs mpi on %d ranks (%s): %d faces over IPC, %d over MPI (%s); fields %s; with the "
      "host barrier %s; vs 1 rank %s\n",
      ranks, ipc.all_linked ? "all linked" : "not all linked", ipc.direct_faces, ipc.mpi_faces,
      ipc.order.c_str(), same(ipc, mpi), same(ipc_barrier, mpi), same(ipc, single));
  ASSERT_FALSE(mpi.field.empty());
  EXPECT_TRUE(bitwise_equal(ipc.field, mpi.field));
  EXPECT_TRUE(bitwise_equal(ipc_barrier.field, mpi.field));
  EXPECT_TRUE(bitwise_equal(ipc.field, single.field));
}

TEST(HeatTransports, DirichletUneven) {
  MPSFW_REQUIRE_GPU();
  expect_transports_agree({"heat.nx=40", "heat.ny=33", "heat.nz=27", "run.steps=30"}, false);
}

TEST(HeatTransports, PeriodicGaussian) {
  MPSFW_REQUIRE_GPU();
  expect_transports_agree({"heat.nx=32", "heat.ny=24", "heat.nz=20", "heat.boundary=periodic",
                           "heat.initial=gaussian", "run.steps=30", "run.diag_every=7"},
                          true);
}

}  // namespace
}  // namespace mpsfw
