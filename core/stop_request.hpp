#pragma once
// Stopping a run cleanly on a signal: SIGTERM (a scheduler's end of walltime,
// `kill`), SIGINT (Ctrl-C) and SIGUSR1 (Slurm's `--signal=B:USR1@120`). The
// first one only sets a flag; the time loop asks StopPoll at step boundaries,
// every rank stops at the same step, writes its checkpoint and report, and the
// job exits with 128 + the signal. A second signal, 3 s or more after the
// first, ends the process at once (the default action), for a run that does
// not come to its step boundary; repeats within 3 s are the same request
// delivered twice (Ctrl-C and `timeout` signal the whole process group, and
// mpirun forwards the signal to its ranks as well).
#include <mpi.h>

#include <atomic>
#include <memory>
#include <string>

#include "abort_watch.hpp"

namespace mpsfw {

// Installs the handlers (idempotent).
void install_stop_handlers();
// The first stop signal this process received, or 0.
int received_stop_signal();
// "SIGTERM", "SIGINT", "SIGUSR1", else "signal N".
const char* stop_signal_name(int signal);

// The exit code of a run stopped by `signal`: 128 + signal (143 for SIGTERM),
// as a shell reports a process killed by it; distinct from a bad input (1).
inline int stop_exit_code(int signal) { return 128 + signal; }

// Agreement between the ranks at step boundaries, cheap enough for every
// step: a check (one small MPI_Allreduce) happens about every
// `interval_seconds` of loop time, at a step every rank computes alike from
// what the previous check reduced, so all ranks take part in the same checks.
class StopPoll {
 public:
  explicit StopPoll(MPI_Comm comm, double interval_seconds = 0.5);

  // Collective when a check is due (every rank calls it after every step
  // with the same `step`): true when a check happened at this step; then
  // signal() and seconds() are the values agreed.
  bool check(long step);
  // The signal some rank received (the largest number), or 0.
  int signal() const { return signal_; }
  // Seconds since construction, the slowest rank's.
  double seconds() const { return seconds_; }

  // From the first check() on, a rank that does not come back to check()
  // within twice `peer_wait_seconds` (run.peer_wait_seconds) ends the job
  // with a message naming its last step: it waits for a rank that stalled or
  // died (a neighbour's message, a collective), where no error of its own
  // ever comes. Twice: a same-GPU wait that names the missing rank
  // (StreamSignals) speaks first. Time inside unwatched() does not count.
  void watch_stalls(double peer_wait_seconds);
  // While the returned guard lives, the stall watch waits: outputs and
  // checkpoints take as long as the file system does.
  class Unwatched {
   public:
    explicit Unwatched(StopPoll& poll);
    ~Unwatched();
    Unwatched(const Unwatched&) = delete;
    Unwatched& operator=(const Unwatched&) = delete;

   private:
    StopPoll& poll_;
  };
  Unwatched unwatched() { return Unwatched(*this); }

 private:
  // For the watcher: the message once the loop is overdue, else "".
  std::string overdue();
  void seen(long step);

  MPI_Comm comm_;
  double interval_;
  double start_;        // MPI_Wtime at construction
  long next_ = -1;      // the step of the next check; -1: the first step seen
  long last_step_ = 0;  // the step of the last check
  double last_seconds_ = 0;
  int signal_ = 0;
  double seconds_ = 0;
  // The stall watch: when the loop last came by (steady seconds, 0: not yet)
  // and at which step; how many unwatched() guards live.
  double stall_seconds_ = 0;
  std::atomic<double> seen_at_{0};
  std::atomic<long> seen_step_{0};
  std::atomic<int> unwatched_{0};
  double looked_at_ = 0;  // the watcher's last look (its own)
  std::unique_ptr<AbortWatch> watcher_;
};

}  // namespace mpsfw
