// The GPU inventory through NVML (mps/nvml_inventory.hpp) names the same GPUs
// as /proc/driver/nvidia and nvidia-smi do (the fallback): UUIDs, PCI bus ids
// and MIG instances, in the same order; and says how long NVML took to start.
// Skips without a GPU, and visibly where NVML does not load; under
// MPSFW_REQUIRE_GPU=1 either is a failure (support/gpu_skip.hpp).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "support/gpu_skip.hpp"
#include <mpsfw/mps/gpu_inventory.hpp>
#include <mpsfw/mps/nvml_inventory.hpp>

namespace mpsfw {
namespace {

TEST(NvmlInventory, NamesTheGpusProcAndNvidiaSmiName) {
  MPSFW_REQUIRE_GPU();
  const auto start = std::chrono::steady_clock::now();
  const auto nvml = mps::nvml_gpus();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!nvml) MPSFW_GPU_MISSING("libnvidia-ml.so.1 does not load or NVML does not start");
  std::printf("NVML inventory: %zu GPU(s) in %.3f s\n", nvml->size(), seconds);
  // The fallback: /proc and nvidia-smi named explicitly turn NVML off.
  const auto proc = mps::node_gpus([](const char* name) -> const char* {
    if (std::strcmp(name, "MPSFW_NVIDIA_PROC_ROOT") == 0) return "/proc/driver/nvidia/gpus";
    if (std::strcmp(name, "MPSFW_NVIDIA_SMI") == 0) return "nvidia-smi";
    return nullptr;
  });
  ASSERT_FALSE(nvml->empty());
  ASSERT_EQ(nvml->size(), proc.size());
  for (size_t i = 0; i < proc.size(); ++i) {
    const mps::GpuInfo &a = (*nvml)[i], &b = proc[i];
    std::printf("  %s  %s  %s\n", a.uuid.c_str(), a.pci_bus.c_str(), a.mig.c_str());
    EXPECT_EQ(a.uuid, b.uuid) << "GPU " << i;
    EXPECT_EQ(a.pci_bus, b.pci_bus) << "GPU " << i;
    EXPECT_EQ(a.mig, b.mig) << "GPU " << i;
  }
}

// The dry run's free memory: a GPU found in /proc lists none, and NVML is
// asked for it; the test doubles turn that off.
TEST(NvmlInventory, FreeMemoryOfAGpuFoundInProc) {
  MPSFW_REQUIRE_GPU();
  if (!mps::nvml_gpus()) {
    MPSFW_GPU_MISSING("libnvidia-ml.so.1 does not load or NVML does not start");
  }
  const auto gpus = mps::visible_gpus();
  ASSERT_FALSE(gpus.empty());
  const long long free = mps::free_bytes_of(gpus[0]);
  std::printf("free memory of %s: %.1f GiB\n", gpus[0].uuid.c_str(),
              static_cast<double>(free) / (1 << 30));
  EXPECT_GT(free, 0);
  const long long doubled = mps::free_bytes_of(gpus[0], [](const char* name) -> const char* {
    return std::strcmp(name, "MPSFW_NVIDIA_SMI") == 0 ? "nvidia-smi" : nullptr;
  });
  EXPECT_EQ(doubled, -1);
}

}  // namespace
}  // namespace mpsfw
