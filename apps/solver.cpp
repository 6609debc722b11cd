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

namespace {

using namespace mpsfw;

// Output files must be creatable and must not overwrite the input: checked
// before the run, so a typo costs no compute.
void check_outputs(const SolverOptions& options, const Params& params,
                   const heat::HeatConfig& config) {
  const auto check = [&](const std::string& path, const std::string& origin) {
    check_can_create(path, origin);
    if (same_file(path, options.input)) {
      throw InputError(origin + ": '" + path + "' is the input file; choose another name");
    }
  };
  if (!config.output_file.empty()) {
    check(config.output_file, params.value("run.output_file").origin);
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

int run(MpiEnv& env, mps::NodeSession& session, const SolverOptions& options,
        const std::string& early_error) {
  const bool root = env.rank() == 0;
  std::vector<ParamSpec> schema = heat::heat_schema();
  for (const ParamSpec& s : mps::mps_schema()) schema.push_back(s);
  Params params(schema);
  heat::HeatConfig config;
  std::vector<std::string> warnings;
  run_collectively(env.world(), [&] {
    if (!early_error.empty()) throw InputError(early_error);
    if (options.help || options.version) return;
    session.after_mpi(env.node());
    params.read_file(options.input, &warnings);
    for (size_t i = 0; i < options.overrides.size(); ++i) {
      params.apply_override(options.overrides[i], options.origins[i]);
    }
    params.finalize();
    config = heat::heat_config_from(params);
    check_outputs(options, params, config);
    try {
      choose_rank_grid(env.size(), config.rank_grid_hint, config.cells);
    } catch (const InputError& e) {
      throw InputError(options.input + ": /run/px, /run/py, /run/pz: " + e.what());
    }
  });
  if (options.help || options.version) {
    if (root && options.version) std::printf("mpsfw %s\n", MPSFW_VERSION);
    if (root && options.help) std::printf("%s", solver_usage().c_str());
    return 0;
  }
  if (root) {
    for (const std::string& w : warnings) std::fprintf(stderr, "mpsfw: warning: %s\n", w.c_str());
  }

  DeviceBinding device;
  std::unique_ptr<heat::HeatSolver> solver;
  run_collectively(env.world(), [&] {
    device = bind_device(config.backend, env.node_rank(), env.node_size(), session.cuda_gate());
  });
  // Verification runs per node; a failure on one node must stop all nodes.
  run_collectively(env.world(), [&] { session.verify(env.node(), device); });
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
  release_device(device);
  session.teardown(env.node());
  add_mps_to_report(session, env.world(), &report);
  if (root) {
    print_report(stdout, report);
    if (!options.report_file.empty()) {
      write_text_file_atomically(options.report_file, report_json(report));
      std::printf("run report written to %s\n", options.report_file.c_str());
    }
    if (!config.output_file.empty()) {
      std::printf("field snapshots written to %s\n", config.output_file.c_str());
    }
  }
  return 0;
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
