#include "bench/md_rebuild_ops_kokkos.hpp"

#include "bench/primitive_timing.hpp"
#include <mpsfw/core/particles/kokkos_exec.hpp>

namespace mpsfw::bench {

void time_kokkos_primitives(long n, int keys, int rounds) {
  const KokkosExec exec;
  time_primitives(exec, "KokkosExec", n, keys, rounds);
}

}  // namespace mpsfw::bench
