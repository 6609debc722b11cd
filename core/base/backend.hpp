#pragma once
// Where computation and field memory live, and which backends this build has.
//
// The CUDA backend's host-side code lives in sources compiled only with CUDA
// (*_cuda.cpp, *_cuda.cu); a build without CUDA compiles a stand-in unit
// instead (cuda_off.cpp in core/device, core/comm and mps/, a solver's
// *_cuda_off.cpp), where queries answer as on a machine without a GPU and
// everything else throws throw_built_without_cuda.
#include <string>

namespace mpsfw {

// Auto is only a request, resolved once, by bind_device (core/device/device.hpp);
// a bound device's backend is Host, Cuda or Kokkos. Memory is always Host or
// Cuda (DeviceBinding::memory): where the Kokkos backend's fields live depends
// on the Kokkos installation's default execution space.
enum class Backend { Auto, Host, Cuda, Kokkos };

inline const char* to_string(Backend b) {
  switch (b) {
    case Backend::Auto:
      return "auto";
    case Backend::Host:
      return "host";
    case Backend::Cuda:
      return "cuda";
    case Backend::Kokkos:
      return "kokkos";
  }
  return "?";
}

// True when this build compiled the CUDA backend; the Kokkos backend.
bool built_with_cuda();
bool built_with_kokkos();

// "auto" | "host" | "cuda" | "kokkos"; throws InputError otherwise.
Backend parse_backend(const std::string& text);

// Throws Error "<what> needs CUDA, but mpsfw was built without it (reconfigure
// with -DMPSFW_ENABLE_CUDA=ON)": the one error of a build without CUDA.
[[noreturn]] void throw_built_without_cuda(const std::string& what);
// The same for Kokkos (-DMPSFW_ENABLE_KOKKOS=ON with a Kokkos install found).
[[noreturn]] void throw_built_without_kokkos(const std::string& what);

}  // namespace mpsfw
