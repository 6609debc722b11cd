#include "backend.hpp"

#include "error.hpp"

namespace mpsfw {

bool built_with_cuda() { return MPSFW_HAVE_CUDA != 0; }
bool built_with_kokkos() { return MPSFW_HAVE_KOKKOS != 0; }

Backend parse_backend(const std::string& t) {
  if (t == "host") return Backend::Host;
  if (t == "cuda") return Backend::Cuda;
  if (t == "kokkos") return Backend::Kokkos;
  if (t == "auto") return Backend::Auto;
  throw InputError("backend: expected auto|host|cuda|kokkos, got '" + t + "'");
}

void throw_built_without_cuda(const std::string& what) {
  throw Error(what +
              " needs CUDA, but mpsfw was built without it (reconfigure with "
              "-DMPSFW_ENABLE_CUDA=ON)");
}

void throw_built_without_kokkos(const std::string& what) {
  throw Error(what +
              " needs Kokkos, but mpsfw was built without it (install Kokkos and reconfigure "
              "with -DKokkos_ROOT=<prefix>, or run scripts/setup.sh)");
}

}  // namespace mpsfw
