#pragma once
// A session folder on disk, shared by the in-process NodeSession and mpsctl:
//   <root>/mpsfw-mps-<job>-<host>/
//     gpu<N>/pipe, gpu<N>/log   one control daemon per GPU (fault isolation)
//     ready                     written last: "leader PID" (0 for mpsctl) and a
//                               line per GPU (index uuid daemon-pid cap SMs pipe log
//                               peers: the UUIDs it reaches, comma-separated, or -;
//                               then, to the line's end, its MIG slice, or -)
//     failed                    instead of ready: why bring-up failed
//     starting                  the PID bringing it up (written first)
//   <root>/mpsfw-logs-<job>-<host>/gpu<N>/log   a failed bring-up's logs, kept
#include <chrono>
#include <string>
#include <vector>

#include "gpu_inventory.hpp"
#include "mps_config.hpp"
#include "process.hpp"

namespace mpsfw::mps {

struct SessionGpu {
  int index = 0;
  std::string uuid;
  std::string pipe_dir, log_dir;
  long daemon_pid = -1;
  int cap = 100;
  int total_sms = 0;               // 0: unknown
  std::vector<std::string> peers;  // the node's GPUs this one reaches directly (probe_gpu)
  std::string mig;                 // GpuInfo::mig: "MIG 3g.40gb of GPU-..." or ""
};

struct SessionRecord {
  long leader = -1;  // PID of the rank that owns it; 0: started by mpsctl (persistent)
  std::vector<SessionGpu> gpus;
};

// Seconds on the steady clock since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Seconds start_session_daemons spent in each step, over all GPUs.
struct StartTimes {
  double daemon_start = 0, daemon_config = 0, server_start = 0, probe = 0;
};

// Creates the folder and starts one daemon per GPU in `gpus` with its cap
// (ranks_per_gpu[i] ranks share GPU i; caps from `config`); `start_servers`:
// each daemon starts its MPS server now (as this user) rather than when the
// first client connects, so that it comes up while the ranks run MPI_Init.
// Then checks what CUDA says of each GPU, asked in a child process (SM count,
// memory, compute mode). Throws Error naming logs on failure; leaves no daemon
// behind then, and moves the logs to kept_logs_dir(dir) (the message names
// them there), so they outlive the session folder.
std::vector<SessionGpu> start_session_daemons(const std::string& dir,
                                              const std::vector<GpuInfo>& gpus,
                                              const std::vector<int>& ranks_per_gpu,
                                              const MpsConfig& config, bool start_servers,
                                              StartTimes* times = nullptr);

void write_ready(const std::string& dir, const SessionRecord& record);
// `leader`: the PID that failed, so that a stale file is told from a fresh one.
void write_failed(const std::string& dir, long leader, const std::string& reason);
// False when there is no ready file (yet).
bool read_ready(const std::string& dir, SessionRecord* record);
// The failed file's reason, or "" (also when `live_only` and its leader is gone).
std::string read_failed(const std::string& dir, bool live_only = false);

// Quits every daemon under `dir` and removes it. `clients_released`: see
// stop_daemon (control.hpp).
void remove_session(const std::string& dir, double timeout_seconds, bool clients_released = false);

// The PID in the starting file, -1 without one.
long read_starting(const std::string& dir);
// Where a failed bring-up of session `dir` keeps its logs:
// <root>/mpsfw-mps-J-H -> <root>/mpsfw-logs-J-H.
std::string kept_logs_dir(const std::string& dir);
// The lock file of `mpsctl start` for session `dir`: <root>/mpsfw-lock-J-H
// (not a session: list_sessions skips it; kept, as removing a lock another
// process may be waiting on would let two starts in).
std::string session_lock_path(const std::string& dir);

// Session folders under `root` (names starting with mpsfw-mps-).
std::vector<std::string> list_sessions(const std::string& root);

}  // namespace mpsfw::mps
