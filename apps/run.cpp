// mpsfw-run: mpsfw's per-node MPS for any MPI+CUDA program, one wrapper per rank.
//   mpirun -np 16 mpsfw-run [--mps auto|on|off] [--mps-atp auto|N] [--report FILE]
//                           [--dry-run] -- ./app args...
// Each rank's wrapper does what an mpsfw solver does before MPI_Init (the node
// session of mps/node_session.hpp: daemons started by the node's first rank
// or a site's or mpsctl's reused, the rank's GPU in blocks, CPUs near it, its
// cap), then runs the program with that environment, forwards SIGTERM,
// SIGINT, SIGHUP, SIGUSR1 and SIGUSR2 to it, and watches its GPU server's
// client list until the program (or a process it started) is there. The
// wrapper has no MPI of its own: the node's ranks meet through a folder
// (node_roll_call.hpp). The node's first rank waits for every rank's end,
// prints the summary (verified clients N of N; a rank not a client is named)
// and writes --report; the daemons it started stop when it exits (its
// watchdog, also when it is killed; the folder goes with the last wrapper). Each wrapper exits
// with its program's code (128 + the signal that ended it).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/json_writer.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/mps/client_watch.hpp>
#include <mpsfw/mps/control.hpp>
#include <mpsfw/mps/launcher.hpp>
#include <mpsfw/mps/mps_config.hpp>
#include <mpsfw/mps/node_roll_call.hpp>
#include <mpsfw/mps/node_session.hpp>

namespace {

using namespace mpsfw;
using namespace mpsfw::mps;

const char* kUsage =
    "usage: mpirun -np N mpsfw-run [--mps auto|on|off] [--mps-atp auto|1..100]\n"
    "                              [--dir ROOT] [--report FILE] [--dry-run] -- PROGRAM [ARGS...]\n"
    "       srun ... mpsfw-run [options] -- PROGRAM [ARGS...]\n"
    "Runs PROGRAM on each rank under the node's MPS, as mpsfw's solvers run:\n"
    "--mps auto (default): MPS where ranks share a GPU; on: MPS or a failed job;\n"
    "off: the program as it is. --mps-atp: each rank's active thread percentage\n"
    "(auto: from the ranks per GPU). --dir: where the session folders go ($TMPDIR\n"
    "or /tmp). --report FILE: a JSON record (the node's\n"
    "first rank). --dry-run: the plan of each rank, nothing started or run.\n";

struct Options {
  MpsConfig config;
  std::string report;
  bool dry_run = false;
  std::vector<std::string> program;
};

Options parse(int argc, char** argv) {
  Options o;
  Params params(mps_schema());
  int a = 1;
  for (; a < argc && std::strcmp(argv[a], "--") != 0; ++a) {
    const std::string arg = argv[a];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (arg == "--dry-run") {
      o.dry_run = true;
      continue;
    }
    const char* key = arg == "--mps"       ? "mps.enable"
                      : arg == "--mps-atp" ? "mps.active_thread_percentage"
                      : arg == "--dir"     ? "mps.directory"
                      : arg == "--report"  ? ""
                                           : nullptr;
    if (key == nullptr) throw UsageError("unknown option '" + arg + "'\n" + kUsage);
    if (a + 1 >= argc) throw UsageError(arg + " needs a value\n" + kUsage);
    const std::string value = argv[++a];
    if (*key == '\0') {
      o.report = value;
    } else {
      params.apply_override(std::string(key) + "=" + value, arg + " " + value);
    }
  }
  for (++a; a < argc; ++a) o.program.push_back(argv[a]);
  if (o.program.empty()) throw UsageError(std::string("no program after --\n") + kUsage);
  params.finalize();
  o.config = mps_config_from(params);
  o.config.plan_only = o.dry_run;
  return o;
}

// How long the node's first rank, its own program failed, waits for the
// others' ends before it reports and exits.
constexpr double kFailedGraceSeconds = 3.0;

volatile std::sig_atomic_t g_signal = 0;
void remember(int sig) { g_signal = sig; }

// Runs the program with this process's environment; forwards signals to it;
// `watch` is called while it runs: every 0.1 s over its first seconds (a
// short program is a client for well under a second), then every 0.5 s.
// Returns its exit code.
template <class Watch>
int run_program(const std::vector<std::string>& program, long* pid, const Watch& watch) {
  struct sigaction action {};
  action.sa_handler = remember;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2}) sigaction(sig, &action, nullptr);
  const pid_t child = fork();
  if (child < 0) throw Error(std::string("mpsfw-run: fork failed: ") + std::strerror(errno));
  if (child == 0) {
    std::vector<char*> args;
    for (const std::string& s : program) args.push_back(const_cast<char*>(s.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "mpsfw-run: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  *pid = child;
  const auto started = std::chrono::steady_clock::now();
  auto next_watch = started;
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (g_signal != 0) {
      kill(child, g_signal);
      g_signal = 0;
    }
    if (std::chrono::steady_clock::now() >= next_watch) {
      watch(child);
      const auto now = std::chrono::steady_clock::now();
      next_watch =
          now + std::chrono::milliseconds(now - started < std::chrono::seconds(10) ? 100 : 500);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string summary(const MpsStatus& s, const std::vector<RankEnd>& ends, int* verified) {
  const bool watched = s.state == MpsState::Started || s.state == MpsState::Reused;
  std::string text = "mpsfw-run: " + std::to_string(ends.size()) + " rank(s) on this node, MPS " +
                     to_string(s.state) + (s.reason.empty() ? "" : " (" + s.reason + ")");
  if (watched) text += ", cap " + std::to_string(s.cap) + "%";
  *verified = 0;
  std::string named;
  for (const RankEnd& e : ends) {
    *verified += e.client == "yes";
    if (e.exit_code == kStillRunning) {
      named += "\nmpsfw-run: local rank " + std::to_string(e.local_rank) +
               " was still running when the first rank's program had failed or the job was "
               "stopped";
    } else if (e.exit_code < 0) {
      named += "\nmpsfw-run: local rank " + std::to_string(e.local_rank) +
               " ended without a word (its wrapper was killed)";
    } else if (watched && e.client != "yes") {
      named += "\nmpsfw-run: local rank " + std::to_string(e.local_rank) + " (pid " +
               std::to_string(e.pid) + ", exit " + std::to_string(e.exit_code) +
               ") was not a client of its GPU's MPS server";
    }
  }
  if (watched) {
    text +=
        ": verified clients " + std::to_string(*verified) + " of " + std::to_string(ends.size());
  }
  return text + named;
}

void write_report(const std::string& path, const MpsStatus& s, const std::vector<RankEnd>& ends,
                  int verified, double bring_up) {
  JsonWriter j;
  j.begin_object();
  j.value("ranks", static_cast<int>(ends.size()));
  j.begin_object("mps").value("state", to_string(s.state)).value("reason", s.reason);
  j.value("cap", s.cap).value("gpu", s.gpu_uuid).end_object();
  j.value("verified_clients", verified).value("bring_up_seconds", bring_up);
  j.begin_array("per_rank");
  for (const RankEnd& e : ends) {
    j.begin_object().value("local_rank", e.local_rank).value("pid", std::int64_t{e.pid});
    j.value("exit", e.exit_code).value("client", e.client).end_object();
  }
  j.end_array().end_object();
  std::ofstream out(path);
  out << j.text() << "\n";
  if (!out) throw Error("mpsfw-run: cannot write the report " + path);
}

int run(const Options& o) {
  MpsConfig config = o.config;
  const LauncherInfo launcher = detect_launcher();
  if (!launcher.known) {
    if (config.enable == Enable::On) {
      throw Error("--mps on: the launcher set no local-rank variables (mpirun and srun set them)");
    }
    config.enable = Enable::Off;
  }
  const auto start = std::chrono::steady_clock::now();
  NodeSession session = NodeSession::before_mpi(config, launcher);
  if (!session.bring_up_error().empty()) throw Error(session.bring_up_error());
  if (session.waits_for_mpi()) {
    throw Error("the launcher gave each task a part of the GPUs (CUDA_VISIBLE_DEVICES): " +
                std::string("mpsfw-run needs every rank to see the node's GPUs (e.g. srun ") +
                "--gpu-bind=none) or --mps off");
  }
  const double bring_up =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const MpsStatus& s = session.status();
  if (o.dry_run) {
    std::printf("mpsfw-run (dry run): local rank %d of %d: MPS %s%s%s, GPU %s, cap %d%%\n",
                launcher.local_rank, launcher.local_size, to_string(s.state),
                s.reason.empty() ? "" : ": ", s.reason.c_str(),
                s.gpu_uuid.empty() ? "-" : s.gpu_uuid.c_str(), s.cap);
    return 0;
  }
  const bool watched = s.state == MpsState::Started || s.state == MpsState::Reused;
  const char* log = std::getenv("CUDA_MPS_LOG_DIRECTORY");
  const ControlClient control({s.pipe_dir, log ? log : ""}, config.timeout_seconds);
  bool client = false;
  RankEnd end;
  end.local_rank = launcher.local_rank;
  NodeRollCall roll(NodeSession::default_root(config), launcher.job.empty() ? "run" : launcher.job,
                    launcher.local_rank, launcher.local_size);
  roll.arrive();
  if (launcher.local_rank == 0) roll.remove_when_all_gone(config.timeout_seconds);
  end.exit_code = run_program(o.program, &end.pid, [&](long child) {
    if (watched && !client) client = tree_is_client(control, child);
  });
  end.client = !watched ? "off" : client ? "yes" : "no";
  roll.depart(end);
  if (launcher.local_rank == 0) {
    // The other ranks' programs may wait forever on a failed one (blocked in
    // MPI): a failure here, or a stop signal, ends the wait after a grace, so
    // that the launcher sees this rank fail and ends the job.
    const auto ended = std::chrono::steady_clock::now();
    const auto give_up = [&] {
      const double waited =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - ended).count();
      return g_signal != 0 || (end.exit_code != 0 && waited > kFailedGraceSeconds);
    };
    const std::vector<RankEnd> ends = roll.wait_for_all(config.timeout_seconds, give_up);
    int verified = 0;
    std::fprintf(stderr, "%s\n", summary(s, ends, &verified).c_str());
    if (!o.report.empty()) write_report(o.report, s, ends, verified, bring_up);
    roll.remove();
  }
  return end.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "mpsfw-run: error: %s\n", e.what());
    return kUsageExitCode;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpsfw-run: error: %s\n", e.what());
    return 1;
  }
}
