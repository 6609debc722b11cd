// A build without Kokkos: the Kokkos heat kernels' factory, in place of
// heat_kernels_kokkos.cpp (core/base/backend.hpp says how builds without a backend work).
#include "heat_kernels.hpp"

namespace mpsfw::heat::detail {

std::unique_ptr<HeatKernels> make_kokkos_heat_kernels() {
  throw_built_without_kokkos("heat on the Kokkos backend");
}

}  // namespace mpsfw::heat::detail
