#pragma once
// The source of a part written once over the backends' primitives, compiled
// once per backend by CMake's mpsfw_backend_parts (which defines
// MPSFW_PART_BACKEND: 1 host, 2 CUDA, 3 Kokkos). It includes that backend's
// primitives, names them PartExec, and
//   MPSFW_BACKEND_PART(Impl, T)   or   MPSFW_BACKEND_PART_WITH(Impl, T, A)
// builds Impl<PartExec> as a T for make_part (core/device/backend_factory.hpp).
#include <memory>

#include <mpsfw/core/device/backend_factory.hpp>

#if !defined(MPSFW_PART_BACKEND)
#error "a backend part is compiled through mpsfw_backend_parts (CMake), once per backend"
#elif MPSFW_PART_BACKEND == 1
#include "host_exec.hpp"
namespace mpsfw {
using PartExec = HostExec;
}
#elif MPSFW_PART_BACKEND == 2
#include "cuda_exec.cuh"
namespace mpsfw {
using PartExec = CudaExec;
}
#elif MPSFW_PART_BACKEND == 3
#include "kokkos_exec.hpp"
namespace mpsfw {
using PartExec = KokkosExec;
}
#else
#error "MPSFW_PART_BACKEND is 1 (host), 2 (CUDA) or 3 (Kokkos)"
#endif

namespace mpsfw {

template <class Exec, template <class> class Impl, class T>
std::unique_ptr<T> make_part_on() {
  return std::make_unique<Impl<Exec>>();
}

template <class Exec, template <class> class Impl, class T, class A>
std::unique_ptr<T> make_part_on(const A& argument) {
  return std::make_unique<Impl<Exec>>(argument);
}

}  // namespace mpsfw

// At namespace scope, once in the part's source: Impl<Exec>() as a T, or
// Impl<Exec>(const A&) (make_part given an A).
#define MPSFW_BACKEND_PART(Impl, T) \
  template std::unique_ptr<T> mpsfw::make_part_on<mpsfw::PartExec, Impl, T>();
#define MPSFW_BACKEND_PART_WITH(Impl, T, A) \
  template std::unique_ptr<T> mpsfw::make_part_on<mpsfw::PartExec, Impl, T, A>(const A&);
