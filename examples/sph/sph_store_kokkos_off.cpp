// A build without the Kokkos store (an mpsfw without the Kokkos backend): its
// maker, in place of sph_store_kokkos.cpp.
#include <mpsfw/core/base/error.hpp>

#include "sph_store.hpp"

namespace sph {

std::unique_ptr<SphStore> detail::make_kokkos_store() {
  throw mpsfw::Error(
      "sph: the bound backend is kokkos, but the mpsfw this sph_solver was built against has no "
      "Kokkos backend; run with --backend host or cuda");
}

}  // namespace sph
