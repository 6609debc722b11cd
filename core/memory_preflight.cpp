#include "memory_preflight.hpp"

#include <fstream>

#include "collective.hpp"
#include "error.hpp"
#include "memory.hpp"
#include "mpi_check.hpp"
#include "number_text.hpp"
#include "peer_memory.hpp"

namespace mpsfw {

std::int64_t available_host_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::int64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return -1;
}

void preflight_memory(MPI_Comm comm, Backend space, const std::string& gpu, std::int64_t bytes,
                      const std::string& what) {
  const bool device = space == Backend::Cuda;
  std::int64_t free = -1;
  std::string error;
  try {
    free = device ? memory::detail::cuda_free_bytes() : available_host_bytes();
  } catch (const std::exception& e) {
    error = e.what();
  }
  // The ranks that share the memory: those of this GPU, or of this node.
  MPI_Comm sharing = MPI_COMM_NULL;
  if (device) {
    sharing = gpu_communicator(comm, gpu_identities(comm, gpu));
  } else {
    MPSFW_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &sharing));
  }
  std::int64_t need = 0, least_free = 0;
  int ranks = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&bytes, &need, 1, MPI_INT64_T, MPI_SUM, sharing));
  MPSFW_MPI_CHECK(MPI_Allreduce(&free, &least_free, 1, MPI_INT64_T, MPI_MIN, sharing));
  MPSFW_MPI_CHECK(MPI_Comm_size(sharing, &ranks));
  MPSFW_MPI_CHECK(MPI_Comm_free(&sharing));
  if (error.empty() && least_free >= 0 && static_cast<double>(need) > 0.95 * least_free) {
    error = what + " need " + byte_text(static_cast<double>(bytes)) + " of " +
            (device ? "GPU" : "host") + " memory per rank, " +
            byte_text(static_cast<double>(need)) + " for the " + std::to_string(ranks) +
            " ranks sharing it, but only " + byte_text(static_cast<double>(least_free)) +
            " is free: use more GPUs or nodes, or a smaller problem";
  }
  agree_on_error(comm, error);  // every rank stops if any does
}

}  // namespace mpsfw
