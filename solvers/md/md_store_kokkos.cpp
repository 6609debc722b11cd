// The atoms of one rank with the Kokkos backend: MD's store on the particle
// layer's arrays with Kokkos's primitives (core/particles/kokkos_exec.hpp), in
// the default execution space's memory (the GPU's with a CUDA Kokkos).
#include "core/particles/kokkos_exec.hpp"
#include "md_arrays_store.hpp"

namespace mpsfw::md::detail {

std::unique_ptr<MdStore> make_kokkos_md_store(const PairStyle& pair) {
  return make_arrays_store<KokkosExec>(pair);
}

}  // namespace mpsfw::md::detail
