#pragma once
// How many cores the ranks of one node may run on: the union of their CPU
// affinity masks (what mpirun, Slurm or a cgroup left them), not the
// machine's count, so a job given 8 of a node's 64 cores sees 8.
#include <mpi.h>

namespace mpsfw {

// Collective over `node` (the ranks of one node).
int node_cores(MPI_Comm node);

}  // namespace mpsfw
