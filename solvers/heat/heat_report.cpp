#include "heat_report.hpp"

namespace mpsfw::heat {

RunReport make_report(const HeatSolver& solver, const Params& params, const DeviceBinding& device,
                      const std::string& host_name, const std::vector<std::string>& warnings) {
  const CartDecomposition& d = solver.decomposition();
  MPI_Comm comm = d.comm();
  RunReport r = start_report("heat", params, device.backend, warnings);
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
                            device_text(device) +
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
  add_memory_usage(comm, &r);
  r.diagnostic_columns = {"step", "time", "total_heat", "max_change"};
  for (const Diagnostics& g : solver.diagnostics()) {
    r.diagnostic_rows.push_back({static_cast<double>(g.step), g.time, g.total_heat, g.max_change});
  }
  return r;
}

}  // namespace mpsfw::heat
