#pragma once
// Talking to one MPS control daemon through `nvidia-cuda-mps-control`
// (MPSFW_MPS_CONTROL names another program, e.g. a test double): start it,
// ask it questions, stop it.
#include <string>
#include <vector>

#include "process.hpp"

namespace mpsfw::mps {

struct DaemonDirs {
  std::string pipe;  // CUDA_MPS_PIPE_DIRECTORY
  std::string log;   // CUDA_MPS_LOG_DIRECTORY (control.log, server.log)
};

class ControlClient {
 public:
  explicit ControlClient(DaemonDirs dirs, double timeout_seconds = 5.0)
      : dirs_(std::move(dirs)), timeout_(timeout_seconds) {}

  ProcessResult send(const std::string& command) const;
  // A question (a command without effects) sent again while the program
  // fails, until it succeeds or the time limit has passed: one of 32 ranks
  // asking a daemon at once saw a failure that asking again rides out.
  ProcessResult ask(const std::string& question) const;
  // The daemon answers get_server_list within the time limit.
  bool answers() const;
  // PID from the daemon's pid file if that process is alive, else -1. The
  // socket files stay after a daemon quits: only this says one is running.
  long daemon_pid() const;
  std::vector<long> server_pids() const;
  std::vector<long> client_pids(long server_pid) const;
  // The daemon's default active thread percentage (clients cannot exceed it),
  // or -1 when it does not say.
  int default_thread_percentage() const;
  const DaemonDirs& dirs() const { return dirs_; }

 private:
  DaemonDirs dirs_;
  double timeout_;
};

std::string control_program();

// Control daemons (of control_program(), alive) whose environment names
// `pipe_dir` as CUDA_MPS_PIPE_DIRECTORY: ours, also before their pid file
// exists. `-d` forks, calls setsid and forks again, so the PID we spawn is not
// the daemon's; the pipe folder we gave it is unique to its session and GPU.
std::vector<long> daemons_of(const std::string& pipe_dir);
// What stop_daemon waited for after the daemon said it had quit: its
// processes (daemon, servers) still exiting, `seconds` until all were gone,
// and how many it killed because they were still there after the time limit.
struct ExitWait {
  double seconds = 0;
  int killed = 0;
  void add(const ExitWait& other) {
    seconds += other.seconds;
    killed += other.killed;
  }
};

// Starts `nvidia-cuda-mps-control -d` for one GPU (CUDA_VISIBLE_DEVICES=uuid)
// and waits until it answers. Throws Error naming the log folder on failure
// or after `timeout_seconds`, having stopped the daemon (even one that has
// not written its pid file yet). Returns the daemon's PID.
long start_daemon(const DaemonDirs& dirs, const std::string& gpu_uuid, double timeout_seconds);

// Asks the daemon to quit, waits until it is gone (SIGKILL after the time
// limit); a daemon still starting (no pid file yet: daemons_of) gets SIGTERM,
// then SIGKILL. True when no daemon is left. `clients_released`: every client has
// released its GPU (a job's normal end, after its node barrier), so the
// servers are shut down at once: `quit` alone waits until each client process
// has exited, or 5 s, and a client stays connected after cudaDeviceReset.
// Otherwise (a leader that died, a stale session, mpsctl stop) clients may
// still be running and get the 5 s.
// The daemon removes its pid file before it has exited, and its servers end
// after it: stop_daemon returns only once every MPS process of the pipe
// folder is gone (the daemon, the servers it listed, any control daemon or
// nvidia-cuda-mps-server whose environment names the folder), so that the
// next job on the node meets none of them; after `timeout_seconds` more it
// kills what is left. `waited` (if given) gets how long that took and how
// many it killed.
bool stop_daemon(const DaemonDirs& dirs, double timeout_seconds, bool clients_released = false,
                 ExitWait* waited = nullptr);

}  // namespace mpsfw::mps
