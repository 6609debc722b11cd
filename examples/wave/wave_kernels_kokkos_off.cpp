// A build without the Kokkos launchers (an mpsfw without the Kokkos backend):
// its maker, in place of wave_kernels_kokkos.cpp.
#include <mpsfw/core/base/error.hpp>

#include "wave_kernels.hpp"

namespace wave {

std::unique_ptr<Kernels> detail::make_kokkos_kernels() {
  throw mpsfw::Error(
      "wave: the bound backend is kokkos, but the mpsfw this wave_solver was built against has no "
      "Kokkos backend; run with --backend host or cuda");
}

}  // namespace wave
