#include "watchdog.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "session_dir.hpp"

namespace mpsfw::mps {

Watchdog::Watchdog(Watchdog&& o) noexcept : command_fd_(o.command_fd_), ack_fd_(o.ack_fd_) {
  o.command_fd_ = o.ack_fd_ = -1;
}

Watchdog::~Watchdog() {
  // Closing the pipe is the watchdog's signal to clean up; it outlives us.
  if (command_fd_ >= 0) close(command_fd_);
  if (ack_fd_ >= 0) close(ack_fd_);
}

// The pipes are close-on-exec so the daemons the leader starts later do not
// hold the write end open.
bool Watchdog::start(const std::string& dir, double timeout_seconds) {
  int cmd[2], ack[2];
  if (pipe2(cmd, O_CLOEXEC) != 0) return false;
  if (pipe2(ack, O_CLOEXEC) != 0) {
    close(cmd[0]);
    close(cmd[1]);
    return false;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {cmd[0], cmd[1], ack[0], ack[1]}) close(fd);
    return false;
  }
  if (pid == 0) {
    setsid();  // not killed with the rank's process group
    // Nor as the rank's descendant: the watchdog is a grandchild, adopted by
    // init once this child exits. Slurm (proctrack/linuxproc) kills a cancelled
    // step's process tree, and the watchdog must outlive the leader to clean up.
    if (fork() != 0) _exit(0);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    close(cmd[1]);
    close(ack[0]);
    char c = 0;
    const ssize_t n = read(cmd[0], &c, 1);
    // 'q': the leader's normal end, every local rank has released its GPU.
    // End of file: the leader died, other ranks may still be running.
    ExitWait waited;
    try {
      remove_session(dir, timeout_seconds, /*clients_released=*/n == 1, &waited);
    } catch (...) {
      // A folder that is not provably our session, or holds something we did
      // not write, stays: never removed blindly (mpsctl stop says why).
    }
    if (n == 1) {
      char ack_text[64];
      const int length =
          std::snprintf(ack_text, sizeof ack_text, "d %.6f %d", waited.seconds, waited.killed);
      const ssize_t w = write(ack[1], ack_text, static_cast<size_t>(length));
      (void)w;
    }
    _exit(0);
  }
  close(cmd[0]);
  close(ack[1]);
  int status = 0;
  waitpid(pid, &status, 0);  // the intermediate child, gone at once
  command_fd_ = cmd[1];
  ack_fd_ = ack[0];
  return true;
}

bool Watchdog::stop(ExitWait* waited) {
  if (command_fd_ < 0) return false;
  const ssize_t w = write(command_fd_, "q", 1);
  (void)w;
  // "d SECONDS KILLED", then end of file when the watchdog exits.
  char text[64] = {};
  size_t got = 0;
  while (got < sizeof text - 1) {
    const ssize_t r = read(ack_fd_, text + got, sizeof text - 1 - got);
    if (r > 0) {
      got += static_cast<size_t>(r);
    } else if (r == 0 || errno != EINTR) {
      break;
    }
  }
  close(command_fd_);
  close(ack_fd_);
  command_fd_ = ack_fd_ = -1;
  ExitWait seen;
  const bool confirmed = std::sscanf(text, "d %lf %d", &seen.seconds, &seen.killed) == 2;
  if (confirmed && waited != nullptr) *waited = seen;
  return confirmed;
}

}  // namespace mpsfw::mps
