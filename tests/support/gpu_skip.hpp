#pragma once
// Tests that need a GPU call this first; without one they are reported as
// SKIPPED with the reason (ctest shows them as "Skipped", not "Passed").
//
// MPSFW_REQUIRE_GPU=1 in the environment (a site or CI switch: the GPU
// machine's scripts/device_*.sh set it) makes a missing GPU a failure
// instead: there, "no GPU" means a broken machine, such as a driver older
// than the CUDA runtime, which would otherwise turn every GPU test into a
// quiet skip.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include <mpsfw/core/device/device.hpp>

namespace mpsfw::testing_support {

inline bool gpu_required_here() {
  const char* value = std::getenv("MPSFW_REQUIRE_GPU");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

}  // namespace mpsfw::testing_support

// Skips, or under MPSFW_REQUIRE_GPU=1 fails, the calling test with `why`.
#define MPSFW_GPU_MISSING(why)                                                  \
  do {                                                                          \
    if (::mpsfw::testing_support::gpu_required_here()) {                        \
      GTEST_FAIL() << why << ", but MPSFW_REQUIRE_GPU=1 says this machine has " \
                   << "one (check the driver against the CUDA runtime)";        \
    }                                                                           \
    GTEST_SKIP() << why << ": GPU test skipped";                                \
  } while (0)

#define MPSFW_REQUIRE_GPU()                                                   \
  do {                                                                        \
    if (!::mpsfw::built_with_cuda()) {                                        \
      MPSFW_GPU_MISSING("built without CUDA");                                \
    }                                                                         \
    if (::mpsfw::count_visible_gpus(::mpsfw::CudaGate::without_mps()) == 0) { \
      MPSFW_GPU_MISSING("no GPU visible");                                    \
    }                                                                         \
  } while (0)
