// mpsctl: MPS for job scripts and prologs, with the same code the solver uses
// in-process (mps/session_dir.hpp).
//   mpsctl start   [--gpus all|0,1] [--ranks-per-gpu K] [--atp auto|N] [--policy double|even]
//                  [--pinned-mem 8G] [--dir ROOT] [--job NAME] [--timeout S]
//   mpsctl stop    [--dir ROOT] [--job NAME | --session DIR]
//   mpsctl status  [--dir ROOT]
//   mpsctl cleanup [--dir ROOT] [--all]
// `start` prints `export MPSFW_MPS_SESSION=DIR`: solvers started with it reuse
// the daemons and never stop them; `stop` does.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/params.hpp"
#include "mps/cap_policy.hpp"
#include "mps/control.hpp"
#include "mps/gpu_inventory.hpp"
#include "mps/mps_config.hpp"
#include "mps/node_session.hpp"
#include "mps/session_dir.hpp"

namespace {

using namespace mpsfw;
using namespace mpsfw::mps;

const char* kUsage =
    "usage: mpsctl start   [--gpus all|I,J..] [--ranks-per-gpu K] [--atp auto|N]\n"
    "                      [--policy double|even] [--pinned-mem 8G] [--dir ROOT] [--job NAME]\n"
    "                      [--timeout S]\n"
    "       mpsctl stop    [--dir ROOT] [--job NAME | --session DIR]\n"
    "       mpsctl status  [--dir ROOT]\n"
    "       mpsctl cleanup [--dir ROOT] [--all]\n"
    "       mpsctl --help | --version\n"
    "ROOT defaults to $TMPDIR or /tmp; NAME to $SLURM_JOB_ID or 'mpsctl'.\n"
    "cleanup removes sessions whose owning rank is gone (and stops their daemons),\n"
    "but not one still starting; --all also removes sessions started by mpsctl.\n"
    "One start per job name at a time (a lock beside the session folder).\n";

struct Options {
  std::string command, gpus = "all", dir, job, session;
  int ranks_per_gpu = 2;
  bool all = false;
  MpsConfig config;
};

// mpsctl's own keys beside /mps's, so every option is checked like an input key.
std::vector<ParamSpec> mpsctl_schema() {
  std::vector<ParamSpec> schema = mps_schema();
  schema.push_back(
      text_param("mpsctl", "gpus", false, "all", {}, "all, or GPU indices or UUIDs: I,J,.."));
  schema.push_back(integer_param("mpsctl", "ranks_per_gpu", false, "2", 1, 1024,
                                 "ranks that will share each GPU (sets the auto cap)"));
  schema.push_back(
      text_param("mpsctl", "job", false, "", {}, "session name; empty: $SLURM_JOB_ID or mpsctl"));
  schema.push_back(text_param("mpsctl", "session", false, "", {}, "a session folder to stop"));
  return schema;
}

Options parse(const std::vector<std::string>& args) {
  if (args.empty()) throw InputError(std::string("no command given\n") + kUsage);
  static const std::pair<const char*, const char*> kKeys[] = {
      {"--gpus", "mpsctl.gpus"},
      {"--ranks-per-gpu", "mpsctl.ranks_per_gpu"},
      {"--atp", "mps.active_thread_percentage"},
      {"--policy", "mps.atp_policy"},
      {"--pinned-mem", "mps.pinned_device_mem_limit"},
      {"--dir", "mps.directory"},
      {"--job", "mpsctl.job"},
      {"--session", "mpsctl.session"},
      {"--timeout", "mps.timeout_seconds"}};
  Options o;
  o.command = args[0];
  Params params(mpsctl_schema());
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--all") {
      o.all = true;
      continue;
    }
    const auto key = std::find_if(std::begin(kKeys), std::end(kKeys),
                                  [&](const auto& k) { return a == k.first; });
    if (key == std::end(kKeys)) throw InputError("unknown option '" + a + "'\n" + kUsage);
    if (i + 1 >= args.size()) throw InputError(a + " needs a value\n" + kUsage);
    const std::string value = args[++i];
    params.apply_override(std::string(key->second) + "=" + value, a + " " + value);
  }
  params.finalize();
  o.config = mps_config_from(params);
  o.gpus = params.text("mpsctl.gpus");
  o.ranks_per_gpu = static_cast<int>(params.integer("mpsctl.ranks_per_gpu"));
  o.job = params.text("mpsctl.job");
  o.session = params.text("mpsctl.session");
  if (o.job.empty()) {
    const char* slurm = std::getenv("SLURM_JOB_ID");
    o.job = slurm && *slurm ? slurm : "mpsctl";
  }
  o.dir = NodeSession::default_root(o.config);
  return o;
}

// One `mpsctl start` per job name at a time: an exclusive flock on
// <root>/mpsfw-lock-<job>-<host>, held until the process ends (released by
// the kernel however it ends). The file says who holds it.
void lock_job(const std::string& dir, const std::string& job) {
  const std::string path = session_lock_path(dir);
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("mpsctl start: cannot open the lock file " + path);
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char holder[32] = {};
    const ssize_t n = pread(fd, holder, sizeof holder - 1, 0);
    const std::string pid = n > 0 ? std::string(holder, static_cast<size_t>(n)) : "?";
    throw Error("mpsctl start: another 'mpsctl start' of job '" + job + "' is running (pid " +
                pid.substr(0, pid.find_first_of("\n")) + ", lock " + path + ")");
  }
  const std::string me = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) != 0 || pwrite(fd, me.data(), me.size(), 0) < 0) {
    // Only the holder's PID in the message is lost.
  }
}

int start(const Options& o) {
  const std::vector<GpuInfo> visible = visible_gpus();
  if (visible.empty()) {
    throw Error("mpsctl start" + (o.gpus == "all" ? std::string() : " --gpus " + o.gpus) +
                ": no GPU is visible on this node");
  }
  std::vector<GpuInfo> gpus = visible;
  if (o.gpus != "all") gpus = apply_visible_devices(visible, o.gpus);
  if (gpus.empty()) {
    throw InputError("--gpus " + o.gpus + ": no such GPU here (indices 0.." +
                     std::to_string(visible.size() - 1) + " or UUIDs)");
  }
  const std::string dir = NodeSession::session_dir(o.dir, o.job);
  lock_job(dir, o.job);
  SessionRecord existing;
  if (read_ready(dir, &existing)) {
    throw Error("mpsctl start: a session already exists in " + dir + " (mpsctl stop first)");
  }
  const std::vector<int> ranks(gpus.size(), o.ranks_per_gpu);
  SessionRecord record;
  record.leader = 0;  // persistent: no owning rank
  try {
    // Servers start with the first job, under its user.
    record.gpus = start_session_daemons(dir, gpus, ranks, o.config, /*start_servers=*/false);
  } catch (const std::exception&) {
    remove_session(dir, o.config.timeout_seconds);  // no daemon is left; the logs are kept
    throw;
  }
  write_ready(dir, record);
  for (const SessionGpu& g : record.gpus) {
    std::fprintf(stderr, "mpsctl: GPU %d %s: daemon %ld, cap %d%%, pipe %s\n", g.index,
                 g.uuid.c_str(), g.daemon_pid, g.cap, g.pipe_dir.c_str());
  }
  std::printf("export MPSFW_MPS_SESSION=%s\n", dir.c_str());
  return 0;
}

int stop(const Options& o) {
  const std::string dir = o.session.empty() ? NodeSession::session_dir(o.dir, o.job) : o.session;
  SessionRecord record;
  if (!read_ready(dir, &record) && read_failed(dir).empty()) {
    std::fprintf(stderr, "mpsctl stop: no session in %s\n", dir.c_str());
    return 1;
  }
  remove_session(dir, o.config.timeout_seconds);
  std::printf("stopped and removed %s\n", dir.c_str());
  return 0;
}

int status(const Options& o) {
  const std::vector<std::string> sessions = list_sessions(o.dir);
  if (sessions.empty()) std::printf("no mpsfw MPS sessions under %s\n", o.dir.c_str());
  for (const std::string& dir : sessions) {
    SessionRecord r;
    const bool ready = read_ready(dir, &r);
    std::printf("%s\n  owner: %s\n", dir.c_str(),
                !ready ? "none (not ready)"
                       : (r.leader == 0 ? "mpsctl"
                                        : ("rank process " + std::to_string(r.leader) +
                                           (process_alive(r.leader) ? "" : " (gone: stale)"))
                                              .c_str()));
    for (const SessionGpu& g : r.gpus) {
      const ControlClient control({g.pipe_dir, g.log_dir}, o.config.timeout_seconds);
      const long daemon = control.daemon_pid();
      std::printf("  GPU %d %s: cap %d%%, daemon %s\n", g.index, g.uuid.c_str(), g.cap,
                  daemon > 0 ? std::to_string(daemon).c_str() : "not running");
      if (daemon <= 0) continue;
      for (long server : control.server_pids()) {
        std::printf("    server %ld, clients:", server);
        for (long c : control.client_pids(server)) std::printf(" %ld", c);
        std::printf("\n");
      }
    }
  }
  return 0;
}

int cleanup(const Options& o) {
  int removed = 0;
  for (const std::string& dir : list_sessions(o.dir)) {
    SessionRecord r;
    const bool ready = read_ready(dir, &r);
    // Not ready yet, but its starter lives: still starting, not an orphan.
    const long starter = ready ? -1 : read_starting(dir);
    if (!ready && process_alive(starter) && read_failed(dir).empty()) {
      std::printf("skipped %s: still starting (pid %ld)\n", dir.c_str(), starter);
      continue;
    }
    const bool orphan = !ready || (r.leader > 0 && !process_alive(r.leader));
    if (orphan || (o.all && r.leader == 0)) {
      remove_session(dir, o.config.timeout_seconds);
      std::printf("removed %s\n", dir.c_str());
      ++removed;
    }
  }
  std::printf("%d session(s) removed\n", removed);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(std::vector<std::string>(argv + 1, argv + argc));
    if (o.command == "start") return start(o);
    if (o.command == "stop") return stop(o);
    if (o.command == "status") return status(o);
    if (o.command == "cleanup") return cleanup(o);
    if (o.command == "--help" || o.command == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (o.command == "--version") {
      std::fputs(build_description("mpsctl").c_str(), stdout);
      return 0;
    }
    throw InputError("unknown command '" + o.command + "'\n" + kUsage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpsctl: error: %s\n", e.what());
    return 1;
  }
}
