#pragma once
// What the launcher tells a process before MPI_Init: its rank among the ranks
// of this node, how many there are, and which job/step it belongs to. Read
// from the environment of Open MPI, Slurm srun, MPICH/Hydra and PMI.
#include <functional>
#include <string>

namespace mpsfw::mps {

using EnvLookup = std::function<const char*(const char*)>;

struct LauncherInfo {
  bool known = false;  // false: no launcher variables; bring-up waits for MPI_Init
  int local_rank = 0;
  int local_size = 1;
  std::string source;  // "Open MPI", "Slurm", "MPICH/Hydra", "PMI"
  std::string job;     // job id (and step), used to name the session's folders
};

// `env` defaults to getenv; tests pass their own.
LauncherInfo detect_launcher(const EnvLookup& env = nullptr);

// Number of tasks on node `node` from a Slurm list like "2(x3),1".
int slurm_tasks_on_node(const std::string& tasks_per_node, int node);

}  // namespace mpsfw::mps
