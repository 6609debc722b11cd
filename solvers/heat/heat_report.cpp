#include "heat_report.hpp"

#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw::heat {

namespace {

// How the faces of all ranks travel, e.g. "48 of 48 faces device to device
// (40 from the same GPU, 8 from a peer GPU; CUDA IPC, ordered by ...)".
std::string halo_path(const FieldHalos& halo, const DeviceBinding& device, MPI_Comm comm) {
  const HaloRoutes& routes = halo.routes();
  const int mine[3] = {face_count(routes.direct), face_count(routes.mpi),
                       face_count(routes.peer_gpu)};
  int all[3] = {0, 0, 0};
  MPSFW_MPI_CHECK(MPI_Allreduce(mine, all, 3, MPI_INT, MPI_SUM, comm));
  const std::string mpi_how =
      device.memory == Backend::Host
          ? "host memory"
          : (halo.staged_through_host()
                 ? "staged through pinned host buffers (MPI is not CUDA-aware)"
                 : "device pointers (CUDA-aware MPI)");
  const std::string total = std::to_string(all[0] + all[1]);
  std::string text;
  if (all[0] > 0) {
    const std::string order = describe(routes.ordering);
    const std::string split = all[2] == 0
                                  ? "from same-GPU neighbours ("
                                  : "(" + std::to_string(all[0] - all[2]) + " from the same GPU, " +
                                        std::to_string(all[2]) + " from a peer GPU; ";
    text = std::to_string(all[0]) + " of " + total + " faces device to device " + split +
           "CUDA IPC" + (order.empty() ? std::string() : ", ordered by " + order) + ")";
  }
  if (all[1] > 0 || all[0] == 0) {
    if (!text.empty()) text += "; ";
    text += (all[0] > 0 ? std::to_string(all[1]) + " of " + total + " faces " : std::string()) +
            "MPI, " + mpi_how;
  }
  if (!routes.fallback.empty()) {
    text += " (device-to-device neighbours fell back to MPI: " + routes.fallback + ")";
  }
  return text;
}

}  // namespace

RunReport make_report(const HeatSolver& solver, const Params& params, const DeviceBinding& device,
                      const std::string& host_name, const std::vector<std::string>& warnings) {
  const CartDecomposition& d = solver.decomposition();
  MPI_Comm comm = d.comm();
  const Int3 n = d.local_cells();
  const std::string design = solver.update_design();
  RunReport r =
      start_job_report("heat", params, d, device, host_name,
                       ", block " + std::to_string(n.x) + "x" + std::to_string(n.y) + "x" +
                           std::to_string(n.z) + (design.empty() ? "" : ", update " + design),
                       warnings);
  r.halo_path = halo_path(solver.halo(), device, comm);
  if (device.backend == Backend::Kokkos && solver.halo().routes().direct != 0) {
    r.halo_path += solver.boundary_first() ? " (pushed by a Kokkos kernel, boundary first)"
                                           : " (pushed by a Kokkos kernel after the update)";
  }
  report_loop(solver, comm, solver.timers(), static_cast<double>(d.global_cells().product()), &r);
  r.diagnostic_columns = {"step", "time", "total_heat", "max_change"};
  for (const Diagnostics& g : solver.diagnostics()) {
    r.diagnostic_rows.push_back({static_cast<double>(g.step), g.time, g.total_heat, g.max_change});
  }
  return r;
}

}  // namespace mpsfw::heat
