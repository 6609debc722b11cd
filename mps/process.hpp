#pragma once
// Running a helper program (nvidia-cuda-mps-control, nvidia-smi) with extra
// environment variables, text on its stdin, and a time limit.
#include <string>
#include <utility>
#include <vector>

namespace mpsfw::mps {

struct ProcessResult {
  int exit_code = -1;  // -1: could not start; 124: killed at the time limit
  std::string output;  // stdout and stderr together
};

// argv[0] is looked up in PATH. `env` entries are NAME=value added to (or
// replacing in) this process's environment.
ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          const std::string& input, double timeout_seconds);

// Runs a program that starts a daemon and returns (nvidia-cuda-mps-control -d):
// its output goes to `log_file` (appended) rather than a pipe the daemon could
// keep open. Returns the launcher's exit code, 124 at the time limit.
// True while `pid` runs. A zombie (exited, not yet reaped: daemons end up as
// children of whatever reaps orphans, e.g. mpirun's daemon) counts as gone.
bool process_alive(long pid);

int run_detaching(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                  const std::string& log_file, double timeout_seconds);

}  // namespace mpsfw::mps
