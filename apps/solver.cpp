// solver: the one executable users run.
//   mpirun -np N solver input.h5 [--set k=v ...] [--backend ...] [--output F] [--report F]
// Errors in the input stop every rank with one message and exit code 1;
// errors during the run abort the whole job (no rank left hanging).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/decomposition.hpp"
#include "core/h5_io.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/mpi_check.hpp"
#include "core/mpi_env.hpp"
#include "core/params.hpp"
#include "core/paths.hpp"
#include "core/report.hpp"
#include "mps/launcher.hpp"
#include "mps/mps_config.hpp"
#include "mps/node_session.hpp"
#include "solver_options.hpp"
#include "solvers/heat/heat_config.hpp"
#include "solvers/heat/heat_report.hpp"
#include "solvers/heat/heat_solver.hpp"
#include "solvers/md/md_config.hpp"
#include "solvers/md/md_report.hpp"
#include "solvers/md/md_solver.hpp"

namespace {

using namespace mpsfw;

// Output files must be creatable and must not overwrite the input: checked
// before the run, so a typo costs no compute. `outputs`: (file, its key).
void check_outputs(const SolverOptions& options, const Params& params,
                   const std::vector<std::pair<std::string, std::string>>& outputs) {
  const auto check = [&](const std::string& path, const std::string& origin) {
    check_can_create(path, origin);
    if (same_file(path, options.input)) {
      throw InputError(origin + ": '" + path + "' is the input file; choose another name");
    }
  };
  for (const auto& [file, key] : outputs) {
    if (!file.empty()) check(file, params.value(key).origin);
  }
  if (!options.report_file.empty()) check(options.report_file, "--report " + options.report_file);
}

// What the MPS session did, for the summary and run.json (rank 0 complete).
void add_mps_to_report(const mps::NodeSession& session, MPI_Comm world, RunReport* report) {
  const mps::MpsStatus& m = session.status();
  // Each rank counts itself: verified, and whether MPS was meant for it.
  const bool managed = m.expected > 0;
  int counts[2] = {m.active ? 1 : 0, managed ? 1 : 0}, total[2] = {0, 0};
  MPSFW_MPI_CHECK(MPI_Allreduce(counts, total, 2, MPI_INT, MPI_SUM, world));
  report->mps = m.state + (m.reason.empty() ? "" : " (" + m.reason + ")");
  if (total[1] > 0) {
    report->mps += "; verified clients " + std::to_string(total[0]) + " of " + std::to_string(total[1]);
  }
  auto& d = report->mps_details;
  d.emplace_back("enable", mps::to_string(session.config().enable));
  d.emplace_back("state", m.state);
  d.emplace_back("reason", m.reason);
  d.emplace_back("bring_up", m.bring_up);
  d.emplace_back("owner", m.owner ? "started by mpsfw" : (m.state.rfind("active (reused", 0) == 0 || m.state == "reused" ? "reused" : "none"));
  d.emplace_back("pipe_dir", m.pipe_dir);
  d.emplace_back("verified_clients", std::to_string(total[0]));
  d.emplace_back("expected_clients", std::to_string(total[1]));
  std::string pids;
  for (long p : m.daemon_pids) pids += (pids.empty() ? "" : " ") + std::to_string(p);
  d.emplace_back("daemon_pids", pids);
  pids.clear();
  for (long p : m.server_pids) pids += (pids.empty() ? "" : " ") + std::to_string(p);
  d.emplace_back("server_pids", pids);
  report->mps_per_rank = m.per_rank;
}

// Which solver the input is for: `--set solver=...`, else the file's root
// attribute `solver`, else heat (whose reader then names what is wrong).
std::string workload_of(const SolverOptions& options) {
  for (const std::string& o : options.overrides) {
    if (o.rfind("solver=", 0) == 0) return o.substr(7);
  }
  try {
    h5::Handle file = h5::open_file_readonly(options.input);
    if (h5::has_attribute(file.get(), "solver")) {
      const h5::Scalar s = h5::read_scalar(file.get(), "solver");
      if (s.kind == h5::Scalar::Kind::Text && s.text == "md") return "md";
    }
  } catch (const std::exception&) {
  }
  return "heat";
}

// The end of every run: devices released, the node's MPS daemons stopped,
// then the summary and run.json on rank 0.
int finish(MpiEnv& env, mps::NodeSession& session, const SolverOptions& options,
           const DeviceBinding& device, RunReport report) {
  release_device(device);
  session.teardown(env.node());
  add_mps_to_report(session, env.world(), &report);
  if (env.rank() == 0) {
    print_report(stdout, report);
    if (!options.report_file.empty()) {
      write_text_file_atomically(options.report_file, report_json(report));
      std::printf("run report written to %s\n", options.report_file.c_str());
    }
  }
  return 0;
}

DeviceBinding bind_and_verify(MpiEnv& env, mps::NodeSession& session, Backend backend) {
  DeviceBinding device;
  run_collectively(env.world(), [&] {
    device = bind_device(backend, env.node_rank(), env.node_size(), session.cuda_gate());
  });
  // Verification runs per node; a failure on one node must stop all nodes.
  run_collectively(env.world(), [&] { session.verify(env.node(), device); });
  return device;
}

int run_heat(MpiEnv& env, mps::NodeSession& session, const SolverOptions& options,
             const Params& params, const heat::HeatConfig& config,
             const std::vector<std::string>& warnings) {
  const bool root = env.rank() == 0;
  const DeviceBinding device = bind_and_verify(env, session, config.backend);
  std::unique_ptr<heat::HeatSolver> solver;
  run_collectively(env.world(), [&] {
    solver = std::make_unique<heat::HeatSolver>(config, env.world(), device, mpi_is_cuda_aware());
  });
  if (root) {
    const Int3 g = solver->decomposition().rank_grid();
    std::printf("mpsfw: heat %dx%dx%d cells, %ld steps on %d ranks (%dx%dx%d), backend %s, MPS %s\n",
                config.cells.x, config.cells.y, config.cells.z, config.steps, env.size(), g.x,
                g.y, g.z, to_string(device.backend), session.status().state.c_str());
    std::fflush(stdout);
  }
  solver->run(root ? stdout : nullptr);
  RunReport report = heat::make_report(*solver, params, device, env.host(), warnings);
  // The node's MPS daemons go only after every rank has let go of its GPU.
  solver.reset();
  finish(env, session, options, device, std::move(report));
  if (root && !config.output_file.empty()) {
    std::printf("field snapshots written to %s\n", config.output_file.c_str());
  }
  return 0;
}

int run_md(MpiEnv& env, mps::NodeSession& session, const SolverOptions& options,
           const Params& params, const md::MdConfig& config, const std::vector<std::string>& warnings) {
  const bool root = env.rank() == 0;
  const DeviceBinding device = bind_and_verify(env, session, config.backend);
  std::unique_ptr<md::MdSolver> solver;
  run_collectively(env.world(), [&] {
    solver = std::make_unique<md::MdSolver>(config, env.world(), device);
  });
  if (root) {
    const Int3 g = solver->decomposition().rank_grid();
    std::printf("mpsfw: md %ld atoms, %ld steps on %d ranks (%dx%dx%d), backend %s, MPS %s\n",
                solver->total_atoms(), config.steps, env.size(), g.x, g.y, g.z,
                to_string(device.backend), session.status().state.c_str());
    std::fflush(stdout);
  }
  solver->run(root ? stdout : nullptr);
  RunReport report = md::make_report(*solver, params, device, env.host(), warnings);
  solver.reset();
  return finish(env, session, options, device, std::move(report));
}

int run(MpiEnv& env, mps::NodeSession& session, const SolverOptions& options,
        const std::string& early_error) {
  const bool root = env.rank() == 0;
  const bool help = options.help || options.version;
  const std::string workload = early_error.empty() && !help ? workload_of(options) : "heat";
  std::vector<ParamSpec> schema = workload == "md" ? md::md_schema() : heat::heat_schema();
  for (const ParamSpec& s : mps::mps_schema()) schema.push_back(s);
  Params params(schema);
  heat::HeatConfig heat_config;
  md::MdConfig md_config;
  std::vector<std::string> warnings;
  run_collectively(env.world(), [&] {
    if (!early_error.empty()) throw InputError(early_error);
    if (help) return;
    session.after_mpi(env.node());
    params.read_file(options.input, &warnings);
    for (size_t i = 0; i < options.overrides.size(); ++i) {
      params.apply_override(options.overrides[i], options.origins[i]);
    }
    params.finalize();
    Int3 cells;
    Int3 hint;
    if (workload == "md") {
      md_config = md::md_config_from(params);
      check_outputs(options, params, {{md_config.output_file, "run.output_file"},
                                      {md_config.checkpoint_file, "run.checkpoint_file"}});
      cells = md::link_cells(md_config);
      hint = md_config.rank_grid_hint;
    } else {
      heat_config = heat::heat_config_from(params);
      check_outputs(options, params, {{heat_config.output_file, "run.output_file"}});
      cells = heat_config.cells;
      hint = heat_config.rank_grid_hint;
    }
    try {
      choose_rank_grid(env.size(), hint, cells);  // can the job be split at all?
    } catch (const InputError& e) {
      const std::string why = workload == "md" ? " (an MD rank needs at least one link cell of "
                                                 "md.cutoff + md.skin along each dimension)" : "";
      throw InputError(options.input + ": /run/px, /run/py, /run/pz: " + e.what() + why);
    }
  });
  if (help) {
    if (root && options.version) std::printf("mpsfw %s\n", MPSFW_VERSION);
    if (root && options.help) std::printf("%s", solver_usage().c_str());
    return 0;
  }
  if (root) {
    for (const std::string& w : warnings) std::fprintf(stderr, "mpsfw: warning: %s\n", w.c_str());
  }
  return workload == "md" ? run_md(env, session, options, params, md_config, warnings)
                          : run_heat(env, session, options, params, heat_config, warnings);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mpsfw;
  // Before MPI_Init: the command line and the /mps part of the input, then the
  // node's MPS session. Nothing before the session is ready may touch CUDA, and
  // an MPI library may touch CUDA inside MPI_Init. Errors found here are
  // reported after MPI_Init, once, like every other input error.
  std::string early_error;
  SolverOptions options;
  try {
    options = parse_solver_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    early_error = e.what();
  }
  mps::MpsConfig mps_config;
  mps_config.enable = mps::Enable::Off;
  if (early_error.empty() && !options.help && !options.version) {
    mps_config = mps::read_mps_config(options.input, options.overrides, options.origins,
                                      &early_error);
  }
  mps::NodeSession session = mps::NodeSession::before_mpi(mps_config, mps::detect_launcher());

  MpiEnv env(argc, argv);
  try {
    return run(env, session, options, early_error);
  } catch (const ReportedError&) {
    return 1;
  } catch (const AgreedError& e) {
    // Every rank has the same message: print it once, end normally.
    if (env.rank() == 0) std::fprintf(stderr, "mpsfw: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    // One rank failed on its own: end every rank now rather than leave them
    // waiting. The node leader's watchdog stops the MPS daemons. Under MPS a GPU
    // fault in one rank fails all ranks of that GPU: say which one the server blames.
    MpiEnv::abort_job(e.what() + session.fault_report(e.what()));
  }
}
