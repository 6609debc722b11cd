// The boundary-first step on the host backend
// (HeatKernels::update_boundary_first): the pushed planes and then the rest
// give the same next field, bit for bit, as one plain update of the whole
// block, write every interior cell and nothing else, and push exactly the new
// planes into the neighbours' halos, for several sets of pushed faces.
// (tests/gpu/test_heat_backends.cpp checks the CUDA kernels.)
#include <gtest/gtest.h>

#include <cstdint>

#include "support/pushed_updates.hpp"
#include <mpsfw/core/base/error.hpp>

namespace mpsfw {
namespace {

using testing_support::expect_pushes_copy_the_planes;
using testing_support::expect_same_interior;
using testing_support::PushOrder;
using testing_support::update_with_pushes;

constexpr FaceMask kFaceSets[] = {kAllFaces, 0x3c /* y and z */, 1u << ZHi, 0x3 /* x */,
                                  (1u << XLo) | (1u << YHi) | (1u << ZLo)};

TEST(HeatBoundaryFirst, HostMatchesThePlainUpdateAndPushesThePlanes) {
  const FieldLayout layout({13, 9, 7});
  const auto plain = update_with_pushes(Backend::Host, layout, 0, PushOrder::Last);
  for (FaceMask faces : kFaceSets) {
    SCOPED_TRACE("faces " + std::to_string(faces));
    const auto first = update_with_pushes(Backend::Host, layout, faces, PushOrder::BoundaryFirst);
    expect_same_interior(first.next, plain.next, layout);
    expect_pushes_copy_the_planes(first, layout, faces);
  }
}

TEST(HeatBoundaryFirst, PushedLastMatchesToo) {
  const FieldLayout layout({13, 9, 7});
  const auto plain = update_with_pushes(Backend::Host, layout, 0, PushOrder::Last);
  const auto last = update_with_pushes(Backend::Host, layout, kAllFaces, PushOrder::Last);
  expect_same_interior(last.next, plain.next, layout);
  expect_pushes_copy_the_planes(last, layout, kAllFaces);
}

// On the host (fields in shared memory, the tests' stand-in for a GPU) the
// update runs the step's handshake itself: marks its counter, and returns
// once the neighbours' counters have caught up (here they already have).
TEST(HeatBoundaryFirst, HostRunsTheHandshake) {
  const FieldLayout layout({4, 4, 4});
  std::vector<double> u(static_cast<size_t>(layout.size()), 1.0), next(u);
  std::uint64_t counter = 0, neighbour = 3;
  StepHandshake handshake;
  handshake.mine = &counter;
  handshake.theirs[0] = &neighbour;
  handshake.count = 1;
  handshake.finished = 3;
  auto kernels = heat::make_heat_kernels(Backend::Host);
  kernels->update_boundary_first(u.data(), next.data(), layout, layout.interior(),
                                 testing_support::kPushTestCoefficients, {}, handshake);
  EXPECT_EQ(counter, 3u);
}

}  // namespace
}  // namespace mpsfw
