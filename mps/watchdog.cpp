#include "watchdog.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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
    try {
      remove_session(dir, timeout_seconds, /*clients_released=*/n == 1);
    } catch (...) {
      // A folder that is not provably our session, or holds something we did
      // not write, stays: never removed blindly (mpsctl stop says why).
    }
    if (n == 1) {
      const ssize_t w = write(ack[1], "d", 1);
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

bool Watchdog::stop() {
  if (command_fd_ < 0) return false;
  const ssize_t w = write(command_fd_, "q", 1);
  (void)w;
  char c = 0;
  const ssize_t r = read(ack_fd_, &c, 1);
  close(command_fd_);
  close(ack_fd_);
  command_fd_ = ack_fd_ = -1;
  return r == 1;
}

}  // namespace mpsfw::mps
