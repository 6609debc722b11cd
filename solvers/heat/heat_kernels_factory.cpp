#include "heat_kernels.hpp"
#include <mpsfw/core/device/backend_factory.hpp>

namespace mpsfw::heat {

std::unique_ptr<HeatKernels> make_heat_kernels(Backend backend) {
  return make_for_backend<HeatKernels>(
      backend, "heat kernels", detail::make_host_heat_kernels,
      [] { return detail::make_cuda_heat_kernels(); }, detail::make_kokkos_heat_kernels);
}

}  // namespace mpsfw::heat
