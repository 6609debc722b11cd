// Kokkos backend: the launchers of wave_kernels_exec.hpp over the framework's
// Kokkos primitives. Built only where mpsfw has the Kokkos backend.
#include <mpsfw/core/particles/kokkos_exec.hpp>

#include "wave_kernels_exec.hpp"

namespace wave {

std::unique_ptr<Kernels> detail::make_kokkos_kernels() {
  return std::make_unique<ExecKernels<mpsfw::KokkosExec>>();
}

}  // namespace wave
