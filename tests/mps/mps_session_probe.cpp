// mps_session_probe: the node's MPS session through mpsfw::Session, as every
// mpsfw program (apps/solver, a user's solver) uses it: MPS up before
// MPI_Init, errors and teardown by Session::run. It uses no CUDA at all: no
// bind, so no verification. Each rank prints what the session exported; the
// test scripts in this folder check those lines against the MPS test double's
// record.
//
//   mps_session_probe [--enable auto|on|off] [--atp N|auto|balanced] [--policy double|even]
//                     [--pinned SIZE] [--dir ROOT] [--timeout S] [--placement near_gpu|launcher]
//                     [--hold S] [--work W0,W1,...]
//                     [--fail-rank R --fail-mode MODE [--fail-phase PHASE]]
//   mps_session_probe [--dir ROOT] --session-dir-of JOB   (no MPI: prints the folder)
//
// MODE: throw       the rank throws outside any collective step: Session::run
//                   ends the job with MPI_Abort
//       collective  the rank throws inside run_collectively: every rank leaves
//                   with exit code 1 and no teardown (the watchdog's path)
//       abort       MPI_Abort(MPI_COMM_WORLD, 3)
//       sigterm     the rank sends itself SIGTERM
//       sigkill     the rank sends itself SIGKILL
// The failure comes after the PROBE lines, before teardown.
// --work: rank R's work is WR, handed to Session::balance_mps_caps before
// the PROBE line (as the solver hands its workload's).
//
// Output, one line per rank and event (values never contain spaces except the
// last field of a line):
//   PROBE rank=R node_rank=N node_size=S launcher=SRC local=L/LS state=ST owner=0|1
//         pipe=P log=D cvd=V atp=A pinned=M pinned_read=M daemon=PID answers=0|1
//         gpu=UUID cap=C daemons=PIDS cpus=LIST bring_up=TEXT
// (pinned: CUDA_MPS_PINNED_DEVICE_MEM_LIMIT; pinned_read: the daemon's limit, read back)
//   REASON rank=R TEXT
//   FINAL rank=R state=ST owner=0|1 teardown_exit=S reason=TEXT   (after teardown; S:
//         mps_details.seconds' teardown_exit of this rank, 0 unless it stopped daemons)
// Unset variables print as "-"; spaces in states print as "_" ("NOT_active").
#include <execinfo.h>
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/text_fields.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>
#include <mpsfw/mps/control.hpp>
#include <mpsfw/mps/launcher.hpp>
#include <mpsfw/mps/mps_config.hpp>
#include <mpsfw/mps/node_session.hpp>
#include <mpsfw/runtime/session.hpp>

namespace {

using namespace mpsfw;

struct Options {
  std::vector<std::string> overrides, origins;
  int fail_rank = -1;
  std::string fail_mode;
  double hold_seconds = 0;
  std::string session_dir_of;
  std::vector<double> works;  // --work, by world rank
};

Options parse(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw InputError(a + ": missing value");
      return args[++i];
    };
    const auto mps = [&](const char* key) {
      const std::string v = value();
      o.overrides.push_back(std::string("mps.") + key + "=" + v);
      o.origins.push_back(a + " " + v);
      return v;
    };
    if (a == "--enable") {
      mps("enable");
    } else if (a == "--atp") {
      mps("active_thread_percentage");
    } else if (a == "--policy") {
      mps("atp_policy");
    } else if (a == "--pinned") {
      mps("pinned_device_mem_limit");
    } else if (a == "--dir") {
      mps("directory");
    } else if (a == "--timeout") {
      mps("timeout_seconds");
    } else if (a == "--placement") {
      mps("cpu_placement");
    } else if (a == "--hold") {
      o.hold_seconds = std::stod(value());
    } else if (a == "--fail-rank") {
      o.fail_rank = std::stoi(value());
    } else if (a == "--fail-mode") {
      o.fail_mode = value();
      if (o.fail_mode != "throw" && o.fail_mode != "collective" && o.fail_mode != "abort" &&
          o.fail_mode != "sigterm" && o.fail_mode != "sigkill") {
        throw InputError("--fail-mode: expected throw, collective, abort, sigterm or sigkill");
      }
    } else if (a == "--work") {
      for (const std::string& w : split_fields(value(), ',')) o.works.push_back(std::stod(w));
    } else if (a == "--session-dir-of") {
      o.session_dir_of = value();
    } else {
      throw InputError("unknown option '" + a + "'");
    }
  }
  if (o.fail_rank >= 0 && o.fail_mode.empty()) throw InputError("--fail-rank needs --fail-mode");
  return o;
}

std::string env_or_dash(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "-";
}

std::string underscores(std::string s) {
  for (char& c : s) {
    if (c == ' ') c = '_';
  }
  return s.empty() ? "-" : s;
}

std::string pid_list(const std::vector<long>& pids) {
  std::string out;
  for (long p : pids) out += (out.empty() ? "" : ",") + std::to_string(p);
  return out.empty() ? "-" : out;
}

// Does what --fail-mode asks, on --fail-rank.
void maybe_fail(const Options& o, MPI_Comm world) {
  int rank = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(world, &rank));
  if (o.fail_mode == "collective") {
    run_collectively(world, [&] {
      if (rank == o.fail_rank)
        throw Error("probe: collective failure asked on rank " + std::to_string(rank));
    });
    return;
  }
  if (rank != o.fail_rank) return;
  std::fprintf(stderr, "probe: rank %d fails now (%s)\n", rank, o.fail_mode.c_str());
  std::fflush(stderr);
  if (o.fail_mode == "throw")
    throw std::runtime_error("probe: exception asked on rank " + std::to_string(rank));
  if (o.fail_mode == "abort") MPI_Abort(MPI_COMM_WORLD, 3);
  if (o.fail_mode == "sigterm") kill(getpid(), SIGTERM);
  if (o.fail_mode == "sigkill") kill(getpid(), SIGKILL);
  std::this_thread::sleep_for(std::chrono::seconds(30));  // the signal ends us first
  throw std::runtime_error("probe: still alive after " + o.fail_mode);
}

// A rank that dies of a signal leaves on stderr what it was doing and its
// backtrace, so a test that sees exit code 139 can tell whose code crashed
// (this program, mpsfw, the MPI or PMIx library). Open MPI keeps a handler
// installed before MPI_Init.
const char* volatile g_phase = "starting";

// Where the faulting code was called from, for a call through a null pointer
// (no backtrace unwinds from address 0): the return address the call left.
void* caller_of_fault(const ucontext_t& context) {
#if defined(__x86_64__)
  return *reinterpret_cast<void* const*>(context.uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  return reinterpret_cast<void*>(context.uc_mcontext.regs[30]);
#else
  (void)context;
  return nullptr;
#endif
}

extern "C" void report_crash(int signal, siginfo_t*, void* context) {
  const char* const what[] = {"mps_session_probe: killed by signal ", strsignal(signal), " while ",
                              g_phase, "; called from, then backtrace:\n"};
  for (const char* text : what) {
    if (write(STDERR_FILENO, text, std::strlen(text)) < 0) break;
  }
  void* caller = caller_of_fault(*static_cast<const ucontext_t*>(context));
  backtrace_symbols_fd(&caller, 1, STDERR_FILENO);
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
  raise(signal);  // SA_RESETHAND: the default action, so the exit status stays the signal's
}

void report_crashes() {
  void* warm[1];
  backtrace(warm, 1);  // loads the unwinder now, not inside the handler
  struct sigaction action = {};
  action.sa_sigaction = report_crash;
  action.sa_flags = SA_RESETHAND | SA_SIGINFO;
  for (const int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT})
    sigaction(signal, &action, nullptr);
}

// The CPUs this process may run on, as "0,1,5".
std::string my_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "-";
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

int run(Session& env, const mps::LauncherInfo& launcher, const Options& o) {
  const mps::NodeSession& session = env.mps();
  session.cuda_gate();  // throws if bring-up did not finish: no CUDA would be allowed
  if (!o.works.empty()) env.balance_mps_caps(o.works.at(static_cast<size_t>(env.rank())));

  const mps::MpsStatus& s = session.status();
  const std::string pipe = env_or_dash("CUDA_MPS_PIPE_DIRECTORY");
  const std::string log = env_or_dash("CUDA_MPS_LOG_DIRECTORY");
  long daemon = -1;
  int answers = 0;
  if (pipe != "-") {
    // The daemon this rank's CUDA calls would go to.
    const mps::ControlClient control({pipe, log == "-" ? "" : log}, 5.0);
    daemon = control.daemon_pid();
    answers = control.answers() ? 1 : 0;
  }
  std::printf(
      "PROBE rank=%d node_rank=%d node_size=%d launcher=%s local=%d/%d state=%s owner=%d "
      "pipe=%s log=%s cvd=%s atp=%s pinned=%s pinned_read=%s daemon=%ld answers=%d gpu=%s cap=%d "
      "daemons=%s cpus=%s bring_up=%s\n",
      env.rank(), env.node_rank(), env.node_size(), underscores(launcher.source).c_str(),
      launcher.local_rank, launcher.local_size, underscores(mps::to_string(s.state)).c_str(),
      s.owner ? 1 : 0, pipe.c_str(), log.c_str(), env_or_dash("CUDA_VISIBLE_DEVICES").c_str(),
      env_or_dash("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE").c_str(),
      env_or_dash("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT").c_str(),
      s.pinned_limit.empty() ? "-" : s.pinned_limit.c_str(), daemon, answers,
      underscores(s.gpu_uuid).c_str(), s.cap, pid_list(s.daemon_pids).c_str(), my_cpus().c_str(),
      s.bring_up.empty() ? "-" : s.bring_up.c_str());
  std::printf("REASON rank=%d %s\n", env.rank(), s.reason.c_str());
  std::fflush(stdout);

  MPSFW_MPI_CHECK(MPI_Barrier(env.world()));
  if (o.hold_seconds > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(o.hold_seconds));
  }
  maybe_fail(o, env.world());
  MPSFW_MPI_CHECK(MPI_Barrier(env.world()));

  // No device to release: the probe never created a CUDA context.
  g_phase = "in the session's teardown";
  env.finish();
  const double exit_wait =
      session.status().seconds[static_cast<size_t>(mps::MpsStep::TeardownExit)];
  std::printf("FINAL rank=%d state=%s owner=%d teardown_exit=%.3f reason=%s\n", env.rank(),
              underscores(mps::to_string(session.status().state)).c_str(),
              session.status().owner ? 1 : 0, exit_wait, session.status().reason.c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parse(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mps_session_probe: %s\n", e.what());  // a test's mistake: no MPI
    return 2;
  }
  if (!options.session_dir_of.empty()) {
    std::string error;
    const mps::MpsConfig config =
        mps::read_mps_config(nullptr, options.overrides, options.origins, &error);
    if (!error.empty()) {
      std::fprintf(stderr, "mps_session_probe: %s\n", error.c_str());
      return 2;
    }
    std::printf("%s\n", mps::NodeSession::session_dir(mps::NodeSession::default_root(config),
                                                      options.session_dir_of)
                            .c_str());
    return 0;
  }
  // The probe's options become the session's: no input file, mps.* overrides.
  CommandLine command_line;
  command_line.overrides = options.overrides;
  command_line.origins = options.origins;
  report_crashes();
  const mps::LauncherInfo launcher = mps::detect_launcher();
  g_phase = "in the session's bring-up and MPI_Init";
  Session session(argc, argv, command_line);
  g_phase = "in the probe's run";
  const int code = session.run([&] { return run(session, launcher, options); });
  g_phase = "ending (MPI_Finalize in ~Session, exit)";
  return code;
}
