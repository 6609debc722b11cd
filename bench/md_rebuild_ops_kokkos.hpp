#pragma once
// md_rebuild_ops's Kokkos part, in a source of its own (compiled as Kokkos
// compiles: as CUDA with a CUDA Kokkos).

namespace mpsfw::bench {

// KokkosExec's primitives alone (primitive_timing.hpp), Kokkos running;
// throws Error in a build without Kokkos.
void time_kokkos_primitives(long n, int keys, int rounds);

}  // namespace mpsfw::bench
