#include "solver_main.hpp"

#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dry_run.hpp"
#include "input_writer.hpp"
#include "output_lock.hpp"
#include "session.hpp"
#include <mpsfw/core/base/atomic_file.hpp>
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/paths.hpp>
#include <mpsfw/core/base/wall_limit.hpp>
#include <mpsfw/core/device/build_info.hpp>
#include <mpsfw/core/device/kokkos_options.hpp>
#include <mpsfw/core/device/kokkos_runtime.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/core/input/checkpoint.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/stop_request.hpp>

namespace mpsfw {
namespace {

// Which workload the input is for: `--set solver=...`, else the input's root
// attribute `solver`, checked like every other key.
std::string workload_name(const Session& session, const WorkloadRegistry& workloads) {
  Params solver(
      {text_param("", "solver", true, "", workloads.names(), "which solver reads this file")});
  solver.read(*session.input(), nullptr);
  const CommandLine& c = session.command_line();
  for (size_t i = 0; i < c.overrides.size(); ++i) {
    if (c.overrides[i].rfind("solver=", 0) == 0)
      solver.apply_override(c.overrides[i], c.origins[i]);
  }
  solver.finalize();
  return solver.text("solver");
}

// Output files must be creatable, must not overwrite the input or a deck
// (--set-file) and must be different files: checked before the run, so a
// typo costs no compute and no output replaces another. The checkpoint may be
// the input (resuming from the one rotating checkpoint): the input is read
// before the first checkpoint replaces it by a rename. Returns the outputs.
std::vector<NamedPath> check_outputs(const Session& session, const Params& params,
                                     const Workload& workload) {
  const std::string& input = session.command_line().input;
  std::vector<NamedPath> outputs;
  const auto check = [&](const std::string& path, const std::string& origin, bool may_be_input) {
    check_can_create(path, origin);
    if (!may_be_input && same_file(path, input)) {
      throw InputError(origin + ": '" + path + "' is the input file; choose another name");
    }
    for (const std::string& deck : session.command_line().decks) {
      if (!same_file(path, deck)) continue;
      throw InputError(origin + ": '" + path + "' is the deck --set-file " + deck +
                       "; choose another name");
    }
    outputs.push_back({origin, path});
  };
  for (const auto& [file, key] : workload.output_files()) {
    if (file.empty()) continue;
    // A file made beside the key's own (an .xmf, a resumed run's name) says so.
    const bool own = file == params.text(key);
    const std::string& origin = params.value(key).origin;
    check(file, own ? origin : origin + " (writing '" + file + "')",
          own && key == "run.checkpoint_file");
  }
  const std::string& report = session.command_line().report_file;
  if (!report.empty()) check(report, "--report " + report, false);
  check_distinct_files(outputs);
  // Numbered checkpoints are named only when written: no output may take
  // one of their names.
  const RunConfig& run = workload.run_config();
  if (run.checkpoint_keep > 1) {
    for (const NamedPath& o : outputs) {
      if (!is_numbered_checkpoint_of(run.checkpoint_file, o.path)) continue;
      throw InputError(o.origin + ": '" + o.path + "' has the name of a numbered checkpoint of " +
                       params.value("run.checkpoint_file").origin +
                       " (run.checkpoint_keep = " + std::to_string(run.checkpoint_keep) +
                       " writes " + CheckpointPlan(run).path_for(0) +
                       " for step 0, and so on); choose " + "another name");
    }
  }
  return outputs;
}

// Every key of the inputs of `only` (all registered solvers when empty): the
// shared ones once (root, /run, /mps), then each solver's own.
std::string list_keys(const WorkloadRegistry& workloads, const std::string& only) {
  std::vector<std::string> names = workloads.names();
  if (!only.empty()) names = {workloads.find(only, "--list-keys=" + only).name};
  const auto line = [](const ParamSpec& s) {
    const std::string value =
        s.required ? "required" : "default " + (s.fallback.empty() ? "\"\"" : s.fallback);
    return "  " + s.name() + "  " + value + "; " + s.expected() + "\n";
  };
  std::string out = "Keys every input has (root, /run) and /mps:\n";
  for (const ParamSpec& s : input_schema(workloads.names(), {})) out += line(s);
  for (const ParamSpec& s : mps::mps_schema()) out += line(s);
  for (const std::string& name : names) {
    out += "Keys of solver = " + name + ":\n";
    for (const ParamSpec& s : workloads.find(name, "--list-keys").keys()) out += line(s);
  }
  return out;
}

struct Prepared {
  const WorkloadSpec* spec = nullptr;
  std::unique_ptr<Workload> workload;
  std::unique_ptr<Params> params;
  std::vector<std::string> warnings;
  Int3 rank_grid;
  std::vector<NamedPath> outputs;
};

// Collective: the input checked on every rank, or one message and exit 1.
Prepared prepare(const Session& session, const WorkloadRegistry& workloads) {
  Prepared p;
  run_collectively(session.world(), [&] {
    const WorkloadSpec& spec = workloads.find(workload_name(session, workloads), "solver");
    p.spec = &spec;
    p.params = std::make_unique<Params>(input_keys(workloads, spec.name));
    p.params->read(*session.input(), &p.warnings);
    const CommandLine& c = session.command_line();
    for (size_t i = 0; i < c.overrides.size(); ++i)
      p.params->apply_override(c.overrides[i], c.origins[i]);
    p.params->finalize();
    p.workload = spec.create();
    p.workload->configure(*p.params);
    for (std::string& w : p.workload->input_warnings()) p.warnings.push_back(std::move(w));
    p.outputs = check_outputs(session, *p.params, *p.workload);
    const RunConfig& run = p.workload->run_config();
    // Before check_backend: a build without Kokkos names the option given.
    check_kokkos_options(c.kokkos_options, run.backend, p.params->value("run.backend").origin);
    check_backend(spec, run.backend, p.params->value("run.backend").origin);
    try {
      p.rank_grid = choose_rank_grid(session.size(), run.rank_grid_hint,
                                     p.workload->cells_to_split(), p.workload->x_face_cost());
    } catch (const InputError& e) {
      const std::string hint = p.workload->split_hint();
      throw InputError(c.input + ": /run/px, /run/py, /run/pz: " + e.what() +
                       (hint.empty() ? "" : " (" + hint + ")"));
    }
  });
  return p;
}

// Collective: rank 0 writes --report's file, if asked for (a full disk is
// one message, not an abort of rank 0).
void write_report_file(const Session& session, const RunReport& report) {
  const std::string& file = session.command_line().report_file;
  if (file.empty()) return;
  run_collectively(session.world(), [&] {
    if (session.rank() == 0) write_text_file_atomically(file, report_json(report));
  });
}

int run_workload(Session& session, const WorkloadRegistry& workloads, const std::string& program) {
  const bool root = session.rank() == 0;
  const CommandLine& c = session.command_line();
  if (c.help || c.version) {
    if (root && c.version) std::printf("%s", build_description(program).c_str());
    if (root && c.help) {
      std::printf("%s", command_line_usage(program).c_str());
      std::printf("Solvers (the input's root attribute `solver`):\n");
      for (const WorkloadSpec& s : workloads.specs()) {
        std::printf("  %-8s %s\n", s.name.c_str(), s.summary.c_str());
      }
    }
    return 0;
  }
  Prepared p = prepare(session, workloads);
  if (root) {
    for (const std::string& w : p.warnings) std::fprintf(stderr, "mpsfw: warning: %s\n", w.c_str());
  }
  // A checkpoint of the run's last step (a job chain's next link after the run
  // ended) is not an error: say how to go on and start nothing (no device, no
  // outputs but the report, which says "nothing to run"). A fresh input with
  // run.steps = 0 still runs: its report is how scripts/sweep.py reads the
  // problem's size.
  const RunConfig& run = p.workload->run_config();
  if (run.start_step > 0 && run.start_step >= run.steps) {
    RunReport report = start_report(p.spec->name, *p.params, run.backend, p.warnings);
    report.ranks = session.size();
    report.rank_grid = p.rank_grid;
    add_job_facts(session.world(), session.host(), session.command_text(), &report);
    report.ended = "nothing to run";
    report.end_step = run.start_step;
    report.checkpoint = c.input;
    write_report_file(session, report);
    if (root) {
      std::printf(
          "mpsfw: the checkpoint %s is at step %ld and run.steps = %ld: nothing to run; set "
          "run.steps above %ld to continue (--set run.steps=%ld)\n",
          c.input.c_str(), run.start_step, run.steps, run.start_step, 2 * run.start_step);
      if (!c.report_file.empty()) std::printf("run report written to %s\n", c.report_file.c_str());
    }
    return 0;
  }
  // Balanced MPS caps need each rank's work: known now, before CUDA starts.
  if (session.mps().config().balanced) {
    double work = 0;
    run_collectively(session.world(), [&] {
      work = p.workload->work_of(block_of_rank(session.world(), *p.workload, p.rank_grid));
    });
    session.balance_mps_caps(work);
  }
  if (c.dry_run) {
    return print_dry_run(session, p.spec->name, run, *p.workload, p.rank_grid,
                         root ? stdout : nullptr)
               ? 0
               : 1;
  }
  // One writer per output: a second job given the same files is refused
  // here, before the device starts (output_lock.hpp). Released on return.
  OutputLocks locks(session.host());
  run_collectively(session.world(), [&] {
    if (!root) return;
    for (const NamedPath& o : p.outputs) locks.take(o.path, o.origin);
  });
  for (const std::string& w : locks.warnings()) {
    p.warnings.push_back(w);
    std::fprintf(stderr, "mpsfw: warning: %s\n", w.c_str());
  }
  RunContext context;
  context.world = session.world();
  context.device = session.bind(backend_to_bind(*p.spec, run.backend));
  if (!context.device.crowding.empty()) {
    p.warnings.push_back(context.device.crowding);
    if (root) std::fprintf(stderr, "mpsfw: warning: %s\n", context.device.crowding.c_str());
  }
  context.host = session.host();
  context.cuda_aware_mpi = mpi_is_cuda_aware(run.cuda_aware_mpi);
  run_collectively(session.world(), [&] { p.workload->start(context); });
  if (root) {
    std::printf("mpsfw: %s, backend %s, MPS %s\n", p.workload->banner().c_str(),
                to_string(context.device.backend), mps::to_string(session.mps().status().state));
    if (run.wall_limit.set()) {
      std::printf("mpsfw: wall limit %s: the run stops in time to write its checkpoint (exit %d)\n",
                  wall_limit_text(run.wall_limit).c_str(), kWallLimitExitCode);
    }
    std::fflush(stdout);
  }
  Steppable& state = p.workload->stepper();
  run_time_loop(state, root ? stdout : nullptr);
  const int stopped_by = state.loop().stop_signal;
  const bool wall_stop = state.loop().wall_limit;
  const long end_step = state.loop().end_step;
  const std::string checkpoint = state.loop().checkpoint;
  RunReport report = p.workload->report(*p.params, context, p.warnings);
  add_job_facts(session.world(), session.host(), session.command_text(), &report);
  const WeakScaling weak = p.workload->weak_scaling();
  report.weak_scaling_keys = weak.keys;
  report.weak_scaling_refusal = weak.refusal;
  report.ended = stopped_by != 0 || wall_stop ? "stopped" : "completed";
  report.stop_signal = stopped_by != 0 ? stop_signal_name(stopped_by) : "";
  report.wall_limit = wall_stop ? run.wall_limit.source : "";
  report.end_step = end_step;
  report.checkpoint = checkpoint;
  p.workload->stop();
  session.finish();
  session.add_mps_to_report(&report);
  if (root) print_report(stdout, report);
  write_report_file(session, report);
  if (root) {
    if (!c.report_file.empty()) std::printf("run report written to %s\n", c.report_file.c_str());
    for (const std::string& line : p.workload->closing_lines()) std::printf("%s\n", line.c_str());
    if (stopped_by != 0 || wall_stop) {
      const std::string saved = checkpoint.empty()
                                    ? "no checkpoint (run.checkpoint_file is not set)"
                                    : "checkpoint " + checkpoint + " resumes it";
      std::printf("mpsfw: stopped by %s at step %ld; %s\n", stop_cause(report).c_str(), end_step,
                  saved.c_str());
    }
  }
  if (wall_stop) return kWallLimitExitCode;
  return stopped_by != 0 ? stop_exit_code(stopped_by) : 0;
}

}  // namespace

int solver_main_with_docs(int argc, char** argv, const WorkloadRegistry& workloads,
                          const std::string& default_name, const std::string& package_docs) {
  // Help, version and errors name the program as it was called.
  const std::string program = program_name(argc > 0 ? argv[0] : nullptr, default_name);
  note_package_docs(package_docs);
  // Outputs report a full disk or a file-size limit (EFBIG instead of being
  // killed by SIGXFSZ) as one error; HDF5 prints no error stack of its own.
  std::signal(SIGXFSZ, SIG_IGN);
  // From the first instruction on, a stop signal ends the run at a step
  // boundary with its checkpoint and report (stop_request.hpp), instead of
  // killing it: one that comes during MPI_Init or MPS bring-up (a scheduler's
  // early --signal) stops the run after its first step.
  install_stop_handlers();
  h5::prepare_library();
  // --write-input needs neither MPI nor a GPU. A command line that does not
  // parse is the session's to report, once, after MPI_Init.
  CommandLine c;
  bool parsed = true;
  try {
    c = parse_command_line(std::vector<std::string>(argv + 1, argv + argc), program);
  } catch (const std::exception&) {
    parsed = false;
  }
  // Kokkos 4 ends the process after its help (inside Kokkos::initialize): so
  // it is printed here, before MPI starts, as --list-keys is.
  if (parsed && c.kokkos_help) {
    try {
      if (c.help) std::fputs(command_line_usage(program).c_str(), stdout);
      check_kokkos_built(c.kokkos_options);
      kokkos_print_help(c.kokkos_options);
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mpsfw: error: %s\n", e.what());
      return 1;
    }
  }
  if (parsed && c.list_keys) {
    try {
      std::fputs(list_keys(workloads, c.list_keys_of).c_str(), stdout);
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mpsfw: error: %s\n", e.what());
      return 1;
    }
  }
  if (parsed && !c.describe.empty()) {
    try {
      const std::string text =
          c.as_set ? describe_input_as_deck(c.describe) : describe_input_file(c.describe);
      std::fputs(text.c_str(), stdout);
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mpsfw: error: %s\n", e.what());
      return 1;
    }
  }
  if (parsed && !c.write_input.empty()) {
    try {
      const std::vector<std::string> names = workloads.names();
      write_workload_input(workloads, c.write_input, {c.overrides, c.origins},
                           names.empty() ? "" : names[0], c.force);
      std::printf("wrote %s\n", c.write_input.c_str());
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mpsfw: error: %s\n", e.what());
      return 1;
    }
  }
  Session session(argc, argv, program);
  return session.run([&] { return run_workload(session, workloads, program); });
}

}  // namespace mpsfw
