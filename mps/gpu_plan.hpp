#pragma once
// Which GPU each local rank of a node uses. mpsfw binds ranks itself (blocks
// of consecutive local ranks per visible GPU) unless the launcher already
// gave each rank its own GPUs (Slurm's --gpu-bind, --gpus-per-task): then a
// rank uses the first GPU it sees, and the node's GPUs are those the ranks
// were given.
#include <string>
#include <vector>

#include "gpu_inventory.hpp"
#include "launcher.hpp"

namespace mpsfw::mps {

struct GpuPlan {
  std::vector<GpuInfo> gpus;  // the node's GPUs in use, in the order of the session's folders
  std::vector<int> ranks;     // local ranks on each of them
  int mine = 0;               // this rank's, an index into gpus
  bool from_launcher = false;
};

// mpsfw's own binding: every rank sees `visible`; blocks (gpu_of_local_rank).
GpuPlan block_plan(const std::vector<GpuInfo>& visible, int local_rank, int local_size);
// The launcher's binding: `seen[r]` is what local rank r sees; each rank
// takes the first; the GPUs in order of first use. Ranks that see none are an
// error (Error). Where every rank sees the same GPUs (CUDA_VISIBLE_DEVICES
// given alike to all: a part of the node, not a binding), block_plan over them.
GpuPlan launcher_plan(const std::vector<std::vector<GpuInfo>>& seen, int local_rank);

// Whether something gave this task a part of the node's GPUs, so that ranks
// may see different ones: CUDA_VISIBLE_DEVICES lists fewer GPUs than Slurm's
// step (or job) has on this node (--gpu-bind, --gpus-per-task), or, outside
// Slurm's GPU allocation, fewer than the node's `node_gpus` (a per-rank
// wrapper script). Then bring-up waits for MPI_Init, where every rank's GPUs
// can be gathered.
bool launcher_binds_gpus(int node_gpus, const EnvLookup& env = nullptr);

}  // namespace mpsfw::mps
