#include "md_store.hpp"
#include <mpsfw/core/device/backend_factory.hpp>

namespace mpsfw::md {

std::unique_ptr<MdStore> make_md_store(Backend backend, const PairStyle& pair) {
  return make_on_backend<MD_HAVE_CUDA, MD_HAVE_KOKKOS>(backend, "md store", [&](auto exec) {
    return make_arrays_store<typename decltype(exec)::type>(pair);
  });
}

}  // namespace mpsfw::md
