#pragma once
// A session folder on disk, shared by the in-process NodeSession and mpsctl:
//   <root>/mpsfw-mps-<job>-<host>/
//     gpu<N>/pipe, gpu<N>/log   one control daemon per GPU (fault isolation)
//     ready                     written last: "leader PID" (0 for mpsctl) and a
//                               line per GPU (index uuid daemon-pid cap SMs pipe log
//                               peers: the UUIDs it reaches, comma-separated, or -;
//                               the pinned-memory limit the daemon read back, or -;
//                               then, to the line's end, its MIG slice, or -)
//     failed                    instead of ready: why bring-up failed
//     starting                  the PID bringing it up (written first)
//   <root>/mpsfw-logs-<job>-<host>/gpu<N>/log   a failed bring-up's logs, kept
// Each of ready, failed and starting begins with the line
// "mpsfw-session 1 <host>": what proves a folder is a session of this mpsfw on
// this host before anything in it is stopped or removed (remove_session).
#include <chrono>
#include <string>
#include <vector>

#include "control.hpp"
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
  std::string pinned;  // the pinned-memory limit as the daemon reads it back ("8G"), or ""
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
// False when there is no ready file (yet). Reads the ready files of older
// mpsfw versions too (no "mpsfw-session" line, no pinned field); throws Error
// for a record of a newer version.
bool read_ready(const std::string& dir, SessionRecord* record);
// The failed file's reason, or "" (also when `live_only` and its leader is gone).
std::string read_failed(const std::string& dir, bool live_only = false);

// Quits every daemon under `dir` and removes it, entry by entry, but only a
// folder that is provably a session of this mpsfw on this host: named
// mpsfw-mps-<job>-<this host>, holding one of our records (or nothing at
// all), or an older mpsfw's record (no head) of a rank that is dead here whose
// GPU lines name this folder's gpu<N>/{pipe,log}. Otherwise throws Error naming the folder and why,
// having touched nothing. A session that holds something mpsfw never writes has its daemons stopped
// but is not removed (Error naming what is in the way). Nothing there: nothing to do.
// `clients_released`, `waited` (summed over the daemons): see stop_daemon (control.hpp).
void remove_session(const std::string& dir, double timeout_seconds, bool clients_released = false,
                    ExitWait* waited = nullptr);

// The PID in the starting file, -1 without one.
long read_starting(const std::string& dir);
// Where a failed bring-up of session `dir` keeps its logs:
// <root>/mpsfw-mps-J-H -> <root>/mpsfw-logs-J-H.
std::string kept_logs_dir(const std::string& dir);
// The lock file of `mpsctl start` for session `dir`: <root>/mpsfw-lock-J-H
// (not a session: list_sessions skips it; kept, as removing a lock another
// process may be waiting on would let two starts in).
std::string session_lock_path(const std::string& dir);

// This host's name as session folders carry it (letters, digits, '.', '_', '-').
std::string session_host();
// The folder name of a job's session on this host: mpsfw-mps-<job>-<host>.
std::string session_name(const std::string& job);

// This host's session folders under `root` (mpsfw-mps-*-<host>, whose record,
// if any, names this host); `other_hosts` (if given) counts the others, which
// a shared mps.directory holds and which are not this host's to judge.
std::vector<std::string> list_sessions(const std::string& root, int* other_hosts = nullptr);

}  // namespace mpsfw::mps
