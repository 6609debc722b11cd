#include "md_report.hpp"

#include <cstdio>

#include "core/memory.hpp"

namespace mpsfw::md {

RunReport make_report(const MdSolver& solver, const Params& params, const DeviceBinding& device,
                      const std::string& host_name, const std::vector<std::string>& warnings) {
  const CartDecomposition& d = solver.decomposition();
  MPI_Comm comm = d.comm();
  const MdConfig& c = solver.config();
  RunReport r;
  r.solver = "md";
  r.version = MPSFW_VERSION;
  r.git_revision = MPSFW_GIT_REVISION;
  r.input_hash = file_hash(params.file());
  r.input_file = params.file();
  r.backend = to_string(device.backend);
  r.halo_path = device.backend == Backend::Host ? "host memory" : "staged through host memory";
  r.ranks = d.size();
  r.rank_grid = d.rank_grid();
  r.global_cells = d.global_cells();
  char problem[160];
  std::snprintf(problem, sizeof problem, "%ld atoms in a %.4g x %.4g x %.4g box, %d x %d x %d link cells",
                solver.total_atoms(), c.box[0], c.box[1], c.box[2], r.global_cells.x,
                r.global_cells.y, r.global_cells.z);
  r.problem = problem;
  const long mine = solver.local_atom_count();
  const std::string where = "rank " + std::to_string(d.rank()) + " on " + host_name + ": " +
                            (device.backend == Backend::Cuda
                                 ? "cuda:" + std::to_string(device.gpu) + " " + device.name
                                 : device.name) +
                            ", " + std::to_string(mine) + " atoms";
  r.device_per_rank = gather_strings(comm, where);
  r.steps = c.steps;
  r.loop_seconds = reduce_over_ranks(comm, solver.loop_seconds()).max;
  r.updates_per_second = r.loop_seconds > 0 ? static_cast<double>(solver.total_atoms()) *
                                                   static_cast<double>(r.steps) / r.loop_seconds
                                             : 0;
  r.throughput_unit = "atom-steps/s";
  r.phases = solver.timers().reduce(comm);
  const memory::Usage use = memory::usage();
  r.device_bytes = reduce_over_ranks(comm, static_cast<double>(use.device_peak));
  r.host_bytes = reduce_over_ranks(comm, static_cast<double>(use.host_peak));
  r.peak_rss_bytes = reduce_over_ranks(comm, peak_rss_bytes());
  for (const ParamSpec& s : params.schema()) r.parameters.emplace_back(s.name(), params.as_text(s.name()));
  r.diagnostic_columns = {"step", "time", "temperature", "potential", "kinetic", "total", "pressure"};
  for (const Thermo& t : solver.thermo()) {
    r.diagnostic_rows.push_back({static_cast<double>(t.step), t.time, t.temperature, t.potential,
                                 t.kinetic, t.total, t.pressure});
  }
  r.warnings = warnings;
  return r;
}

}  // namespace mpsfw::md
