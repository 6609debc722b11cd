#pragma once
// Where computation and field memory live, and which backends this build has.
//
// The CUDA backend's host-side code lives in sources compiled only with CUDA
// (*_cuda.cpp, *_cuda.cu); a build without CUDA compiles one unit per library
// instead (core/cuda_off.cpp, and a solver's *_cuda_off.cpp), where queries
// answer as on a machine without a GPU and everything else throws
// throw_built_without_cuda.
#include <string>

namespace mpsfw {

// Auto is only a request, resolved once, by bind_device (core/device.hpp);
// a bound device, and everything given its backend, is Host or Cuda.
enum class Backend { Auto, Host, Cuda };

inline const char* to_string(Backend b) {
  switch (b) {
    case Backend::Auto:
      return "auto";
    case Backend::Host:
      return "host";
    case Backend::Cuda:
      return "cuda";
  }
  return "?";
}

// True when this build compiled the CUDA backend.
bool built_with_cuda();

// "auto" | "host" | "cuda"; throws InputError otherwise.
Backend parse_backend(const std::string& text);

// Throws Error "<what> needs CUDA, but mpsfw was built without it (reconfigure
// with -DMPSFW_ENABLE_CUDA=ON)": the one error of a build without CUDA.
[[noreturn]] void throw_built_without_cuda(const std::string& what);

}  // namespace mpsfw
