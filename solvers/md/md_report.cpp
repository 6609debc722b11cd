#include "md_report.hpp"

#include <cstdio>

namespace mpsfw::md {

RunReport make_report(const MdSolver& solver, const Params& params, const DeviceBinding& device,
                      const std::string& host_name, const std::vector<std::string>& warnings) {
  const CartDecomposition& d = solver.decomposition();
  MPI_Comm comm = d.comm();
  const MdConfig& c = solver.config();
  RunReport r =
      start_job_report("md", params, d, device, host_name,
                       ", " + std::to_string(solver.local_atom_count()) + " atoms", warnings);
  r.halo_path = "ghosts " + solver.ghost_path();
  char problem[160];
  std::snprintf(problem, sizeof problem,
                "%ld atoms in a %.4g x %.4g x %.4g box, %d x %d x %d link cells",
                solver.total_atoms(), c.box[0], c.box[1], c.box[2], r.global_cells.x,
                r.global_cells.y, r.global_cells.z);
  r.problem = problem;
  std::snprintf(problem, sizeof problem,
                ", neighbour lists to %.4g (cutoff + skin): %ld rebuilds in %ld steps",
                ghost_width(c), solver.rebuilds(), solver.step() - c.start_step);
  r.problem += problem;
  report_loop(solver, comm, solver.timers(), static_cast<double>(solver.total_atoms()), &r);
  r.throughput_unit = "atom-steps/s";
  r.diagnostic_columns = {"step",    "time",  "temperature", "potential",
                          "kinetic", "total", "pressure"};
  for (const Thermo& t : solver.thermo()) {
    r.diagnostic_rows.push_back({static_cast<double>(t.step), t.time, t.temperature, t.potential,
                                 t.kinetic, t.total, t.pressure});
  }
  return r;
}

}  // namespace mpsfw::md
