#pragma once
// How many cores the ranks of one node may run on: the union of their CPU
// affinity masks (what mpirun, Slurm or a cgroup left them), not the
// machine's count, so a job given 8 of a node's 64 cores sees 8.
#include <mpi.h>

#include <string>

#include <mpsfw/core/base/backend.hpp>

namespace mpsfw {

// Collective over `node` (the ranks of one node).
int node_cores(MPI_Comm node);

// The run's warning when a node's `ranks` crowd its `cores` (none: ""): more
// ranks than cores; or, with the ranks' data on a GPU (`memory`), as many,
// since the MPS servers and the launcher need cores too.
std::string crowding_note(int ranks, int cores, Backend memory);

}  // namespace mpsfw
