// The host and CUDA backends agree: the same input on both gives the same
// field (builds disable FMA contraction, so we expect equality to rounding;
// the tolerance allows for a future change of that), and the update kernels
// push the same boundary cells to the same halo places. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/halo_exchange.hpp"
#include "core/memory.hpp"
#include "solvers/heat/heat_kernels.hpp"
#include "support/gpu_skip.hpp"
#include "support/heat_runs.hpp"

namespace mpsfw {
namespace {

using testing_support::heat_config;
using testing_support::run_and_gather;
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

// One update of an odd-sized block, as the inner box and the six shell slabs
// (a thin x slab takes the CUDA kernel's other thread shape), the last launch
// pushing every face into a halo of a separate sink field laid out like the
// block (a periodic wrap onto itself), as the solver's last update of a step
// does. On each backend every pushed value equals the cell it copies; both
// backends write the same sink cells, the same values.
struct PushedUpdate {
  std::vector<double> next, sink;
};

PushedUpdate update_with_pushes(Backend backend, const FieldLayout& layout) {
  const auto size = static_cast<size_t>(layout.size());
  std::vector<double> u(size);
  for (size_t c = 0; c < size; ++c) u[c] = std::sin(0.37 * static_cast<double>(c));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> unset(size, nan);
  Array<double> u_at(backend, size), next_at(backend, size), sink_at(backend, size);
  u_at.copy_from_host(u.data());
  next_at.copy_from_host(unset.data());
  sink_at.copy_from_host(unset.data());
  HaloPushes pushes;
  for (int f = 0; f < kFaces; ++f) {
    pushes.face[f] = push_target(layout, f, layout, sink_at.data());
    pushes.faces |= 1u << f;
  }
  auto kernels = heat::make_heat_kernels(backend);
  const heat::Coefficients k = heat::coefficients(1e-4, 0.1, 0.01, 0.01, 0.01);
  kernels->update(u_at.data(), next_at.data(), layout, inner_box(layout), k, {});
  const ShellBoxes shell = shell_boxes(layout);
  for (int b = 0; b < shell.count; ++b) {
    kernels->update(u_at.data(), next_at.data(), layout, shell.box[b], k,
                    b + 1 == shell.count ? pushes : HaloPushes{});
  }
  kernels->synchronize();
  PushedUpdate r{std::vector<double>(size), std::vector<double>(size)};
  next_at.copy_to_host(r.next.data());
  sink_at.copy_to_host(r.sink.data());
  return r;
}

void expect_pushes_copy_the_planes(const PushedUpdate& r, const FieldLayout& layout) {
  long pushed = 0;
  for (int f = 0; f < kFaces; ++f) {
    const Box from = face_send_plane(layout, f);
    const Box to = face_halo_plane(layout, opposite_face(f));
    for (int k = from.lo.z; k < from.hi.z; ++k)
      for (int j = from.lo.y; j < from.hi.y; ++j)
        for (int i = from.lo.x; i < from.hi.x; ++i) {
          const Int3 at{i, j, k};
          Int3 dst = at;
          dst[face_dim(f)] = to.lo[face_dim(f)];
          const double sent = r.next[static_cast<size_t>(layout.index(i, j, k))];
          const double got = r.sink[static_cast<size_t>(layout.index(dst.x, dst.y, dst.z))];
          ASSERT_EQ(sent, got) << "face " << f << " cell " << i << "," << j << "," << k;
        }
    pushed += from.cells();
  }
  long written = 0;
  for (double v : r.sink) written += !std::isnan(v);
  EXPECT_EQ(written, pushed) << "pushes wrote outside the face halos";
}

TEST(HeatBackends, UpdatesPushTheSameBoundaryCells) {
  MPSFW_REQUIRE_GPU();
  const FieldLayout layout({37, 19, 23});  // partial thread blocks and z chunks
  const PushedUpdate host = update_with_pushes(Backend::Host, layout);
  const PushedUpdate cuda = update_with_pushes(Backend::Cuda, layout);
  expect_pushes_copy_the_planes(host, layout);
  expect_pushes_copy_the_planes(cuda, layout);
  for (size_t c = 0; c < host.sink.size(); ++c) {
    ASSERT_EQ(std::isnan(host.sink[c]), std::isnan(cuda.sink[c])) << "sink cell " << c;
    if (!std::isnan(host.sink[c])) {
      ASSERT_NEAR(host.sink[c], cuda.sink[c], 1e-12 * (1 + std::fabs(host.sink[c])));
    }
  }
}

}  // namespace
}  // namespace mpsfw
