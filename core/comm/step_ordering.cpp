#include "step_ordering.hpp"

#include "stream_signals.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {

const char* describe(HaloOrdering ordering) {
  switch (ordering) {
    case HaloOrdering::GpuWaits:
      return "GPU-side waits";
    case HaloOrdering::HostBarrier:
      return "a host barrier";
    case HaloOrdering::None:
      break;
  }
  return "";
}

bool can_wait_on_gpu(Backend space, int neighbours) {
  if (neighbours > StreamSignals::kMaxNeighbors) return false;
  return space == Backend::Host || StreamSignals::available();
}

HaloOrdering agree_ordering(MPI_Comm gpu_comm, HaloSync sync, bool gpu_waits_here) {
  int here = sync == HaloSync::Auto && gpu_waits_here ? 1 : 0, everywhere = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&here, &everywhere, 1, MPI_INT, MPI_LAND, gpu_comm));
  return everywhere ? HaloOrdering::GpuWaits : HaloOrdering::HostBarrier;
}

}  // namespace mpsfw
