#include "backend.hpp"

#include "error.hpp"

namespace mpsfw {

bool built_with_cuda() { return MPSFW_HAVE_CUDA != 0; }

Backend parse_backend(const std::string& t) {
  if (t == "host") return Backend::Host;
  if (t == "cuda") return Backend::Cuda;
  if (t == "auto") return Backend::Auto;
  throw InputError("backend: expected auto|host|cuda, got '" + t + "'");
}

void throw_built_without_cuda(const std::string& what) {
  throw Error(what +
              " needs CUDA, but mpsfw was built without it (reconfigure with "
              "-DMPSFW_ENABLE_CUDA=ON)");
}

}  // namespace mpsfw
