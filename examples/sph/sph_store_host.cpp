// The host store (OpenMP over particles), and the one place that picks a
// backend's store.
#include <mpsfw/core/device/backend_factory.hpp>
#include <mpsfw/core/particles/host_exec.hpp>

#include "sph_arrays.hpp"

namespace sph {

std::unique_ptr<SphStore> detail::make_host_store() {
  return std::make_unique<SphArrays<mpsfw::HostExec>>();
}

std::unique_ptr<SphStore> store_for(mpsfw::Backend backend) {
  return mpsfw::make_for_backend<SphStore>(backend, "sph's store", detail::make_host_store,
                                           detail::make_cuda_store, detail::make_kokkos_store);
}

}  // namespace sph
