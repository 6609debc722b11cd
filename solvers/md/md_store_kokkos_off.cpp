// A build without Kokkos: the Kokkos MD store's factory, in place of
// md_store_kokkos.cpp (core/base/backend.hpp says how builds without a backend work).
#include "core/base/backend.hpp"
#include "md_store.hpp"

namespace mpsfw::md::detail {

std::unique_ptr<MdStore> make_kokkos_md_store(const PairStyle&) {
  throw_built_without_kokkos("md on the Kokkos backend");
}

}  // namespace mpsfw::md::detail
