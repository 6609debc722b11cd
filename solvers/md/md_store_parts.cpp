// The atom store on every backend the build has: mpsfw_backend_parts
// compiles this file once per backend (host: OpenMP over atoms; CUDA: CUB, a
// warp a link cell for the list build, pair loops in blocks of their own
// size; Kokkos: the default execution space's memory).
#include "md_arrays_store.hpp"
#include <mpsfw/core/particles/backend_part.hpp>

namespace mpsfw::md {

template std::unique_ptr<MdStore> make_arrays_store<PartExec>(const PairStyle& pair);

}  // namespace mpsfw::md
