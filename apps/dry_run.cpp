#include "dry_run.hpp"

#include <vector>

#include "core/collective.hpp"
#include "core/device.hpp"
#include "core/string_gather.hpp"
#include "mps/gpu_inventory.hpp"

namespace mpsfw {
namespace {

// This rank's line: where it runs and what MPS gives it.
std::string rank_line(const Session& session) {
  const mps::MpsStatus& m = session.mps().status();
  std::string gpu = m.gpu_uuid;
  if (gpu.empty()) {  // MPS off or not needed: the GPU bind_device takes
    const std::vector<mps::GpuInfo> gpus = mps::visible_gpus();
    if (!gpus.empty()) {
      const int mine = gpu_of_local_rank(session.node_rank(), session.node_size(),
                                         static_cast<int>(gpus.size()));
      gpu = gpus[static_cast<size_t>(mine)].uuid;
    }
  }
  const bool capped = m.state == mps::MpsState::WouldStart || m.state == mps::MpsState::Reused;
  std::string line = "rank " + std::to_string(session.rank()) + ": host " + session.host() +
                     " (local rank " + std::to_string(session.node_rank()) + " of " +
                     std::to_string(session.node_size()) + "), " +
                     (gpu.empty() ? "no GPU" : "GPU " + gpu) +
                     (capped ? ", MPS cap " + std::to_string(m.cap) + "%" : "");
  if (!m.placement.empty()) line += ", " + m.placement;
  return line;
}

}  // namespace

void print_dry_run(const Session& session, const std::string& solver, const RunConfig& run,
                   Int3 cells, Int3 grid, std::FILE* out) {
  std::string mine;
  run_collectively(session.world(), [&] { mine = rank_line(session); });
  const std::vector<std::string> lines = gather_strings(session.world(), mine);
  if (session.rank() != 0) return;
  const mps::MpsStatus& m = session.mps().status();
  std::fprintf(out, "mpsfw: dry run of %s (solver %s, backend %s, %d ranks)\n",
               session.command_line().input.c_str(), solver.c_str(), to_string(run.backend),
               session.size());
  std::fprintf(out, "  rank grid  %d x %d x %d (of the %d x %d x %d cells the solver splits)\n",
               grid.x, grid.y, grid.z, cells.x, cells.y, cells.z);
  std::fprintf(out, "  steps      %s (run.steps)\n", steps_text(run).c_str());
  const std::string why = m.reason.empty() ? "" : " (" + m.reason + ")";
  std::fprintf(out, "  MPS        %s%s, as rank 0's node sees it\n", mps::to_string(m.state),
               why.c_str());
  for (const std::string& line : lines) std::fprintf(out, "  %s\n", line.c_str());
  std::fprintf(out,
               "mpsfw: the input and outputs are valid; nothing was started (no MPS daemon, no "
               "GPU context, no file written): run it without --dry-run\n");
}

}  // namespace mpsfw
