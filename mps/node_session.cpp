#include "node_session.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cap_policy.hpp"
#include "control.hpp"
#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/mpi_check.hpp"
#include "fault_report.hpp"

#if MPSFW_HAVE_CUDA
#include <cuda_runtime_api.h>
#define MPSFW_CUDART_VERSION CUDART_VERSION
#else
#define MPSFW_CUDART_VERSION 0
#endif

namespace mpsfw::mps {
namespace fs = std::filesystem;
namespace {

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// Letters, digits, '.', '_' and '-' only: the job id ends up in a path.
std::string path_safe(const std::string& text) {
  std::string out;
  for (char c : text) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  return out;
}

// The watchdog: waits on a pipe the leader holds; when the leader asks ('q')
// or dies (end of file) it stops the daemons and removes the folder. Returns
// its PID, with the leader's ends of the command and acknowledgement pipes.
// The pipes are close-on-exec so the daemons the leader starts later do not
// hold the write end open.
pid_t start_watchdog(const std::string& dir, double timeout, int* command_fd, int* ack_fd) {
  int cmd[2], ack[2];
  if (pipe2(cmd, O_CLOEXEC) != 0) return -1;
  if (pipe2(ack, O_CLOEXEC) != 0) {
    close(cmd[0]);
    close(cmd[1]);
    return -1;
  }
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    setsid();  // not killed with the rank's process group
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    close(cmd[1]);
    close(ack[0]);
    char c = 0;
    const ssize_t n = read(cmd[0], &c, 1);
    remove_session(dir, timeout);
    if (n == 1) {
      const ssize_t w = write(ack[1], "d", 1);
      (void)w;
    }
    _exit(0);
  }
  close(cmd[0]);
  close(ack[1]);
  *command_fd = cmd[1];
  *ack_fd = ack[0];
  return pid;
}

}  // namespace

std::string NodeSession::default_root(const MpsConfig& config) {
  if (!config.directory.empty()) return config.directory;
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

std::string NodeSession::session_dir(const std::string& root, const std::string& job) {
  return root + "/mpsfw-mps-" + path_safe(job) + "-" + path_safe(host_name());
}

NodeSession::NodeSession(NodeSession&& o) noexcept
    : config_(std::move(o.config_)),
      launcher_(std::move(o.launcher_)),
      status_(std::move(o.status_)),
      dir_(std::move(o.dir_)),
      gpus_(std::move(o.gpus_)),
      my_gpu_(o.my_gpu_),
      ready_(o.ready_),
      pending_error_(std::move(o.pending_error_)),
      watchdog_pid_(o.watchdog_pid_),
      watchdog_fd_(o.watchdog_fd_),
      watchdog_ack_fd_(o.watchdog_ack_fd_),
      torn_down_(o.torn_down_) {
  o.watchdog_pid_ = -1;
  o.watchdog_fd_ = -1;
  o.watchdog_ack_fd_ = -1;
  o.torn_down_ = true;
}

NodeSession::~NodeSession() {
  // Closing the pipe is the watchdog's signal to clean up; it outlives us.
  if (watchdog_fd_ >= 0) close(watchdog_fd_);
  if (watchdog_ack_fd_ >= 0) close(watchdog_ack_fd_);
}

NodeSession NodeSession::before_mpi(const MpsConfig& config, const LauncherInfo& launcher) {
  NodeSession s(config);
  s.launcher_ = launcher;
  if (config.enable == Enable::Off) {
    s.status_.reason = "mps.enable = off";
    s.ready_ = true;
    return s;
  }
  if (!launcher.known) {
    s.status_.bring_up = "after MPI_Init (the launcher set no local-rank variables)";
    return s;  // after_mpi brings it up
  }
  s.status_.bring_up = "before MPI_Init (local rank from " + launcher.source + ")";
  try {
    s.bring_up(launcher.local_rank, launcher.local_size);
  } catch (const std::exception& e) {
    s.pending_error_ = e.what();
  }
  return s;
}

void NodeSession::after_mpi(MPI_Comm node) {
  if (!ready_ && pending_error_.empty()) {
    int rank = 0, size = 1;
    MPSFW_MPI_CHECK(MPI_Comm_rank(node, &rank));
    MPSFW_MPI_CHECK(MPI_Comm_size(node, &size));
    // Without launcher variables all ranks agree on a job name through MPI.
    long leader_pid = static_cast<long>(getpid());
    MPSFW_MPI_CHECK(MPI_Bcast(&leader_pid, 1, MPI_LONG, 0, node));
    launcher_.job = "pid" + std::to_string(leader_pid);
    try {
      bring_up(rank, size);
    } catch (const std::exception& e) {
      pending_error_ = e.what();
    }
  }
  if (!pending_error_.empty()) throw Error(pending_error_);
}

CudaGate NodeSession::cuda_gate() const {
  if (!ready_) throw Error("internal: CUDA used before the MPS session was ready");
  return CudaGate();
}

void NodeSession::give_up(const std::string& reason) {
  if (config_.enable == Enable::On) throw Error("MPS (mps.enable = on): " + reason);
  status_.state = "NOT active";
  status_.reason = reason;
  unsetenv("CUDA_MPS_PIPE_DIRECTORY");
  unsetenv("CUDA_MPS_LOG_DIRECTORY");
  ready_ = true;
}

void NodeSession::bring_up(int local_rank, int local_size) {
  const std::vector<GpuInfo> gpus = visible_gpus();
  if (gpus.empty()) {
    give_up("no GPU is visible (CUDA_VISIBLE_DEVICES, /proc/driver/nvidia/gpus, nvidia-smi)");
    return;
  }
  const int n = static_cast<int>(gpus.size());
  my_gpu_ = gpu_of_rank(local_rank, n);
  const int k = ranks_on_gpu(my_gpu_, local_size, n);
  const int busiest = ranks_on_gpu(0, local_size, n);
  if (config_.enable == Enable::Auto && busiest <= 1) {
    status_.state = "not needed";
    status_.reason = "one rank per GPU";
    ready_ = true;
    return;
  }
  // Preflight: what MPS would refuse later, refused now with a clear message.
  const int limit = max_clients_per_gpu(MPSFW_CUDART_VERSION);
  if (busiest > limit) {
    throw Error("MPS: " + std::to_string(busiest) + " ranks would share one GPU, more than the " +
                std::to_string(limit) + " clients an MPS server takes; use fewer ranks per node");
  }
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  const rlim_t need = static_cast<rlim_t>(64 + 16 * busiest);
  if (files.rlim_cur != RLIM_INFINITY && files.rlim_cur < need) {
    throw Error("MPS: the open-file limit (ulimit -n = " + std::to_string(files.rlim_cur) +
                ") is below the " + std::to_string(need) + " that " + std::to_string(busiest) +
                " clients per GPU need; raise it (ulimit -n " + std::to_string(need) + ")");
  }
  const int cap = config_.active_thread_percentage > 0
                      ? config_.active_thread_percentage
                      : auto_active_thread_percentage(k, config_.policy);

  // Daemons that already answer (site, prolog, mpsctl) are reused, never stopped.
  if (reuse_mpsctl_session(cap) || reuse_site_daemon(gpus, cap)) {
    ready_ = true;
    return;
  }

  dir_ = session_dir(default_root(config_), launcher_.job);
  if (local_rank == 0) {
    lead(gpus, local_size);
  } else {
    follow(static_cast<int>(gpus.size()));
  }
  if (status_.state == "NOT active") return;
  export_environment(gpus_.at(static_cast<size_t>(my_gpu_)), gpus_.at(static_cast<size_t>(my_gpu_)).cap);
  ready_ = true;
}

bool NodeSession::reuse_mpsctl_session(int cap) {
  const char* dir = std::getenv("MPSFW_MPS_SESSION");
  if (dir == nullptr || *dir == '\0') return false;
  SessionRecord record;
  if (!read_ready(dir, &record) || static_cast<size_t>(my_gpu_) >= record.gpus.size()) {
    give_up(std::string("MPSFW_MPS_SESSION=") + dir + " holds no ready session for GPU " +
            std::to_string(my_gpu_) + " (start one with mpsctl start)");
    return true;
  }
  const SessionGpu& mine = record.gpus[static_cast<size_t>(my_gpu_)];
  if (!ControlClient({mine.pipe_dir, mine.log_dir}, config_.timeout_seconds).answers()) {
    give_up("the daemon of MPSFW_MPS_SESSION=" + std::string(dir) + " for GPU " + mine.uuid +
            " does not answer");
    return true;
  }
  gpus_ = record.gpus;
  status_.state = "reused";
  status_.reason = std::string("daemons of the mpsctl session ") + dir;
  // The session's default cap was set for mpsctl's guess of the rank count.
  // A client's CUDA_MPS_ACTIVE_THREAD_PERCENTAGE can only lower it (seen on an
  // H200: a client asking 100% under a 50% daemon got 50%).
  export_environment(mine, obey_daemon_cap(mine.cap, cap));
  return true;
}

int NodeSession::obey_daemon_cap(int daemon_cap, int wanted) {
  if (daemon_cap <= 0 || daemon_cap >= wanted) return wanted;
  status_.reason += "; the reused daemon's default cap " + std::to_string(daemon_cap) +
                    "% is below this job's " + std::to_string(wanted) +
                    "% and a client cannot exceed it: ranks get " + std::to_string(daemon_cap) + "%";
  return daemon_cap;
}

bool NodeSession::reuse_site_daemon(const std::vector<GpuInfo>& gpus, int cap) {
  const char* site_pipe = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  if (site_pipe == nullptr || *site_pipe == '\0') return false;
  const char* site_log = std::getenv("CUDA_MPS_LOG_DIRECTORY");
  const ControlClient site({site_pipe, site_log ? site_log : ""}, config_.timeout_seconds);
  if (!site.answers()) return false;
  status_.state = "reused";
  status_.reason = "a daemon already answered in CUDA_MPS_PIPE_DIRECTORY=" + std::string(site_pipe);
  status_.pipe_dir = site_pipe;
  status_.gpu_uuid = gpus[static_cast<size_t>(my_gpu_)].uuid;
  // A cap the site set (Slurm --gres=mps:N) wins over our default.
  const char* site_cap = std::getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
  status_.cap = site_cap && config_.active_thread_percentage == 0 ? std::atoi(site_cap) : cap;
  const int daemon_cap = site.default_thread_percentage();
  if (daemon_cap > 0) status_.cap = obey_daemon_cap(daemon_cap, status_.cap);
  setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(status_.cap).c_str(), 1);
  SessionGpu g;
  g.index = my_gpu_;
  g.uuid = status_.gpu_uuid;
  g.pipe_dir = site_pipe;
  g.log_dir = site_log ? site_log : "";
  g.daemon_pid = site.daemon_pid();
  g.cap = status_.cap;
  // One daemon serves every GPU here: the same entry for each.
  gpus_.assign(gpus.size(), g);
  return true;
}

void NodeSession::lead(const std::vector<GpuInfo>& gpus, int local_size) {
  const int n = static_cast<int>(gpus.size());
  std::error_code ec;
  if (fs::exists(dir_, ec)) {
    // Same job name on this node: left behind by a run that died. Its daemons
    // are not ours to keep.
    remove_session(dir_, config_.timeout_seconds);
    status_.reason = "removed a stale session folder " + dir_;
  }
  try {
    fs::create_directories(dir_);
    watchdog_pid_ = start_watchdog(dir_, config_.timeout_seconds, &watchdog_fd_, &watchdog_ack_fd_);
    if (watchdog_pid_ < 0) throw Error("MPS: cannot start the watchdog process");
    std::vector<int> ranks(static_cast<size_t>(n));
    for (int g = 0; g < n; ++g) ranks[static_cast<size_t>(g)] = ranks_on_gpu(g, local_size, n);
    gpus_ = start_session_daemons(dir_, gpus, ranks, config_);
    write_ready(dir_, {static_cast<long>(getpid()), gpus_});
    status_.owner = true;
    status_.state = "started";
    for (const SessionGpu& g : gpus_) status_.daemon_pids.push_back(g.daemon_pid);
  } catch (const std::exception& e) {
    write_failed(dir_, static_cast<long>(getpid()), e.what());
    give_up(e.what());
  }
}

void NodeSession::follow(int gpus) {
  // The leader may spend one timeout on a stale folder and one per GPU.
  const double wait = config_.timeout_seconds * (gpus + 2);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait);
  while (std::chrono::steady_clock::now() < deadline) {
    // A failed file from a dead leader is stale; the live leader will remove it.
    const std::string failed = read_failed(dir_, /*live_only=*/true);
    if (!failed.empty()) {
      give_up("the node leader could not start MPS: " + failed);
      return;
    }
    SessionRecord record;
    // A ready file whose leader is gone is a stale one the leader will remove.
    if (read_ready(dir_, &record) && process_alive(record.leader) &&
        static_cast<size_t>(my_gpu_) < record.gpus.size()) {
      gpus_ = std::move(record.gpus);
      status_.state = "started";
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", wait);
  give_up("no ready file from the node leader in " + dir_ + " after " + seconds +
          " s ((GPUs + 2) x mps.timeout_seconds)");
}

void NodeSession::export_environment(const SessionGpu& gpu, int cap) {
  setenv("CUDA_MPS_PIPE_DIRECTORY", gpu.pipe_dir.c_str(), 1);
  setenv("CUDA_MPS_LOG_DIRECTORY", gpu.log_dir.c_str(), 1);
  // One daemon per GPU serves that GPU only; the client sees it as device 0.
  setenv("CUDA_VISIBLE_DEVICES", gpu.uuid.c_str(), 1);
  setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(cap).c_str(), 1);
  if (!config_.pinned_device_mem_limit.empty()) {
    setenv("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", ("0=" + config_.pinned_device_mem_limit).c_str(), 1);
  }
  status_.pipe_dir = gpu.pipe_dir;
  status_.gpu_uuid = gpu.uuid;
  status_.cap = cap;
  status_.total_sms = gpu.total_sms;
}

void NodeSession::verify(MPI_Comm node, const DeviceBinding& device) {
  int rank = 0, size = 1;
  MPSFW_MPI_CHECK(MPI_Comm_rank(node, &rank));
  MPSFW_MPI_CHECK(MPI_Comm_size(node, &size));
  status_.sms = device.multiprocessors;
  const bool managed = status_.state == "started" || status_.state == "reused";
  // What each rank knows of itself: pid, GPU, MPS attribute, SMs, cap, world rank.
  constexpr int kFields = 6;
  int world_rank = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank));
  long mine[kFields] = {static_cast<long>(getpid()), my_gpu_, device.mps_enabled,
                        device.multiprocessors, status_.cap, world_rank};
  std::vector<long> all(kFields * static_cast<size_t>(size));
  MPSFW_MPI_CHECK(MPI_Allgather(mine, kFields, MPI_LONG, all.data(), kFields, MPI_LONG, node));
  // Every rank keeps the node's PIDs: a dying rank names the faulting one.
  for (int r = 0; r < size; ++r) {
    rank_of_pid_[all[kFields * static_cast<size_t>(r)]] =
        static_cast<int>(all[kFields * static_cast<size_t>(r) + 5]);
  }
  std::vector<int> ok(static_cast<size_t>(size), 0);
  std::string reasons;
  if (rank == 0 && managed) {
    std::vector<std::vector<long>> clients(gpus_.size());
    for (size_t g = 0; g < gpus_.size(); ++g) {
      const ControlClient control({gpus_[g].pipe_dir, gpus_[g].log_dir}, config_.timeout_seconds);
      for (long server : control.server_pids()) {
        if (std::find(status_.server_pids.begin(), status_.server_pids.end(), server) ==
            status_.server_pids.end()) {
          status_.server_pids.push_back(server);
        }
        for (long c : control.client_pids(server)) clients[g].push_back(c);
      }
    }
    for (int r = 0; r < size; ++r) {
      const long* x = &all[kFields * static_cast<size_t>(r)];
      const size_t g = static_cast<size_t>(x[1]) < gpus_.size() ? static_cast<size_t>(x[1]) : 0;
      const bool client = std::find(clients[g].begin(), clients[g].end(), x[0]) != clients[g].end();
      // A rank must be a client of its own GPU's server only (fault isolation).
      std::string elsewhere;
      for (size_t o = 0; o < gpus_.size(); ++o) {
        if (o != g && std::find(clients[o].begin(), clients[o].end(), x[0]) != clients[o].end()) {
          elsewhere += ", ALSO in the client list of GPU " + gpus_[o].uuid;
        }
      }
      const int want = gpus_[g].total_sms > 0 ? expected_sms(gpus_[g].total_sms, static_cast<int>(x[4])) : -1;
      const bool sms_ok = want < 0 || std::abs(static_cast<int>(x[3]) - want) <= 2;
      ok[static_cast<size_t>(r)] = x[2] == 1 && client && elsewhere.empty() && sms_ok;
      std::ostringstream line;
      line << "local rank " << r << " (pid " << x[0] << "): GPU " << gpus_[g].uuid << ", cap "
           << x[4] << "%, " << x[3] << " SMs" << (want > 0 ? " (expected " + std::to_string(want) + ")" : "")
           << ", MPS attribute " << x[2] << ", " << (client ? "in" : "NOT in")
           << " the server's client list" << elsewhere;
      status_.per_rank.push_back(line.str());
      if (!ok[static_cast<size_t>(r)]) reasons += (reasons.empty() ? "" : "; ") + line.str();
    }
  }
  MPSFW_MPI_CHECK(MPI_Bcast(ok.data(), size, MPI_INT, 0, node));
  int verified = 0;
  for (int v : ok) verified += v;
  status_.verified = managed ? verified : 0;
  status_.expected = managed ? size : 0;
  status_.active = managed && ok[static_cast<size_t>(rank)] == 1;
  if (!managed) return;
  if (verified == size) {
    status_.state = status_.state == "reused" ? "active (reused daemon)" : "active";
    return;
  }
  std::string message = std::to_string(size - verified) + " of " + std::to_string(size) +
                         " local ranks are not verified MPS clients: " + reasons;
  if (config_.enable == Enable::On) agree_on_error(node, rank == 0 ? "MPS (mps.enable = on): " + message : "MPS verification failed");
  status_.state = "NOT active";
  status_.reason = message;
}

std::string NodeSession::fault_report(const std::string& error) const {
  if (rank_of_pid_.empty() || static_cast<size_t>(my_gpu_) >= gpus_.size()) return "";
  const std::string path = gpus_[static_cast<size_t>(my_gpu_)].log_dir + "/server.log";
  const auto read_fault = [&](ServerFault* fault) {
    std::ifstream log(path);
    std::stringstream text;
    text << log.rdbuf();
    return find_server_fault(text.str(), fault);
  };
  ServerFault fault;
  bool found = read_fault(&fault);
  // A client can see its error before the server has logged it: after a CUDA
  // error, give the server a moment (this path ends the job anyway).
  const auto give_up_at = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!found && error.find("CUDA") != std::string::npos &&
         std::chrono::steady_clock::now() < give_up_at) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    found = read_fault(&fault);
  }
  const bool victim = is_mps_victim_error(error);
  if (!found && !victim) return "";
  const long me = static_cast<long>(getpid());
  const auto has = [me](const std::vector<long>& pids) {
    return std::find(pids.begin(), pids.end(), me) != pids.end();
  };
  std::string out = " [MPS: ";
  if (found && has(fault.faulting)) {
    out += "this rank caused the fault; ";
  } else if ((found && has(fault.torn_down)) || victim) {
    out += "this rank failed because its GPU's MPS server tore down its clients after another one's fault; ";
  }
  out += found ? describe_server_fault(fault, rank_of_pid_) : "no fault in " + path;
  return out + "]";
}

void NodeSession::teardown(MPI_Comm node) {
  if (torn_down_) return;
  torn_down_ = true;
  // Every local rank has released its device: no client is left.
  MPSFW_MPI_CHECK(MPI_Barrier(node));
  if (watchdog_fd_ < 0) return;
  const ssize_t w = write(watchdog_fd_, "q", 1);
  (void)w;
  char c = 0;
  const ssize_t r = read(watchdog_ack_fd_, &c, 1);
  close(watchdog_fd_);
  close(watchdog_ack_fd_);
  watchdog_fd_ = watchdog_ack_fd_ = -1;
  int status = 0;
  waitpid(watchdog_pid_, &status, 0);
  status_.reason += (status_.reason.empty() ? "" : "; ") +
                    std::string(r == 1 ? "daemons stopped, folders removed" : "watchdog did not confirm teardown");
}

}  // namespace mpsfw::mps
