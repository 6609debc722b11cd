// make_on_backend and make_part (core/device/backend_factory.hpp): the bound
// backend's Exec reaches the maker; a backend the build lacks is refused
// naming it, and the maker is not instantiated for it (it names a function
// template declared only, as a part's source would instantiate it).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/backend_factory.hpp>

namespace mpsfw {
namespace {

struct Named {
  virtual ~Named() = default;
  virtual std::string name() const = 0;
};

// Defined for the host only: a build "with" CUDA would fail to link.
template <class Exec>
std::unique_ptr<Named> make_named();

template <>
std::unique_ptr<Named> make_named<HostExec>() {
  struct Host : Named {
    std::string name() const override { return "host"; }
  };
  return std::make_unique<Host>();
}

std::unique_ptr<Named> named_for(Backend backend) {
  return make_on_backend<false, false>(
      backend, "a toy part", [](auto exec) { return make_named<typename decltype(exec)::type>(); });
}

std::string refusal(Backend backend) {
  try {
    named_for(backend);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(BackendParts, TheBoundBackendsExecReachesTheMaker) {
  EXPECT_EQ(named_for(Backend::Host)->name(), "host");
}

TEST(BackendParts, ABackendTheBuildLacksIsRefusedByName) {
  EXPECT_NE(refusal(Backend::Cuda)
                .find("a toy part: the bound backend is cuda, but this program "
                      "was built without its cuda part"),
            std::string::npos)
      << refusal(Backend::Cuda);
  EXPECT_NE(refusal(Backend::Kokkos).find("the bound backend is kokkos"), std::string::npos)
      << refusal(Backend::Kokkos);
  EXPECT_NE(refusal(Backend::Auto).find("backend 'auto' is not bound"), std::string::npos);
}

}  // namespace
}  // namespace mpsfw
