// The ghost-field cases (support/ghost_field_cases.hpp) on the CUDA
// backend's particle arrays: ghost fields forward and back, pair rows, half
// lists with atomic fixed-point shares, fields in device memory; and the
// same with every rank on one GPU and ghosts (positions and fields) moving
// device to device (run.halo = ipc: a path that cannot link fails). Skips
// without a GPU.
#include <gtest/gtest.h>

#include "support/ghost_field_cases.hpp"
#include "support/gpu_skip.hpp"
#include "support/heat_runs.hpp"
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/particles/cuda_exec.cuh>

namespace mpsfw {
namespace {

using testing_support::ghost_field_case;
using testing_support::world_ranks;

TEST(GhostFieldsCuda, FollowTheirOwnersOnAnyRankGrid) {
  MPSFW_REQUIRE_GPU();
  ghost_field_case<CudaExec>({{12, 10, 8}}, {0, 0, 0});
}

TEST(GhostFieldsCuda, FollowTheirOwnersWhereARankIsItsOwnNeighbour) {
  MPSFW_REQUIRE_GPU();
  ghost_field_case<CudaExec>({{2 * 2 * world_ranks(), 6, 6}}, {world_ranks(), 1, 1});
}

TEST(GhostFieldsCuda, FollowTheirOwnersDeviceToDeviceOnOneGpu) {
  MPSFW_REQUIRE_GPU();
  if (world_ranks() == 1) GTEST_SKIP() << "one rank has no neighbour to push to";
  int node_size = 1;
  const int node_rank = testing_support::node_rank_and_size(MPI_COMM_WORLD, &node_size);
  const DeviceBinding device =
      bind_device(Backend::Cuda, node_rank, node_size, CudaGate::without_mps());
  ghost_field_case<CudaExec>({{12, 10, 8}}, {0, 0, 0}, HaloTransport::Ipc, device_location(device),
                             peer_memory_for(device));
}

}  // namespace
}  // namespace mpsfw
