#include "core/device/backend_factory.hpp"
#include "md_store.hpp"

namespace mpsfw::md {

std::unique_ptr<MdStore> make_md_store(Backend backend) {
  return make_for_backend<MdStore>(backend, "md store", detail::make_host_md_store,
                                   detail::make_cuda_md_store, detail::make_kokkos_md_store);
}

}  // namespace mpsfw::md
