#pragma once
// Where computation and field memory live.
#include <string>

namespace mpsfw {

// Auto is only a request; a bound device is always Host or Cuda.
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

}  // namespace mpsfw
