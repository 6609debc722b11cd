// Host backend: the launchers of wave_kernels_exec.hpp over the framework's
// OpenMP primitives, and the one place that picks a backend's launchers.
#include <mpsfw/core/device/backend_factory.hpp>
#include <mpsfw/core/particles/host_exec.hpp>

#include "wave_kernels_exec.hpp"

namespace wave {

std::unique_ptr<Kernels> detail::make_host_kernels() {
  return std::make_unique<ExecKernels<mpsfw::HostExec>>();
}

std::unique_ptr<Kernels> kernels_for(mpsfw::Backend backend) {
  return mpsfw::make_for_backend<Kernels>(backend, "wave's launchers", detail::make_host_kernels,
                                          detail::make_cuda_kernels, detail::make_kokkos_kernels);
}

}  // namespace wave
