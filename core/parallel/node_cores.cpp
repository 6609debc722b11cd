#include "node_cores.hpp"

#include <sched.h>

#include <string>
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

// On a crowded node GPU ranks wait sleeping (wait_policy.hpp): a rank that
// spins holds a core a rank it waits for needs.
std::string crowding_note(int ranks, int cores, Backend memory) {
  const std::string counts = "this node's " + std::to_string(ranks) + " ranks ";
  if (ranks > cores) {
    const std::string text =
        counts + "outnumber the " + std::to_string(cores) + " cores they may run on: ";
    if (memory == Backend::Host) return text + "each rank runs one OpenMP thread";
    return text +
           "the ranks take turns on the cores while they wait for their GPU (their waits "
           "sleep); expect less than one rank per core gives (docs/performance.md)";
  }
  if (ranks == cores && memory != Backend::Host) {
    return counts + "take all " + std::to_string(cores) +
           " cores they may run on, and the MPS servers and the launcher need cores too: a rank "
           "that loses its core stops the others at the next exchange (64 ranks on 64 cores ran "
           "at a quarter or less of 48 ranks' speed, docs/multi-gpu.md); use fewer ranks than "
           "cores";
  }
  return "";
}

}  // namespace mpsfw
