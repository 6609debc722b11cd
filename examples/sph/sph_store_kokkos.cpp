// The Kokkos store: the same code as the host's (sph_arrays.hpp) over the
// framework's Kokkos primitives, in the default execution space's memory.
// Built only where mpsfw has the Kokkos backend (mpsfw_KOKKOS).
#include <mpsfw/core/particles/kokkos_exec.hpp>

#include "sph_arrays.hpp"

namespace sph {

std::unique_ptr<SphStore> detail::make_kokkos_store() {
  return std::make_unique<SphArrays<mpsfw::KokkosExec>>();
}

}  // namespace sph
