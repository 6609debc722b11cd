// FieldHalos on the CUDA backend: the cases of tests/mpi/test_field_halos.cpp
// (two fields, float and double, widths 1 and 2, faces and corners, walls and
// periodic wraps, uneven blocks) with the fields in device memory, over MPI
// (staged or CUDA-aware) and over real same-GPU pulls (CUDA IPC; every rank
// of the test shares the machine's GPU). Skips without a GPU.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "support/field_halo_checks.hpp"
#include "support/gpu_skip.hpp"
#include "support/heat_runs.hpp"
#include <mpsfw/core/comm/field_halos.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>

namespace mpsfw {
namespace {

using namespace testing_support;

DeviceBinding bind_this_rank() {
  int node_size = 1;
  const int node_rank = node_rank_and_size(MPI_COMM_WORLD, &node_size);
  return bind_device(Backend::Cuda, node_rank, node_size, CudaGate::without_mps());
}

void run_cuda_case(const HaloCase& c, HaloTransport transport, int steps) {
  const DeviceBinding device = bind_this_rank();
  CartDecomposition d(MPI_COMM_WORLD, c.global, {0, 0, 0}, c.periodic);
  const FieldLayout l(d.local_cells(), c.shape.width);
  const auto cells = static_cast<size_t>(l.size());
  std::vector<double> host_u(cells);
  std::vector<float> host_rho(cells);
  Array<double> u[2] = {Array<double>(Backend::Cuda, cells), Array<double>(Backend::Cuda, cells)};
  Array<float> rho(Backend::Cuda, cells);
  fill(d, l, 0, host_u.data());
  fill(d, l, 1, host_rho.data());
  for (Array<double>& b : u) b.copy_from_host(host_u.data());
  rho.copy_from_host(host_rho.data());
  {
    FieldHalos halos(d, l, c.shape, Backend::Cuda, mpi_is_cuda_aware());
    halos.add_field<double>({u[0].data(), u[1].data()});
    halos.add_field<float>({rho.data()});
    halos.connect(transport, device_location(device));
    for (int s = 0; s < steps; ++s) {
      Array<double>& now = u[s % 2];
      halos.start(now.data(), rho.data());
      halos.finish();
      now.copy_to_host(host_u.data());
      rho.copy_to_host(host_rho.data());
      EXPECT_EQ(check(d, l, c.shape, 0, host_u.data()), "") << "step " << s << ", " << halos.path();
      EXPECT_EQ(check(d, l, c.shape, 1, host_rho.data()), "")
          << "step " << s << ", " << halos.path();
      fill(d, l, 0, host_u.data());
      u[(s + 1) % 2].copy_from_host(host_u.data());
      halos.finish_step();
    }
    if (transport != HaloTransport::Mpi && d.size() > 1) {
      EXPECT_GT(halos.direct_neighbors(), 0) << halos.path();
    }
    halos.quiesce();
  }
}

TEST(FieldHalosCuda, Mpi) {
  MPSFW_REQUIRE_GPU();
  run_cuda_case({{12, 10, 8}, {true, true, true}, kFaces2}, HaloTransport::Mpi, 2);
  run_cuda_case({{11, 9, 7}, {true, false, true}, kCorners2}, HaloTransport::Mpi, 2);
  run_cuda_case({{9, 7, 6}, {false, false, false}, kFaces1}, HaloTransport::Mpi, 1);
}

TEST(FieldHalosCuda, SameGpuPulls) {
  MPSFW_REQUIRE_GPU();
  run_cuda_case({{12, 10, 8}, {true, true, true}, kFaces2}, HaloTransport::Ipc, 4);
  run_cuda_case({{11, 9, 7}, {true, false, true}, kCorners2}, HaloTransport::Ipc, 3);
  run_cuda_case({{8, 8, 8}, {true, true, true}, kCorners1}, HaloTransport::Ipc, 3);
}

}  // namespace
}  // namespace mpsfw
