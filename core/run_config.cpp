#include "run_config.hpp"

namespace mpsfw {

std::vector<ParamSpec> run_schema() {
  const double inf = std::numeric_limits<double>::infinity();
  constexpr double kMaxRanks1D = 1 << 20;
  return {
      integer_param("run", "steps", true, "", 0, 1e12, "time steps to take"),
      integer_param("run", "output_every", false, "0", 0, inf,
                    "steps between snapshots; 0: first and last only"),
      text_param("run", "output_file", false, "", {}, "HDF5 output file; empty: none"),
      text_param("run", "backend", false, "auto", {"auto", "host", "cuda"}, "where to compute"),
      text_param("run", "halo", false, "auto", {"auto", "mpi", "ipc"},
                 "halos between ranks on one GPU: auto (device to device where the ranks can "
                 "map each other's memory, else MPI), mpi, or ipc (device to device or fail)"),
      text_param("run", "halo_sync", false, "auto", {"auto", "barrier"},
                 "how ranks on one GPU order their device-to-device halos: auto (GPU-side "
                 "waits under MPS, else a host barrier) or barrier (a host barrier every step)"),
      integer_param("run", "px", false, "0", 0, kMaxRanks1D, "ranks along x; 0: chosen by MPI"),
      integer_param("run", "py", false, "0", 0, kMaxRanks1D, "ranks along y; 0: chosen by MPI"),
      integer_param("run", "pz", false, "0", 0, kMaxRanks1D, "ranks along z; 0: chosen by MPI"),
      real_param("run", "progress_seconds", false, "5", 0, true, "seconds between progress lines"),
  };
}

RunConfig run_config_from(const Params& p) {
  RunConfig c;
  c.steps = p.integer("run.steps");
  c.output_every = p.integer("run.output_every");
  c.output_file = p.text("run.output_file");
  c.backend = parse_backend(p.text("run.backend"));
  c.halo = parse_halo_transport(p.text("run.halo"));
  c.halo_sync = parse_halo_sync(p.text("run.halo_sync"));
  c.rank_grid_hint = {static_cast<int>(p.integer("run.px")), static_cast<int>(p.integer("run.py")),
                      static_cast<int>(p.integer("run.pz"))};
  c.progress_seconds = p.real("run.progress_seconds");
  c.input_file = p.file();
  return c;
}

std::vector<ParamSpec> input_schema(const std::vector<std::string>& solver_names,
                                    const std::vector<ParamSpec>& workload_keys) {
  std::vector<ParamSpec> schema = {
      text_param("", "solver", true, "", solver_names, "which solver reads this file")};
  for (const ParamSpec& s : run_schema()) schema.push_back(s);
  for (const ParamSpec& s : workload_keys) schema.push_back(s);
  return schema;
}

}  // namespace mpsfw
