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
#include <mpsfw/core/base/wall_limit.hpp>

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
// step. About every `interval_seconds` of loop time (in steps, at the pace of
// the last interval) every rank contributes what it knows — a stop signal,
// its clock, how close its wall limit is — to a nonblocking MPI_Iallreduce,
// and goes on stepping; the next check, one interval later, takes the agreed
// result and posts the next (a few MPI_Test calls between, by each rank's
// own clock, move it on). So no check makes the ranks wait for each other,
// checks can come often, and a stop asked for is agreed within about
// two intervals at the pace the run has then: a pace that drops F-fold after
// a check delays it by F intervals, not F times the long interval a
// blocking check would need to cost nothing. Every rank computes the same
// schedule from the same agreed values, so all take part in the same checks.
// The first check waits for its result at once (a signal that came before
// the loop stops it after its first step).
class StopPoll {
 public:
  static constexpr double kIntervalSeconds = 0.05;

  explicit StopPoll(MPI_Comm comm, double interval_seconds = kIntervalSeconds);
  // Completes the check in flight; while an exception unwinds, only if it
  // completes within kUnwindSeconds (the ranks may not all have posted it).
  ~StopPoll();
  StopPoll(const StopPoll&) = delete;
  StopPoll& operator=(const StopPoll&) = delete;

  // The run must end before `limit` (WallLimit): wall_limit_reached()
  // turns true at the check after which the time left may no longer hold
  // `reserve_seconds` (what ending takes: the last diagnostics, output and
  // checkpoint, teardown) plus twice the steps until the next check.
  void limit_wall(const WallLimit& limit, double reserve_seconds);
  // A new reserve, e.g. after a checkpoint took longer than thought.
  void reserve(double seconds) { reserve_ = seconds; }

  // Collective when a check is due (every rank calls it after every step
  // with the same `step`): true when an agreed result was taken at this
  // step; then signal(), wall_limit_reached() and seconds() are its values.
  bool check(long step);
  // The signal some rank received (the largest number), or 0.
  int signal() const { return signal_; }
  // Whether some rank's wall limit leaves no more time than the reserve.
  bool wall_limit_reached() const { return wall_reached_; }
  // Seconds since construction, the slowest rank's, at the check agreed.
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
  // What each rank contributes to a check, reduced with MPI_MAX.
  enum Slot { kSignal, kClock, kOverrun, kSlots };
  static constexpr double kTestsPerInterval = 8;
  static constexpr double kUnwindSeconds = 1;
  // For the watcher: the message once the loop is overdue, else "".
  std::string overdue();
  void seen(long step);
  void post(long step);
  // Takes the result of the check posted at posted_step_, at `step`.
  void take(long step);

  MPI_Comm comm_;
  double interval_;
  double start_;    // MPI_Wtime at construction
  long next_ = -1;  // the step of the next check; -1: the first step seen
  MPI_Request request_ = MPI_REQUEST_NULL;
  double mine_[kSlots] = {};
  double agreed_[kSlots] = {};
  long posted_step_ = 0;  // the step the check in flight was posted at
  double tested_at_ = 0;  // MPI_Wtime of the last post or test
  // The step and clock of the result taken before: the pace.
  long previous_step_ = -1;
  double previous_seconds_ = 0;
  double per_step_ = 0;  // agreed seconds a step; 0: not known yet
  WallLimit wall_;
  double reserve_ = 0;
  int signal_ = 0;
  bool wall_reached_ = false;
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
