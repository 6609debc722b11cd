// The ghost-field cases (support/ghost_field_cases.hpp) on the CUDA
// backend's particle arrays: ghost fields forward and back, pair rows, half
// lists with atomic fixed-point shares, fields in device memory. Skips
// without a GPU.
#include <gtest/gtest.h>

#include "core/particles/cuda_exec.cuh"
#include "support/ghost_field_cases.hpp"
#include "support/gpu_skip.hpp"

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

}  // namespace
}  // namespace mpsfw
