#include "session.hpp"

#include <array>
#include <cstdio>
#include <utility>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/input/deck.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>
#include <mpsfw/core/parallel/node_cores.hpp>
#include <mpsfw/mps/launcher.hpp>

namespace mpsfw {

// What is known before MPI_Init.
struct Session::Start {
  CommandLine command_line;
  std::string error;
  bool usage = false;  // the error is the command line's (exit 2)
  std::unique_ptr<InputAttributes> input;
  mps::MpsConfig mps;
};

Session::Start Session::prepare(CommandLine command_line, std::string error) {
  Start s;
  s.command_line = std::move(command_line);
  s.error = std::move(error);
  s.mps.enable = mps::Enable::Off;  // never MPS from a command line or input we could not read
  const CommandLine& c = s.command_line;
  if (!s.error.empty() || c.help || c.version) return s;
  if (!c.input.empty()) {
    try {
      s.input = std::make_unique<InputAttributes>(
          read_input(c.input, &s.command_line.overrides, &s.command_line.origins));
    } catch (const std::exception& e) {
      s.error = e.what();
      return s;
    }
  }
  s.mps = mps::read_mps_config(s.input.get(), c.overrides, c.origins, &s.error);
  s.mps.plan_only = c.dry_run;
  return s;
}

Session::Start Session::parse(int argc, char** argv, const std::string& program) {
  CommandLine command_line;
  std::string error;
  bool usage = false;
  try {
    command_line = parse_command_line(std::vector<std::string>(argv + 1, argv + argc), program);
  } catch (const UsageError& e) {
    error = e.what();
    usage = true;
  } catch (const std::exception& e) {
    error = e.what();
  }
  Start s = prepare(std::move(command_line), std::move(error));
  s.usage = usage;
  return s;
}

Session::Session(int& argc, char**& argv, const std::string& program)
    : Session(argc, argv, parse(argc, argv, program)) {}

Session::Session(int& argc, char**& argv, CommandLine command_line)
    : Session(argc, argv, prepare(std::move(command_line), "")) {}

namespace {

std::string joined(int argc, char** argv) {
  std::string text;
  for (int i = 0; i < argc; ++i) text += (i ? " " : "") + std::string(argv[i]);
  return text;
}
}  // namespace

Session::Session(int& argc, char**& argv, Start start)
    : command_line_(std::move(start.command_line)),
      command_text_(joined(argc, argv)),
      early_error_(std::move(start.error)),
      usage_error_(start.usage),
      input_(std::move(start.input)),
      node_session_(mps::NodeSession::before_mpi(start.mps, mps::detect_launcher())),
      mpi_init_start_(std::chrono::steady_clock::now()),
      env_(argc, argv) {
  node_session_.add_seconds(mps::MpsStep::MpiInit, mps::seconds_since(mpi_init_start_));
  settle();
}

void Session::settle() {
  try {
    run_collectively(env_.world(), [&] {
      if (!early_error_.empty()) throw InputError(early_error_);
      node_session_.after_mpi(env_.node());
    });
  } catch (...) {
    pending_ = std::current_exception();
  }
}

int Session::run(const std::function<int()>& body) {
  try {
    if (pending_) std::rethrow_exception(pending_);
    const int code = body();
    finish();
    return code;
  } catch (const ReportedError&) {
    end_ = End::Abandoned;
    return usage_error_ ? kUsageExitCode : 1;
  } catch (const AgreedError& e) {
    // Every rank has the same message: print it once, end normally.
    if (env_.rank() == 0) std::fprintf(stderr, "mpsfw: error: %s\n", e.what());
    end_ = End::Abandoned;
    return usage_error_ ? kUsageExitCode : 1;
  } catch (const std::exception& e) {
    // One rank failed on its own: end every rank now rather than leave them
    // waiting. The node leader's watchdog stops the MPS daemons. Under MPS a GPU
    // fault in one rank fails all ranks of that GPU: say which one the server blames.
    MpiEnv::abort_job(e.what() + node_session_.fault_report(e.what()));
  }
}

void Session::balance_mps_caps(double work) {
  if (pending_) std::rethrow_exception(pending_);
  node_session_.balance_caps(env_.node(), work);
}

const DeviceBinding& Session::bind(Backend requested) {
  if (pending_) std::rethrow_exception(pending_);
  const int cores = node_cores(env_.node());
  const bool crowded = env_.node_size() > cores;
  run_collectively(env_.world(), [&] {
    const auto start = std::chrono::steady_clock::now();
    device_ = bind_device(requested, env_.node_rank(), env_.node_size(), node_session_.cuda_gate(),
                          command_line_.kokkos_options);
    device_.crowded = crowded;
    device_.crowding = crowding_note(env_.node_size(), cores, device_.memory);
    apply_wait_policy(device_);
    // A client of mpsfw's per-GPU daemon sees only its GPU: the session's
    // probe knows which of the node's others it reaches.
    if (device_.memory == Backend::Cuda && device_.peer_gpus.empty())
      device_.peer_gpus = node_session_.status().peer_gpus;
    node_session_.add_seconds(mps::MpsStep::Bind, mps::seconds_since(start));
  });
  bound_ = true;
  // Verification runs per node; a failure on one node must stop all nodes.
  run_collectively(env_.world(), [&] { node_session_.verify(env_.node(), device_); });
  return device_;
}

void Session::finish() {
  if (end_ != End::Running) return;
  end_ = End::Finished;
  if (bound_) {
    const auto start = std::chrono::steady_clock::now();
    release_device(device_);
    node_session_.add_seconds(mps::MpsStep::Release, mps::seconds_since(start));
  }
  // The node's daemons go only after every local rank has let go of its GPU.
  node_session_.teardown(env_.node());
}

void Session::add_mps_to_report(RunReport* report) const {
  const mps::MpsStatus& m = node_session_.status();
  // Each rank counts itself: verified, and whether MPS was meant for it.
  const bool managed = m.expected > 0;
  int counts[2] = {m.active ? 1 : 0, managed ? 1 : 0}, total[2] = {0, 0};
  MPSFW_MPI_CHECK(MPI_Allreduce(counts, total, 2, MPI_INT, MPI_SUM, env_.world()));
  report->mps =
      std::string(mps::to_string(m.state)) + (m.reason.empty() ? "" : " (" + m.reason + ")");
  if (total[1] > 0) {
    report->mps +=
        "; verified clients " + std::to_string(total[0]) + " of " + std::to_string(total[1]);
  }
  auto& d = report->mps_details;
  d.emplace_back("enable", mps::to_string(node_session_.config().enable));
  d.emplace_back("state", mps::to_string(m.state));
  d.emplace_back("reason", m.reason);
  d.emplace_back("bring_up", m.bring_up);
  const bool reused = m.state == mps::MpsState::ActiveReused || m.state == mps::MpsState::Reused;
  d.emplace_back("owner", m.owner ? "started by mpsfw" : (reused ? "reused" : "none"));
  d.emplace_back("pipe_dir", m.pipe_dir);
  d.emplace_back("cpu_placement", m.placement.empty() ? "left to the launcher" : m.placement);
  report->mps_verified_clients = total[0];
  report->mps_expected_clients = total[1];
  report->mps_daemon_pids = m.daemon_pids;
  report->mps_server_pids = m.server_pids;
  report->mps_per_rank = m.per_rank;
  report->mps_ranks = m.rank_records;
  // Each step's slowest rank: the seconds an MPS job's start and end cost.
  std::array<double, mps::kMpsSteps> slowest{};
  MPSFW_MPI_CHECK(MPI_Allreduce(m.seconds.data(), slowest.data(), static_cast<int>(mps::kMpsSteps),
                                MPI_DOUBLE, MPI_MAX, env_.world()));
  for (size_t i = 0; i < mps::kMpsSteps; ++i) {
    if (slowest[i] <= 0) continue;
    report->mps_seconds.emplace_back(mps::to_string(static_cast<mps::MpsStep>(i)), slowest[i]);
  }
}

Session::~Session() {
  if (end_ != End::Running) return;  // finished, or the daemons are the watchdog's
  if (std::uncaught_exceptions() > 0) {
    // Other ranks may be anywhere: a collective teardown could hang them.
    MpiEnv::abort_job(
        "an exception left the scope of mpsfw::Session (use Session::run to "
        "report errors)");
  }
  try {
    finish();
  } catch (const std::exception& e) {
    MpiEnv::abort_job(std::string("ending the session: ") + e.what());
  }
}

}  // namespace mpsfw
