#pragma once
// Kokkos is started by a test's first bind and may be finalised only once per
// process: a test program that binds the Kokkos backend includes this, which
// finalises it after the last test.
#include <gtest/gtest.h>

#include <mpsfw/core/device/kokkos_runtime.hpp>

namespace mpsfw::testing_support {

class KokkosStop : public ::testing::Environment {
 public:
  void TearDown() override { kokkos_stop(); }
};
inline const auto* const kKokkosStop = ::testing::AddGlobalTestEnvironment(new KokkosStop);

}  // namespace mpsfw::testing_support
