#include "heat_report.hpp"

#include "core/memory.hpp"

namespace mpsfw::heat {

RunReport make_report(const HeatSolver& solver, const Params& params, const DeviceBinding& device,
                      const std::string& host_name, const std::vector<std::string>& warnings) {
  const CartDecomposition& d = solver.decomposition();
  MPI_Comm comm = d.comm();
  RunReport r;
  r.solver = "heat";
  r.version = MPSFW_VERSION;
  r.git_revision = MPSFW_GIT_REVISION;
  r.input_hash = file_hash(params.file());
  r.input_file = params.file();
  r.backend = to_string(device.backend);
  r.halo_path = device.backend == Backend::Host
                    ? "host memory"
                    : (solver.halo_staged_through_host()
                           ? "staged through pinned host buffers (MPI is not CUDA-aware)"
                           : "device pointers (CUDA-aware MPI)");
  r.ranks = d.size();
  r.rank_grid = d.rank_grid();
  r.global_cells = d.global_cells();
  const Int3 n = d.local_cells();
  const std::string where = "rank " + std::to_string(d.rank()) + " on " + host_name + ": " +
                            (device.backend == Backend::Cuda
                                 ? "cuda:" + std::to_string(device.gpu) + " " + device.name
                                 : device.name) +
                            ", block " + std::to_string(n.x) + "x" + std::to_string(n.y) + "x" +
                            std::to_string(n.z);
  r.device_per_rank = gather_strings(comm, where);
  r.steps = solver.config().steps;
  r.loop_seconds = reduce_over_ranks(comm, solver.loop_seconds()).max;
  r.updates_per_second =
      r.loop_seconds > 0 ? static_cast<double>(d.global_cells().product()) * static_cast<double>(r.steps) /
                                  r.loop_seconds
                         : 0;
  r.phases = solver.timers().reduce(comm);
  const memory::Usage use = memory::usage();
  r.device_bytes = reduce_over_ranks(comm, static_cast<double>(use.device_peak));
  r.host_bytes = reduce_over_ranks(comm, static_cast<double>(use.host_peak));
  r.peak_rss_bytes = reduce_over_ranks(comm, peak_rss_bytes());
  for (const ParamSpec& s : params.schema()) r.parameters.emplace_back(s.name(), params.as_text(s.name()));
  r.diagnostic_columns = {"step", "time", "total_heat", "max_change"};
  for (const Diagnostics& g : solver.diagnostics()) {
    r.diagnostic_rows.push_back({static_cast<double>(g.step), g.time, g.total_heat, g.max_change});
  }
  r.warnings = warnings;
  return r;
}

}  // namespace mpsfw::heat
