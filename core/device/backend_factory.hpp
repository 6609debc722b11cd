#pragma once
// One choice of implementation per bound backend, for every backend-specific
// part a solver has (heat's kernels, MD's atom store, a user's launchers):
//   return make_for_backend<HeatKernels>(backend, "heat kernels",
//       make_host_heat_kernels, make_cuda_heat_kernels, make_kokkos_heat_kernels);
// Each maker is a callable returning std::unique_ptr<T>; a build without a
// backend gives a maker that throws (backend.hpp: a *_cuda_off.cpp unit in
// place of the CUDA one), and a part with no implementation for a backend
// passes unsupported<T>(why).
#include <memory>
#include <string>

#include "core/base/backend.hpp"
#include "core/base/error.hpp"

namespace mpsfw {

// A maker for a backend the part has none for: throws Error(why).
template <class T>
auto unsupported(std::string why) {
  return [why]() -> std::unique_ptr<T> { throw Error(why); };
}

template <class T, class Host, class Cuda, class Kokkos>
std::unique_ptr<T> make_for_backend(Backend backend, const std::string& what, Host host, Cuda cuda,
                                    Kokkos kokkos) {
  switch (backend) {
    case Backend::Host:
      return host();
    case Backend::Cuda:
      return cuda();
    case Backend::Kokkos:
      return kokkos();
    case Backend::Auto:
      break;
  }
  throw Error(what + ": backend 'auto' is not bound (bind_device resolves it)");
}

}  // namespace mpsfw
