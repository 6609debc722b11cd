#include "core/device/backend_factory.hpp"
#include "md_store.hpp"

namespace mpsfw::md {

std::unique_ptr<MdStore> make_md_store(Backend backend, const PairStyle& pair) {
  return make_for_backend<MdStore>(
      backend, "md store", [&] { return detail::make_host_md_store(pair); },
      [&] { return detail::make_cuda_md_store(pair); },
      [&] { return detail::make_kokkos_md_store(pair); });
}

}  // namespace mpsfw::md
