#pragma once
// The node leader's watchdog: a process of its own (its own session, no longer
// the leader's child, deaf to SIGINT/SIGTERM/SIGHUP) that waits on a pipe the leader holds. When
// the leader asks (stop()) or dies however it dies (end of file on the pipe: exception, MPI_Abort,
// SIGKILL) it stops the session's daemons and removes the session folder, so nothing outlives the
// job.
#include <string>

#include "control.hpp"

namespace mpsfw::mps {

class Watchdog {
 public:
  Watchdog() = default;
  Watchdog(Watchdog&& other) noexcept;
  Watchdog& operator=(Watchdog&&) = delete;
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  // Without stop(): closes the pipe, and the watchdog cleans up on its own.
  ~Watchdog();

  // Forks the watchdog for the session in `dir`; false if it could not.
  bool start(const std::string& dir, double timeout_seconds);
  bool running() const { return command_fd_ >= 0; }
  // Asks it to clean up now and waits until it has: true when it confirmed.
  // `waited` (if given): how long it waited for the MPS processes to exit
  // (stop_daemon, control.hpp).
  bool stop(ExitWait* waited = nullptr);

 private:
  int command_fd_ = -1;  // write end: 'q' = stop now; EOF = leader gone
  int ack_fd_ = -1;
};

}  // namespace mpsfw::mps
