#include "gpu_plan.hpp"

#include <algorithm>
#include <cstdlib>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/device.hpp>

namespace mpsfw::mps {

GpuPlan block_plan(const std::vector<GpuInfo>& visible, int local_rank, int local_size) {
  GpuPlan plan;
  plan.gpus = visible;
  const int n = static_cast<int>(visible.size());
  for (int g = 0; g < n; ++g) plan.ranks.push_back(local_ranks_on_gpu(g, local_size, n));
  plan.mine = gpu_of_local_rank(local_rank, local_size, n);
  return plan;
}

GpuPlan launcher_plan(const std::vector<std::vector<GpuInfo>>& seen, int local_rank) {
  // The same GPUs everywhere: CUDA_VISIBLE_DEVICES was given alike to every
  // rank, not rank by rank. Each taking the first would put all on one GPU.
  const auto same_as_first = [&](const std::vector<GpuInfo>& view) {
    return view.size() == seen.front().size() &&
           std::equal(view.begin(), view.end(), seen.front().begin(),
                      [](const GpuInfo& a, const GpuInfo& b) { return a.uuid == b.uuid; });
  };
  if (!seen.empty() && !seen.front().empty() &&
      std::all_of(seen.begin(), seen.end(), same_as_first)) {
    return block_plan(seen.front(), local_rank, static_cast<int>(seen.size()));
  }
  GpuPlan plan;
  plan.from_launcher = true;
  for (size_t r = 0; r < seen.size(); ++r) {
    if (seen[r].empty()) {
      throw Error("MPS: local rank " + std::to_string(r) +
                  " sees no GPU while the launcher gave the others theirs");
    }
    const GpuInfo& first = seen[r].front();
    const auto at = std::find_if(plan.gpus.begin(), plan.gpus.end(),
                                 [&](const GpuInfo& g) { return g.uuid == first.uuid; });
    const size_t g = static_cast<size_t>(at - plan.gpus.begin());
    if (at == plan.gpus.end()) {
      plan.gpus.push_back(first);
      plan.ranks.push_back(0);
    }
    ++plan.ranks[g];
    if (static_cast<int>(r) == local_rank) plan.mine = static_cast<int>(g);
  }
  return plan;
}

namespace {
int entries(const char* list) {
  if (list == nullptr || *list == '\0') return 0;
  int n = 1;
  for (const char* c = list; *c; ++c) n += *c == ',' ? 1 : 0;
  return n;
}
}  // namespace

bool launcher_binds_gpus(int node_gpus, const EnvLookup& given) {
  const EnvLookup env = given ? given : [](const char* n) { return std::getenv(n); };
  const char* step = env("SLURM_STEP_GPUS");
  if (step == nullptr || *step == '\0') step = env("SLURM_JOB_GPUS");
  const char* visible = env("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr || entries(visible) == 0) return false;
  const int given_to_job = entries(step) > 0 ? entries(step) : node_gpus;
  return entries(visible) < given_to_job;
}

}  // namespace mpsfw::mps
