#pragma once
// One choice of implementation per bound backend, for every backend-specific
// part a solver has (heat's kernels, MD's atom store, a user's launchers).
//
// A part written once over the backends' primitives (a class template
// Impl<Exec> deriving from the interface T; Exec: HostExec, CudaExec,
// KokkosExec) is built for every backend its build has from ONE source,
// compiled once per backend (CMake's mpsfw_backend_parts, which also defines
// <PREFIX>_HAVE_CUDA and <PREFIX>_HAVE_KOKKOS), holding one line:
//   MPSFW_BACKEND_PART(sph::SphArrays, sph::SphStore)   (backend_part.hpp)
// (MPSFW_BACKEND_PART_WITH(Impl, T, A) for a part made from an argument A)
// and made for the bound backend, in any other source (one that does not
// include backend_part.hpp), with
//   make_part<SphArrays, SphStore, SPH_HAVE_CUDA, SPH_HAVE_KOKKOS>(backend, "sph's store")
// A backend the build lacks is refused there, naming it.
//
// Parts with a separate implementation per backend pass one maker each:
//   return make_for_backend<HeatKernels>(backend, "heat kernels",
//       make_host_heat_kernels, make_cuda_heat_kernels, make_kokkos_heat_kernels);
// Each maker is a callable returning std::unique_ptr<T>; a part with no
// implementation for a backend passes unsupported<T>(why).
#include <memory>
#include <string>

#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/base/error.hpp>

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

// The backends' primitives (core/particles/*_exec): named here only.
class HostExec;
class CudaExec;
class KokkosExec;

// Impl<Exec> as a T, made with no argument or with one (its parameters, as
// Impl<Exec>(const A&)): defined where MPSFW_BACKEND_PART instantiates it, in
// the part's source compiled for Exec's backend; declared only here, so that
// a source calling make_part instantiates no backend's part itself.
template <class Exec, template <class> class Impl, class T>
std::unique_ptr<T> make_part_on();
template <class Exec, template <class> class Impl, class T, class A>
std::unique_ptr<T> make_part_on(const A& argument);

// A backend's primitives as a value, for make_on_backend's callable.
template <class Exec>
struct ExecTag {
  using type = Exec;
};

// make(ExecTag<Exec>{}) for the bound backend's Exec, where the build has
// that backend (HaveCuda, HaveKokkos: a part's <PREFIX>_HAVE_*); a backend it
// lacks is refused by name. `make` is a generic lambda naming a function
// template that a part's source instantiates (declared only where this is
// called, so nothing is instantiated here for a backend this source was not
// compiled for):
//   make_on_backend<MD_HAVE_CUDA, MD_HAVE_KOKKOS>(backend, "md store", [&](auto exec) {
//     return make_arrays_store<typename decltype(exec)::type>(pair); });
template <bool HaveCuda, bool HaveKokkos, class F>
auto make_on_backend(Backend backend, const std::string& what, const F& make)
    -> decltype(make(ExecTag<HostExec>{})) {
  const auto not_built = [&](const char* name) -> decltype(make(ExecTag<HostExec>{})) {
    throw Error(what + ": the bound backend is " + name + ", but this program was built without " +
                "its " + name + " part; run with --backend host, or rebuild against an mpsfw " +
                "built with " + name);
  };
  switch (backend) {
    case Backend::Host:
      return make(ExecTag<HostExec>{});
    case Backend::Cuda:
      if constexpr (HaveCuda) {
        return make(ExecTag<CudaExec>{});
      } else {
        return not_built("cuda");
      }
    case Backend::Kokkos:
      if constexpr (HaveKokkos) {
        return make(ExecTag<KokkosExec>{});
      } else {
        return not_built("kokkos");
      }
    case Backend::Auto:
      break;
  }
  throw Error(what + ": backend 'auto' is not bound (bind_device resolves it)");
}

// make_part<Impl, T, HAVE_CUDA, HAVE_KOKKOS>(backend, what[, argument]).
template <template <class> class Impl, class T, bool HaveCuda, bool HaveKokkos, class... A>
std::unique_ptr<T> make_part(Backend backend, const std::string& what, const A&... argument) {
  static_assert(sizeof...(A) <= 1, "a backend part is made with one argument at most");
  return make_on_backend<HaveCuda, HaveKokkos>(backend, what, [&](auto exec) {
    return make_part_on<typename decltype(exec)::type, Impl, T, A...>(argument...);
  });
}

}  // namespace mpsfw
