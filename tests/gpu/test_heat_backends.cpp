// The host and CUDA backends agree: the same input on both gives the same
// field (builds disable FMA contraction, so we expect equality to rounding;
// the tolerance allows for a future change of that), and the update kernels
// push the same boundary cells to the same halo places. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "support/gpu_skip.hpp"
#include "support/heat_runs.hpp"
#include "support/pushed_updates.hpp"
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/solvers/heat/heat_kernels.hpp>

namespace mpsfw {
namespace {

using testing_support::expect_pushes_copy_the_planes;
using testing_support::expect_same_interior;
using testing_support::heat_config;
using testing_support::PushedUpdate;
using testing_support::PushOrder;
using testing_support::run_and_gather;
using testing_support::update_with_pushes;
using testing_support::world_rank;

void expect_backends_agree(const std::vector<std::string>& overrides) {
  const heat::HeatConfig c = heat_config(overrides);
  const std::vector<double> host = run_and_gather(c, MPI_COMM_WORLD, Backend::Host);
  const std::vector<double> cuda = run_and_gather(c, MPI_COMM_WORLD, Backend::Cuda);
  if (world_rank() != 0) return;
  ASSERT_EQ(host.size(), cuda.size());
  double scale = 0, diff = 0;
  size_t identical = 0;
  for (size_t i = 0; i < host.size(); ++i) {
    scale = std::max(scale, std::fabs(host[i]));
    diff = std::max(diff, std::fabs(host[i] - cuda[i]));
    identical += host[i] == cuda[i];
  }
  std::printf("host vs cuda: max |diff| %.3e of max |u| %.3e; %zu of %zu cells identical\n", diff,
              scale, identical, host.size());
  EXPECT_GT(scale, 0.0);
  EXPECT_LE(diff, 1e-12 * scale);
}

TEST(HeatBackends, DirichletSine) {
  MPSFW_REQUIRE_GPU();
  expect_backends_agree({"heat.nx=40", "heat.ny=33", "heat.nz=27", "run.steps=50"});
}

TEST(HeatBackends, PeriodicGaussian) {
  MPSFW_REQUIRE_GPU();
  expect_backends_agree({"heat.nx=32", "heat.ny=32", "heat.nz=32", "heat.boundary=periodic",
                         "heat.initial=gaussian", "run.steps=50", "run.diag_every=10"});
}

// One update of an odd-sized block (partial thread blocks and z chunks; the
// shell's thin x slabs take the CUDA kernel's other thread shape) with pushes
// (tests/support/pushed_updates.hpp), pushed last and boundary first: on each
// backend every pushed value equals the cell it copies and the field equals a
// plain update of the block; both backends write the same cells, the same
// values.
void expect_backends_push_alike(const FieldLayout& layout, FaceMask faces, PushOrder order) {
  const PushedUpdate host = update_with_pushes(Backend::Host, layout, faces, order);
  const PushedUpdate cuda = update_with_pushes(Backend::Cuda, layout, faces, order);
  const PushedUpdate plain = update_with_pushes(Backend::Cuda, layout, 0, PushOrder::Last);
  expect_pushes_copy_the_planes(host, layout, faces);
  expect_pushes_copy_the_planes(cuda, layout, faces);
  expect_same_interior(cuda.next, plain.next, layout);
  for (size_t c = 0; c < host.sink.size(); ++c) {
    ASSERT_EQ(std::isnan(host.sink[c]), std::isnan(cuda.sink[c])) << "sink cell " << c;
    if (!std::isnan(host.sink[c])) {
      ASSERT_NEAR(host.sink[c], cuda.sink[c], 1e-12 * (1 + std::fabs(host.sink[c])));
    }
  }
}

// One update of boxes large enough for the CUDA backend to time its designs
// (heat_update_choice.hpp: 2^21 cells and more), by each design and by the
// fastest: the whole interior, a box with partial blocks and z chunks at its
// far edges, and one whose first x cell is even (pairs not aligned: the pair
// designs fall back to one cell per thread). Host and CUDA write the same
// bits, and nothing outside the box.
TEST(HeatBackends, LargeBoxesUpdateAlikeByEveryDesign) {
  MPSFW_REQUIRE_GPU();
  if (world_rank() != 0) GTEST_SKIP() << "one rank's check";
  const FieldLayout layout({131, 130, 133});
  const size_t n = static_cast<size_t>(layout.size());
  std::vector<double> u(n);
  for (size_t c = 0; c < n; ++c) u[c] = std::sin(0.001 * static_cast<double>(c % 100003));
  const std::vector<double> blank(n, -1.0);
  Array<double> u_gpu(Backend::Cuda, n), next_gpu(Backend::Cuda, n);
  u_gpu.copy_from_host(u.data());
  const heat::Coefficients k = heat::coefficients(1e-4, 0.1, 0.01, 0.01, 0.01);
  const Box in = layout.interior();
  const Box boxes[] = {
      in,
      {{in.lo.x, in.lo.y + 1, in.lo.z + 2}, {in.hi.x - 3, in.hi.y - 1, in.hi.z - 1}},
      {{in.lo.x + 1, in.lo.y, in.lo.z}, {in.hi.x, in.hi.y, in.hi.z}}};
  const auto host_kernels = heat::make_heat_kernels(Backend::Host);
  using heat::CudaUpdateDesign;
  for (CudaUpdateDesign design :
       {CudaUpdateDesign::Fastest, CudaUpdateDesign::OneCell, CudaUpdateDesign::OneCellShallow,
        CudaUpdateDesign::Pairs, CudaUpdateDesign::PairsPrefetch}) {
    const auto cuda_kernels = heat::detail::make_cuda_heat_kernels(design);
    for (const Box& box : boxes) {
      ASSERT_GE(box.cells(), heat::gpu::kTimedBoxCells);
      std::vector<double> host = blank, cuda(n);
      host_kernels->update(u.data(), host.data(), layout, box, k, {});
      next_gpu.copy_from_host(blank.data());
      cuda_kernels->update(u_gpu.data(), next_gpu.data(), layout, box, k, {});
      cuda_kernels->synchronize();
      next_gpu.copy_to_host(cuda.data());
      size_t differ = 0;
      for (size_t c = 0; c < n; ++c) differ += std::memcmp(&host[c], &cuda[c], sizeof(double)) != 0;
      EXPECT_EQ(differ, 0u) << heat::design_name(design) << ", box from x " << box.lo.x
                            << ": cells that differ";
    }
    // The largest box, the interior, fits every design.
    if (design != CudaUpdateDesign::Fastest) {
      EXPECT_EQ(cuda_kernels->update_design(), heat::design_name(design));
    }
  }
}

TEST(HeatBackends, UpdatesPushTheSameBoundaryCells) {
  MPSFW_REQUIRE_GPU();
  expect_backends_push_alike(FieldLayout({37, 19, 23}), kAllFaces, PushOrder::Last);
}

TEST(HeatBackends, BoundaryFirstPushesTheSameCells) {
  MPSFW_REQUIRE_GPU();
  const FieldLayout layout({37, 19, 23});
  for (FaceMask faces : {kAllFaces, FaceMask{0x3c}, FaceMask{1u << ZLo}}) {
    SCOPED_TRACE("faces " + std::to_string(faces));
    expect_backends_push_alike(layout, faces, PushOrder::BoundaryFirst);
  }
}

}  // namespace
}  // namespace mpsfw
