#include "node_cores.hpp"

#include <sched.h>

#include <thread>

#include "mpi_check.hpp"

namespace mpsfw {

int node_cores(MPI_Comm node) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) {
    // No mask to read: every CPU the machine has.
    for (unsigned c = 0; c < std::thread::hardware_concurrency() && c < CPU_SETSIZE; ++c)
      CPU_SET(c, &mine);
  }
  cpu_set_t all;
  MPSFW_MPI_CHECK(
      MPI_Allreduce(&mine, &all, static_cast<int>(sizeof mine), MPI_BYTE, MPI_BOR, node));
  return CPU_COUNT(&all);
}

}  // namespace mpsfw
