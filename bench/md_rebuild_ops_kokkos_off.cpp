#include "bench/md_rebuild_ops_kokkos.hpp"
#include <mpsfw/core/base/error.hpp>

namespace mpsfw::bench {

void time_kokkos_primitives(long, int, int) {
  throw Error("md_rebuild_ops: this build has no Kokkos (configure with -DMPSFW_ENABLE_KOKKOS=ON)");
}

}  // namespace mpsfw::bench
