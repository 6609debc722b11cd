#include "control.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <mpsfw/core/base/error.hpp>

namespace mpsfw::mps {
namespace {

bool runs_control_program(long pid);

std::vector<long> numbers_in(const std::string& text) {
  std::vector<long> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    char* end = nullptr;
    const long v = std::strtol(line.c_str(), &end, 10);
    if (end != line.c_str() && v > 0) out.push_back(v);
  }
  return out;
}

std::vector<std::string> daemon_env(const DaemonDirs& dirs) {
  return {"CUDA_MPS_PIPE_DIRECTORY=" + dirs.pipe, "CUDA_MPS_LOG_DIRECTORY=" + dirs.log};
}

enum class ProcRead { Read, NoFile, Gone };

// /proc/<pid>/<name> whole, with POSIX calls: a process reaped while we read
// makes read() fail (ESRCH), which std::ifstream's buffer turns into an
// exception (libstdc++) that would fail the whole scan.
ProcRead read_proc(long pid, const char* name, std::string* out) {
  const std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT || errno == ESRCH ? ProcRead::Gone : ProcRead::NoFile;
  out->clear();
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      out->append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      close(fd);
      return n == 0 ? ProcRead::Read : ProcRead::Gone;
    }
  }
}

// The process's command line names the control program (or our test double,
// whose name contains it), or with `or_server` also the MPS server. Without
// /proc we cannot tell, and trust the file.
bool runs_mps_program(long pid, bool or_server) {
  std::string cmdline;
  const ProcRead r = read_proc(pid, "cmdline", &cmdline);
  if (r == ProcRead::Gone) return false;
  if (r == ProcRead::NoFile) return true;
  for (char& c : cmdline) c = c == '\0' ? ' ' : c;
  const std::string program = control_program();
  const std::string base = program.substr(program.find_last_of('/') + 1);
  return cmdline.find(base) != std::string::npos ||
         cmdline.find("nvidia-cuda-mps-control") != std::string::npos ||
         (or_server && cmdline.find("nvidia-cuda-mps-server") != std::string::npos);
}

bool runs_control_program(long pid) { return runs_mps_program(pid, /*or_server=*/false); }

// Whether /proc/<pid>/environ holds `entry` (NAME=value) exactly.
bool environment_holds(long pid, const std::string& entry) {
  std::string environ_text;
  if (read_proc(pid, "environ", &environ_text) != ProcRead::Read) return false;
  std::istringstream items(environ_text);
  std::string item;
  while (std::getline(items, item, '\0')) {
    if (item == entry) return true;
  }
  return false;
}

// SIGTERM, then SIGKILL for what is still there after `grace_seconds`.
void terminate_all(const std::vector<long>& pids, double grace_seconds) {
  for (long pid : pids) kill(static_cast<pid_t>(pid), SIGTERM);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_seconds);
  for (long pid : pids) {
    while (process_alive(pid) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (process_alive(pid)) kill(static_cast<pid_t>(pid), SIGKILL);
  }
}

// The live processes of MPS programs (servers too with `or_server`) whose
// environment names `pipe_dir`.
std::vector<long> processes_of(const std::string& pipe_dir, bool or_server) {
  std::vector<long> found;
  std::error_code ec;
  const std::string entry = "CUDA_MPS_PIPE_DIRECTORY=" + pipe_dir;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(name);
    if (pid == static_cast<long>(getpid()) || !process_alive(pid)) continue;
    if (runs_mps_program(pid, or_server) && environment_holds(pid, entry)) found.push_back(pid);
  }
  return found;
}

// Waits until none of `pids` and no MPS process of `pipe_dir` is left, at
// most `limit_seconds`; then kills what is.
ExitWait wait_until_gone(const std::string& pipe_dir, std::vector<long> pids,
                         double limit_seconds) {
  ExitWait waited;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(limit_seconds);
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  std::vector<long> left;
  for (;;) {
    left = processes_of(pipe_dir, /*or_server=*/true);
    for (long pid : pids) {
      if (process_alive(pid) && std::find(left.begin(), left.end(), pid) == left.end()) {
        left.push_back(pid);
      }
    }
    if (left.empty() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (long pid : left) kill(static_cast<pid_t>(pid), SIGKILL);
  waited.killed = static_cast<int>(left.size());
  for (long pid : left) {
    while (process_alive(pid) && seconds_since(start) < limit_seconds + 1.0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  waited.seconds = seconds_since(start);
  return waited;
}

}  // namespace

std::vector<long> daemons_of(const std::string& pipe_dir) {
  return processes_of(pipe_dir, /*or_server=*/false);
}

std::string control_program() {
  const char* p = std::getenv("MPSFW_MPS_CONTROL");
  return p && *p ? p : "nvidia-cuda-mps-control";
}

ProcessResult ControlClient::send(const std::string& command) const {
  return run_process({control_program()}, daemon_env(dirs_), command + "\n", timeout_);
}

ProcessResult ControlClient::ask(const std::string& question) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_);
  auto pause = std::chrono::milliseconds(10);
  for (;;) {
    ProcessResult r = send(question);
    if (r.exit_code == 0 || std::chrono::steady_clock::now() + pause >= deadline) return r;
    std::this_thread::sleep_for(pause);
    pause = std::min(2 * pause, std::chrono::milliseconds(200));
  }
}

bool ControlClient::answers() const {
  return daemon_pid() > 0 && ask("get_server_list").exit_code == 0;
}

long ControlClient::daemon_pid() const {
  std::ifstream f(dirs_.pipe + "/nvidia-cuda-mps-control.pid");
  long pid = -1;
  if (!(f >> pid)) return -1;
  // A stale pid file may name a PID the system has given to another program:
  // only the control program counts (never quit or kill anything else).
  return process_alive(pid) && runs_control_program(pid) ? pid : -1;
}

std::vector<long> ControlClient::server_pids() const {
  const ProcessResult r = ask("get_server_list");
  return r.exit_code == 0 ? numbers_in(r.output) : std::vector<long>{};
}

std::vector<long> ControlClient::client_pids(long server_pid) const {
  const ProcessResult r = ask("get_client_list " + std::to_string(server_pid));
  return r.exit_code == 0 ? numbers_in(r.output) : std::vector<long>{};
}

int ControlClient::default_thread_percentage() const {
  const ProcessResult r = ask("get_default_active_thread_percentage");
  if (r.exit_code != 0) return -1;
  // The real daemon answers e.g. "100.0"; a client gets whole SM shares.
  char* end = nullptr;
  const double value = std::strtod(r.output.c_str(), &end);
  return end != r.output.c_str() && value > 0 && value <= 100 ? static_cast<int>(value) : -1;
}

long start_daemon(const DaemonDirs& dirs, const std::string& gpu_uuid, double timeout_seconds) {
  std::vector<std::string> env = daemon_env(dirs);
  env.push_back("CUDA_VISIBLE_DEVICES=" + gpu_uuid);
  const std::string launch_log = dirs.log + "/mpsfw-launch.log";
  const int code = run_detaching({control_program(), "-d"}, env, launch_log, timeout_seconds);
  if (code != 0) {
    stop_daemon(dirs, 2.0);  // a daemon it forked before failing is not left behind
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", timeout_seconds);
    const std::string what = code == 124 ? std::string("did not return within ") + seconds + " s"
                                         : "failed (exit " + std::to_string(code) + ")";
    throw Error("MPS: '" + control_program() + " -d' for GPU " + gpu_uuid + " " + what + "; see " +
                launch_log + " and " + dirs.log + "/control.log");
  }
  const ControlClient client(dirs, 2.0);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    const long pid = client.daemon_pid();
    if (pid > 0 && client.answers()) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Up but silent, or not up yet (no pid file): stopped either way.
  stop_daemon(dirs, 2.0);
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", timeout_seconds);
  throw Error("MPS: the control daemon for GPU " + gpu_uuid + " did not answer within " + seconds +
              " s; see " + dirs.log + "/control.log");
}

bool stop_daemon(const DaemonDirs& dirs, double timeout_seconds, bool clients_released,
                 ExitWait* waited) {
  const ControlClient client(dirs, timeout_seconds);
  const long pid = client.daemon_pid();
  if (pid <= 0) {
    // No pid file: none runs, or one is still starting (it writes the file
    // only when up) and would never be stopped. Found by its environment.
    const std::vector<long> starting = daemons_of(dirs.pipe);
    terminate_all(starting, 2.0);
    return daemons_of(dirs.pipe).empty();
  }
  // Waited for below: a server may outlive its daemon's pid file.
  std::vector<long> mps_pids = client.server_pids();
  if (clients_released) {
    for (long server : mps_pids) {
      client.send("shutdown_server " + std::to_string(server) + " -f");
    }
  }
  mps_pids.push_back(pid);
  // Servers still up (clients that may still run, or are dead): 5 s of grace.
  client.send("quit -t 5");
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds + 2.0);
  bool quit = false;
  while (!quit && std::chrono::steady_clock::now() < deadline) {
    // The daemon removes its pid file when it has quit, before it exits.
    quit = !process_alive(pid) || client.daemon_pid() <= 0;
    if (!quit) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // A daemon that did not quit is killed at once (with what it started).
  const ExitWait gone = wait_until_gone(dirs.pipe, mps_pids, quit ? timeout_seconds : 0.0);
  if (waited != nullptr) waited->add(gone);
  return !process_alive(pid);
}

}  // namespace mpsfw::mps
