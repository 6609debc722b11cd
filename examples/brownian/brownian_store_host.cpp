// The host store (OpenMP over particles), and the one place that picks a
// backend's store.
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/backend_factory.hpp>
#include <mpsfw/core/particles/host_exec.hpp>
#include <string>

#include "brownian_arrays.hpp"

namespace brownian {

std::unique_ptr<BrownianStore> detail::make_host_store() {
  return std::make_unique<BrownianArrays<mpsfw::HostExec>>();
}

std::unique_ptr<BrownianStore> store_for(mpsfw::Backend backend) {
  return mpsfw::make_for_backend<BrownianStore>(
      backend, "brownian's store", detail::make_host_store, detail::make_cuda_store,
      mpsfw::unsupported<BrownianStore>(
          "brownian: no store for the kokkos backend; run with --backend host or cuda"));
}

}  // namespace brownian
