#include "dry_run.hpp"

#include <algorithm>
#include <vector>

#include <mpsfw/core/base/wall_limit.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/memory_preflight.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/string_gather.hpp>
#include <mpsfw/mps/gpu_inventory.hpp>

namespace mpsfw {
namespace {

// This rank's GPU: MPS's, or the one bind_device takes; none on the host.
mps::GpuInfo rank_gpu(const Session& session) {
  const std::vector<mps::GpuInfo> gpus = mps::visible_gpus();
  const std::string& uuid = session.mps().status().gpu_uuid;
  for (const mps::GpuInfo& g : gpus) {
    if (!uuid.empty() && g.uuid == uuid) return g;
  }
  if (!uuid.empty() || gpus.empty()) return {uuid, "", ""};
  return gpus[static_cast<size_t>(
      gpu_of_local_rank(session.node_rank(), session.node_size(), static_cast<int>(gpus.size())))];
}

// This rank's line: where it runs and what MPS gives it.
std::string rank_line(const Session& session) {
  const mps::MpsStatus& m = session.mps().status();
  const std::string gpu = rank_gpu(session).uuid;
  const bool capped = m.state == mps::MpsState::WouldStart || m.state == mps::MpsState::Reused;
  std::string line = "rank " + std::to_string(session.rank()) + ": host " + session.host() +
                     " (local rank " + std::to_string(session.node_rank()) + " of " +
                     std::to_string(session.node_size()) + "), " +
                     (gpu.empty() ? "no GPU" : "GPU " + gpu) +
                     (capped ? ", MPS cap " + std::to_string(m.cap) + "%" : "");
  if (!m.placement.empty()) line += ", " + m.placement;
  return line;
}

// Where the run's fields will live: the host for the host backend or where
// no GPU is visible, else the GPU.
Backend memory_of(const RunConfig& run) {
  return run.backend == Backend::Host || mps::visible_gpus().empty() ? Backend::Host
                                                                     : Backend::Cuda;
}

// Collective: each of the workload's needs for this rank's block against what
// is free where the ranks share it. Rank 0's lines; `fits` false (on every
// rank) when any rank's share does not fit.
std::vector<std::string> memory_lines(const Session& session, const Workload& workload,
                                      const RunConfig& run, Int3 grid, bool* fits) {
  const CartDecomposition block = block_of_rank(session.world(), workload, grid);
  const Backend memory = memory_of(run);
  std::vector<MemoryNeed> needs;
  std::string error;
  try {
    needs = workload.memory_needs(block, memory);
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree_on_error(session.world(), error);
  std::vector<std::string> lines;
  if (needs.empty()) lines.push_back("memory     not estimated by this workload");
  const mps::GpuInfo gpu = rank_gpu(session);
  // NVML is started once, and only where a need is on the GPU.
  const bool on_gpu = std::any_of(needs.begin(), needs.end(),
                                  [](const MemoryNeed& n) { return n.space == Backend::Cuda; });
  const long long gpu_free = on_gpu ? mps::free_bytes_of(gpu) : -1;
  std::string refusal;
  for (const MemoryNeed& need : needs) {
    HostMemory free;
    if (need.space == Backend::Cuda) {
      free = {gpu_free, gpu_free >= 0 ? "NVML" : ""};
    } else {
      free = available_host_memory();
    }
    const MemoryShare share = share_memory(session.world(), need.space, gpu.uuid, need.bytes, free);
    const std::string text = share.text(need.space, need.bytes, need.what);
    if (!share.fits() && refusal.empty()) refusal = text;
    lines.push_back("memory     " + text + ", as rank 0 sees it");
  }
  const std::vector<std::string> refusals = gather_strings(session.world(), refusal);
  *fits = true;
  for (size_t r = 0; r < refusals.size(); ++r) {
    if (refusals[r].empty()) continue;
    *fits = false;
    lines.push_back(r == 0 ? "memory     too little: the run would be refused"
                           : "memory     too little on rank " + std::to_string(r) + "'s " +
                                 (memory == Backend::Cuda ? "GPU" : "node") + ": " + refusals[r] +
                                 ": the run would be refused");
    break;
  }
  return lines;
}

}  // namespace

bool print_dry_run(const Session& session, const std::string& solver, const RunConfig& run,
                   const Workload& workload, Int3 grid, std::FILE* out) {
  std::string mine;
  run_collectively(session.world(), [&] { mine = rank_line(session); });
  const std::vector<std::string> lines = gather_strings(session.world(), mine);
  bool fits = true;
  const std::vector<std::string> memory = memory_lines(session, workload, run, grid, &fits);
  const Int3 cells = workload.cells_to_split();
  if (session.rank() != 0) return fits;
  const mps::MpsStatus& m = session.mps().status();
  std::fprintf(out, "mpsfw: dry run of %s (solver %s, backend %s, %d ranks)\n",
               session.command_line().input.c_str(), solver.c_str(), to_string(run.backend),
               session.size());
  std::fprintf(out, "  rank grid  %d x %d x %d (of the %d x %d x %d cells the solver splits)\n",
               grid.x, grid.y, grid.z, cells.x, cells.y, cells.z);
  std::fprintf(out, "  steps      %s (run.steps)\n", steps_text(run).c_str());
  std::fprintf(out, "  wall limit %s\n", wall_limit_text(run.wall_limit).c_str());
  const std::string why = m.reason.empty() ? "" : " (" + m.reason + ")";
  std::fprintf(out, "  MPS        %s%s, as rank 0's node sees it\n", mps::to_string(m.state),
               why.c_str());
  for (const std::string& line : lines) std::fprintf(out, "  %s\n", line.c_str());
  for (const std::string& line : memory) std::fprintf(out, "  %s\n", line.c_str());
  if (!fits) {
    std::fprintf(out, "mpsfw: nothing was started; the run would stop at its memory preflight\n");
    return false;
  }
  std::fprintf(out,
               "mpsfw: the input and outputs are valid; nothing was started (no MPS daemon, no "
               "GPU context, no file written): run it without --dry-run\n");
  return true;
}

}  // namespace mpsfw
