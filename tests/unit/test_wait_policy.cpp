// The process's wait policy, decided once from the device binding
// (apply_wait_policy): sleeping only for GPU memory on a crowded node.
#include <gtest/gtest.h>

#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/parallel/wait_policy.hpp>

namespace mpsfw {
namespace {

DeviceBinding binding(Backend memory, bool crowded) {
  DeviceBinding b;
  b.backend = memory;
  b.memory = memory;
  b.crowded = crowded;
  return b;
}

TEST(WaitPolicy, HostRanksSpinCrowdedOrNot) {
  set_wait_policy(WaitPolicy::Sleep);
  apply_wait_policy(binding(Backend::Host, true));
  EXPECT_EQ(wait_policy(), WaitPolicy::Spin);
  apply_wait_policy(binding(Backend::Host, false));
  EXPECT_EQ(wait_policy(), WaitPolicy::Spin);
}

TEST(WaitPolicy, GpuRanksSleepOnlyOnACrowdedNode) {
  if (!built_with_cuda()) GTEST_SKIP() << "mpsfw was built without CUDA";
  apply_wait_policy(binding(Backend::Cuda, false));
  EXPECT_EQ(wait_policy(), WaitPolicy::Spin);
  // Without a GPU here the runtime's flag is refused and ignored; the
  // framework's own waits sleep either way.
  apply_wait_policy(binding(Backend::Cuda, true));
  EXPECT_EQ(wait_policy(), WaitPolicy::Sleep);
  EXPECT_TRUE(waits_sleep());
  set_wait_policy(WaitPolicy::Spin);
}

}  // namespace
}  // namespace mpsfw
