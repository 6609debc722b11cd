#pragma once
// Tests that need a GPU call this first; without one they are reported as
// SKIPPED with the reason (ctest shows them as "Skipped", not "Passed").
#include <gtest/gtest.h>

#include "core/device.hpp"

#define MPSFW_REQUIRE_GPU()                                                   \
  do {                                                                        \
    if (!::mpsfw::built_with_cuda()) {                                        \
      GTEST_SKIP() << "built without CUDA: GPU test skipped";                 \
    }                                                                         \
    if (::mpsfw::count_visible_gpus(::mpsfw::CudaGate::without_mps()) == 0) { \
      GTEST_SKIP() << "no GPU visible: GPU test skipped";                     \
    }                                                                         \
  } while (0)
