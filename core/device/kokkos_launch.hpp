#pragma once
// How the Kokkos backend's kernels are launched (included only where Kokkos is).
#include <Kokkos_Core.hpp>

namespace mpsfw {

// `policy` with its kernels' closures passed as kernel arguments (up to
// 4 KiB). Kokkos passes a closure of 512 bytes or more (the 26 ghost lists'
// shifts, a field's halo pushes) through one constant-memory buffer per
// device by default, and reusing that buffer waits for the previous such
// kernel to finish: a host wait at every launch, so the host can no longer
// run ahead of the GPU.
template <class Policy>
auto as_kernel_argument(const Policy& policy) {
  return Kokkos::Experimental::require(policy,
                                       Kokkos::Experimental::WorkItemProperty::HintLightWeight);
}

}  // namespace mpsfw
