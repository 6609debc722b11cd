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
#include "core/mpi_env.hpp"
#include "core/params.hpp"
#include "core/paths.hpp"
#include "core/report.hpp"
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

int run(MpiEnv& env, int argc, char** argv) {
  const bool root = env.rank() == 0;
  SolverOptions options;
  Params params(heat::heat_schema());
  heat::HeatConfig config;
  std::vector<std::string> warnings;
  run_collectively(env.world(), [&] {
    options = parse_solver_options(std::vector<std::string>(argv + 1, argv + argc));
    if (options.help || options.version) return;
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
    device = bind_device(config.backend, env.node_rank(), env.node_size());
    solver = std::make_unique<heat::HeatSolver>(config, env.world(), device, mpi_is_cuda_aware());
  });
  if (root) {
    const Int3 g = solver->decomposition().rank_grid();
    std::printf("mpsfw: heat %dx%dx%d cells, %ld steps on %d ranks (%dx%dx%d), backend %s\n",
                config.cells.x, config.cells.y, config.cells.z, config.steps, env.size(), g.x,
                g.y, g.z, to_string(device.backend));
    std::fflush(stdout);
  }
  solver->run(root ? stdout : nullptr);

  const RunReport report = heat::make_report(*solver, params, device, env.host(), warnings);
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
  mpsfw::MpiEnv env(argc, argv);
  try {
    return run(env, argc, argv);
  } catch (const mpsfw::ReportedError&) {
    return 1;
  } catch (const mpsfw::AgreedError& e) {
    // Every rank has the same message: print it once, end normally.
    if (env.rank() == 0) std::fprintf(stderr, "mpsfw: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    // One rank failed on its own: end every rank now rather than leave them waiting.
    mpsfw::MpiEnv::abort_job(e.what());
  }
}
