// mpsctl: MPS for job scripts and prologs, with the same code the solver uses
// in-process (mps/session_dir.hpp).
//   mpsctl start   [--gpus all|0,1] [--ranks-per-gpu K] [--atp auto|N] [--policy double|even]
//                  [--pinned-mem 8G] [--dir ROOT] [--job NAME] [--timeout S] [--owner USER]
//   mpsctl env     [--dir ROOT] [--job NAME]
//   mpsctl stop    [--dir ROOT] [--job NAME | --session DIR] [--force]
//   mpsctl status  [--dir ROOT]
//   mpsctl cleanup [--dir ROOT] [--all] [--force]
//   mpsctl gpus
// `gpus` lists the GPUs a rank started here would use, as the solver finds
// them (CUDA_VISIBLE_DEVICES applied, MIG instances as GPUs of their own),
// without touching CUDA.
// `start` prints `export MPSFW_MPS_SESSION=DIR`: solvers started with it reuse
// the daemons and never stop them; `stop` does. A prolog running as root
// starts it with --owner (the folder becomes the job user's), and a task
// prolog's `mpsctl env` prints the lines that put a task on it. stop and cleanup remove only
// what remove_session (mps/session_dir.hpp) proves to be a session of this host.
#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/build_info.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/mps/cap_policy.hpp>
#include <mpsfw/mps/control.hpp>
#include <mpsfw/mps/gpu_inventory.hpp>
#include <mpsfw/mps/mps_config.hpp>
#include <mpsfw/mps/node_session.hpp>
#include <mpsfw/mps/session_dir.hpp>

namespace {

using namespace mpsfw;
using namespace mpsfw::mps;

const char* kUsage =
    "usage: mpsctl start   [--gpus all|I,J..] [--ranks-per-gpu K] [--atp auto|N]\n"
    "                      [--policy double|even] [--pinned-mem 8G] [--dir ROOT] [--job NAME]\n"
    "                      [--timeout S] [--owner USER]\n"
    "       mpsctl env     [--dir ROOT] [--job NAME]\n"
    "       mpsctl stop    [--dir ROOT] [--job NAME | --session DIR] [--force]\n"
    "       mpsctl status  [--dir ROOT]\n"
    "       mpsctl cleanup [--dir ROOT] [--all] [--force]\n"
    "       mpsctl gpus\n"
    "       mpsctl --help | --version\n"
    "ROOT defaults to $TMPDIR or /tmp; NAME to $SLURM_JOB_ID or 'mpsctl'.\n"
    "--pinned-mem: a whole number and M or G (MiB, GiB), as the MPS daemon takes it;\n"
    "start reads it back from each daemon and prints it (status too).\n"
    "stop and cleanup stop daemons and remove a folder only if it is a session of\n"
    "this host written by mpsfw: named mpsfw-mps-<job>-<host>, with a ready, failed\n"
    "or starting file that begins 'mpsfw-session 1 <host>' (or an older mpsfw's\n"
    "ready file of a rank that is dead here, its gpu<N> folders inside), holding\n"
    "nothing but gpu<N>/{pipe,log} and those files. Any other folder is refused, untouched\n"
    "(exit 1); a session holding anything else has its daemons stopped but stays.\n"
    "status and cleanup look at this host's sessions only (a shared --dir holds\n"
    "other hosts' too: they are counted, never judged). cleanup removes sessions\n"
    "whose owning rank is gone (and stops their daemons), but not one still\n"
    "starting; --all also removes sessions started by mpsctl.\n"
    "stop and cleanup refuse a session whose servers have clients running (naming\n"
    "them); --force stops it anyway: its daemons give the clients 5 s, then shut\n"
    "their MPS servers down, and the clients' CUDA calls fail from then on.\n"
    "gpus lists the GPUs ranks started here would use, one line each:\n"
    "'gpu INDEX UUID bus PCI', a MIG instance's then 'MIG PROFILE of GPU-UUID'\n"
    "(CUDA_VISIBLE_DEVICES applied; no CUDA call).\n"
    "One start per job name at a time (a lock beside the session folder).\n"
    "--owner: the session folder (and all in it) becomes USER's (a name or a\n"
    "uid), for a prolog that runs as root for a job's user.\n"
    "env prints the export lines a task of the job needs (a Slurm TaskProlog's\n"
    "output): MPSFW_MPS_SESSION, and with one GPU CUDA_MPS_PIPE_DIRECTORY and\n"
    "CUDA_MPS_LOG_DIRECTORY for any CUDA program; nothing when the job has no\n"
    "session here.\n";

struct Options {
  std::string command, gpus = "all", dir, job, session, owner;
  int ranks_per_gpu = 2;
  bool all = false, force = false;
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
  schema.push_back(
      text_param("mpsctl", "owner", false, "", {}, "the user the session folder is given to"));
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
      {"--owner", "mpsctl.owner"},
      {"--timeout", "mps.timeout_seconds"}};
  Options o;
  o.command = args[0];
  Params params(mpsctl_schema());
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--all" || a == "--force") {
      (a == "--all" ? o.all : o.force) = true;
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
  o.owner = params.text("mpsctl.owner");
  if (o.job.empty()) {
    const char* slurm = std::getenv("SLURM_JOB_ID");
    o.job = slurm && *slurm ? slurm : "mpsctl";
  }
  o.dir = NodeSession::default_root(o.config);
  return o;
}

// One `mpsctl start` per job name at a time: an exclusive flock on
// <root>/mpsfw-lock-<job>-<host>, held until the process ends (released by
// the kernel however it ends). The file says who holds it. It is rewritten,
// so only a plain file of this user's, never through a symbolic link (a
// prolog runs as root in a /tmp anyone may write to).
void lock_job(const std::string& dir, const std::string& job) {
  const std::string path = session_lock_path(dir);
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    throw Error("mpsctl start: cannot open the lock file " + path + " (" + std::strerror(errno) +
                (errno == ELOOP ? ": it is a symbolic link" : "") + ")");
  }
  struct stat file {};
  if (fstat(fd, &file) != 0 || !S_ISREG(file.st_mode) || file.st_uid != geteuid()) {
    throw Error("mpsctl start: " + path +
                " is not a lock file of this user's (a plain file it owns): not using it");
  }
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

// The uid and gid of `user`, a name or a number; InputError when unknown.
std::pair<uid_t, gid_t> user_ids(const std::string& user) {
  const passwd* pw = getpwnam(user.c_str());
  if (pw == nullptr && !user.empty() &&
      std::all_of(user.begin(), user.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    pw = getpwuid(static_cast<uid_t>(std::stoul(user)));
  }
  if (pw == nullptr) throw InputError("--owner " + user + ": no such user on this node");
  return {pw->pw_uid, pw->pw_gid};
}

// `dir` and everything in it become the user's (links themselves, not what
// they point to).
void give_to(const std::string& dir, std::pair<uid_t, gid_t> ids) {
  const auto chown_one = [&](const std::string& path) {
    if (::lchown(path.c_str(), ids.first, ids.second) != 0) {
      throw Error("mpsctl start --owner: cannot give " + path + " to uid " +
                  std::to_string(ids.first) + " (" + std::strerror(errno) + ")");
    }
  };
  chown_one(dir);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    chown_one(entry.path().string());
  }
}

int start(const Options& o) {
  const std::pair<uid_t, gid_t> owner =
      o.owner.empty() ? std::make_pair(getuid(), getgid()) : user_ids(o.owner);
  const std::vector<GpuInfo> visible = visible_gpus();
  if (visible.empty()) {
    throw Error("mpsctl start" + (o.gpus == "all" ? std::string() : " --gpus " + o.gpus) +
                ": no GPU is visible on this node");
  }
  std::vector<GpuInfo> gpus = visible;
  try {
    if (o.gpus != "all") gpus = apply_visible_devices(visible, o.gpus);
  } catch (const Error& e) {
    throw InputError("--gpus " + o.gpus + ": " + e.what());
  }
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
  // A failed or abandoned start of this job is replaced; a folder that is not
  // provably one is refused (remove_session), and nothing goes into it.
  remove_session(dir, o.config.timeout_seconds);
  const std::vector<int> ranks(gpus.size(), o.ranks_per_gpu);
  SessionRecord record;
  record.leader = 0;  // persistent: no owning rank
  try {
    // Servers start with the first job, under its user.
    record.gpus = start_session_daemons(dir, gpus, ranks, o.config, /*start_servers=*/false);
  } catch (const std::exception& e) {
    std::string also;
    try {
      remove_session(dir, o.config.timeout_seconds);  // no daemon is left; the logs are kept
    } catch (const std::exception& left) {
      also = std::string("; ") + left.what();
    }
    throw Error(e.what() + also);
  }
  write_ready(dir, record);
  if (!o.owner.empty()) give_to(dir, owner);
  for (const SessionGpu& g : record.gpus) {
    std::fprintf(stderr, "mpsctl: GPU %d %s: daemon %ld, cap %d%%, pinned limit %s, pipe %s\n",
                 g.index, g.uuid.c_str(), g.daemon_pid, g.cap,
                 g.pinned.empty() ? "none" : (g.pinned + " (read back)").c_str(),
                 g.pipe_dir.c_str());
  }
  std::printf("export MPSFW_MPS_SESSION=%s\n", dir.c_str());
  return 0;
}

// The clients of the session's MPS servers, as their daemons list them:
// "PID (GPU N)" each, comma-separated; "" without any.
std::string clients_of(const SessionRecord& record, double timeout_seconds) {
  std::string clients;
  for (const SessionGpu& g : record.gpus) {
    const ControlClient control({g.pipe_dir, g.log_dir}, timeout_seconds);
    if (control.daemon_pid() <= 0) continue;
    for (long server : control.server_pids()) {
      for (long c : control.client_pids(server)) {
        clients += (clients.empty() ? "" : ", ") + std::to_string(c) + " (GPU " +
                   std::to_string(g.index) + ")";
      }
    }
  }
  return clients;
}

// What stopping a session with running clients does to them, for --force.
constexpr const char* kForcedStop =
    "its daemons give them 5 s, then shut their MPS servers down: their CUDA calls fail from "
    "then on";

// Throws Error naming the clients of `dir`'s servers unless `force`; returns
// them ("" without any).
std::string refuse_live_clients(const std::string& command, const std::string& dir,
                                const SessionRecord& record, const Options& o) {
  const std::string clients = clients_of(record, o.config.timeout_seconds);
  if (!clients.empty() && !o.force) {
    throw Error("mpsctl " + command + ": the MPS servers of " + dir +
                " have clients running, PIDs " + clients +
                "; not stopping it (let them end first; with --force " + kForcedStop + ")");
  }
  return clients;
}

// The seconds stop_daemon waited for the session's MPS processes to exit.
std::string exit_wait_text(const ExitWait& waited) {
  char text[160];
  std::snprintf(text, sizeof text, " (its MPS processes gone %.3f s after quit%s)", waited.seconds,
                waited.killed > 0 ? ", some killed at mps.timeout_seconds" : "");
  return text;
}

int stop(const Options& o) {
  const std::string dir = o.session.empty() ? NodeSession::session_dir(o.dir, o.job) : o.session;
  SessionRecord record;
  if (!read_ready(dir, &record) && read_failed(dir).empty()) {
    std::fprintf(stderr, "mpsctl stop: no session in %s\n", dir.c_str());
    return 1;
  }
  const std::string clients = refuse_live_clients("stop", dir, record, o);
  ExitWait waited;
  remove_session(dir, o.config.timeout_seconds, /*clients_released=*/false, &waited);
  std::printf("stopped and removed %s%s\n", dir.c_str(), exit_wait_text(waited).c_str());
  if (!clients.empty()) {
    std::printf("--force: its clients %s lost their MPS server (%s)\n", clients.c_str(),
                kForcedStop);
  }
  return 0;
}

// Sessions of other hosts in a shared ROOT: counted, never judged by this host's PIDs.
void say_other_hosts(int others, const std::string& root, const char* what) {
  if (others == 0) return;
  std::printf("%d session(s) of other hosts under %s %s (this host: %s)\n", others, root.c_str(),
              what, session_host().c_str());
}

int status(const Options& o) {
  int others = 0;
  const std::vector<std::string> sessions = list_sessions(o.dir, &others);
  if (sessions.empty()) std::printf("no mpsfw MPS sessions of this host under %s\n", o.dir.c_str());
  say_other_hosts(others, o.dir, "not shown");
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
      std::printf("  GPU %d %s: cap %d%%, pinned limit %s, daemon %s\n", g.index, g.uuid.c_str(),
                  g.cap, g.pinned.empty() ? "none" : g.pinned.c_str(),
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

// One session of this host: removed when its owner is gone (or --all and
// started by mpsctl); false when left as it is.
bool clean_up(const std::string& dir, const Options& o) {
  SessionRecord r;
  const bool ready = read_ready(dir, &r);
  // Not ready yet, but its starter lives: still starting, not an orphan.
  const long starter = ready ? -1 : read_starting(dir);
  if (!ready && process_alive(starter) && read_failed(dir).empty()) {
    std::printf("skipped %s: still starting (pid %ld)\n", dir.c_str(), starter);
    return false;
  }
  const bool orphan = !ready || (r.leader > 0 && !process_alive(r.leader));
  if (!orphan && !(o.all && r.leader == 0)) return false;
  const std::string clients = refuse_live_clients("cleanup", dir, r, o);
  remove_session(dir, o.config.timeout_seconds);
  std::printf("removed %s\n", dir.c_str());
  if (!clients.empty()) {
    std::printf("--force: its clients %s lost their MPS server (%s)\n", clients.c_str(),
                kForcedStop);
  }
  return true;
}

int cleanup(const Options& o) {
  int removed = 0, refused = 0, others = 0;
  for (const std::string& dir : list_sessions(o.dir, &others)) {
    try {
      removed += clean_up(dir, o) ? 1 : 0;
    } catch (const std::exception& e) {
      std::printf("left %s: %s\n", dir.c_str(), e.what());
      ++refused;
    }
  }
  std::printf("%d session(s) removed\n", removed);
  say_other_hosts(others, o.dir, "left alone");
  return refused == 0 ? 0 : 1;
}

// The GPUs this process's ranks would use, as bring-up sees them.
// The export lines a task of the job needs; none without a session here.
int env(const Options& o) {
  const std::string dir = NodeSession::session_dir(o.dir, o.job);
  SessionRecord record;
  if (!read_ready(dir, &record)) return 0;
  std::printf("export MPSFW_MPS_SESSION=%s\n", dir.c_str());
  if (record.gpus.size() == 1) {
    std::printf("export CUDA_MPS_PIPE_DIRECTORY=%s\nexport CUDA_MPS_LOG_DIRECTORY=%s\n",
                record.gpus[0].pipe_dir.c_str(), record.gpus[0].log_dir.c_str());
  }
  return 0;
}

int gpus() {
  const std::vector<GpuInfo> visible = visible_gpus();
  for (size_t i = 0; i < visible.size(); ++i) {
    const GpuInfo& g = visible[i];
    std::printf("gpu %zu %s bus %s%s%s\n", i, g.uuid.c_str(),
                g.pci_bus.empty() ? "-" : g.pci_bus.c_str(), g.mig.empty() ? "" : " ",
                g.mig.empty() ? "" : g.mig.c_str());
  }
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
    if (o.command == "gpus") return gpus();
    if (o.command == "env") return env(o);
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
