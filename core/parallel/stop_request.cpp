#include "stop_request.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <exception>
#include <string>

#include "mpi_check.hpp"

namespace mpsfw {
namespace {

volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_first_second = 0;  // CLOCK_MONOTONIC seconds of the first

// One request often arrives twice: Ctrl-C or `timeout` signal the whole
// process group, and mpirun forwards the same signal to its ranks. Repeats
// within this many seconds are that one request; a later one ends the run.
constexpr long kSameRequestSeconds = 3;

long monotonic_seconds() {
  timespec now = {};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  return static_cast<long>(now.tv_sec);
}

extern "C" void on_stop_signal(int signal) {
  if (g_signal == 0) {
    g_signal = signal;
    g_first_second = static_cast<std::sig_atomic_t>(monotonic_seconds());
    return;
  }
  if (monotonic_seconds() - g_first_second < kSameRequestSeconds) return;
  // A second request: the default action, now.
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void install_stop_handlers() {
  run_clock_seconds();  // the wall limit counts from here
  for (int s : {SIGTERM, SIGINT, SIGUSR1}) {
    struct sigaction action = {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(s, &action, nullptr);
  }
}

int received_stop_signal() { return static_cast<int>(g_signal); }

const char* stop_signal_name(int signal) {
  switch (signal) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGUSR1:
      return "SIGUSR1";
  }
  static char text[32];
  std::snprintf(text, sizeof text, "signal %d", signal);
  return text;
}

StopPoll::StopPoll(MPI_Comm comm, double interval_seconds)
    : comm_(comm), interval_(interval_seconds), start_(MPI_Wtime()) {}

StopPoll::~StopPoll() {
  if (request_ == MPI_REQUEST_NULL) return;
  if (std::uncaught_exceptions() == 0) {
    MPI_Wait(&request_, MPI_STATUS_IGNORE);
    return;
  }
  // Unwinding: an error every rank agreed on left the same check in flight
  // everywhere, and it completes at once; one rank's own error may not have,
  // and the job is ending: a bounded try, never a wait.
  const double until = MPI_Wtime() + kUnwindSeconds;
  for (int done = 0; !done && MPI_Wtime() < until;) {
    if (MPI_Test(&request_, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
  }
}

void StopPoll::limit_wall(const WallLimit& limit, double reserve_seconds) {
  wall_ = limit;
  reserve_ = reserve_seconds;
}

namespace {
// How often the stall watch looks; a gap between its looks this long means
// the process itself was not running.
constexpr std::chrono::milliseconds kStallLookPeriod(200);
constexpr double kStoppedSeconds = 1.0;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

bool StopPoll::check(long step) {
  seen(step);
  if (next_ < 0) {  // the first step: agree at once, and learn a step's time
    previous_step_ = step - 1;
    post(step);
    MPSFW_MPI_CHECK(MPI_Wait(&request_, MPI_STATUS_IGNORE));
    take(step);
    post(step);
    return true;
  }
  if (step < next_) {
    // Between checks, a few local tests move the reduction on, so that it
    // is complete when the next check takes it.
    const double now = MPI_Wtime();
    if (now - tested_at_ >= interval_ / kTestsPerInterval) {
      tested_at_ = now;
      int done = 0;
      MPSFW_MPI_CHECK(MPI_Test(&request_, &done, MPI_STATUS_IGNORE));
    }
    return false;
  }
  MPSFW_MPI_CHECK(MPI_Wait(&request_, MPI_STATUS_IGNORE));
  take(step);
  post(step);
  return true;
}

void StopPoll::post(long step) {
  tested_at_ = MPI_Wtime();
  // How far past the point where ending still fits this rank's clock is;
  // a very negative number without a wall limit.
  const double left = wall_seconds_left(wall_);
  mine_[kSignal] = static_cast<double>(received_stop_signal());
  mine_[kClock] = MPI_Wtime() - start_;
  mine_[kOverrun] = std::isfinite(left) ? reserve_ - left : -1e300;
  posted_step_ = step;
  MPSFW_MPI_CHECK(MPI_Iallreduce(mine_, agreed_, kSlots, MPI_DOUBLE, MPI_MAX, comm_, &request_));
}

void StopPoll::take(long step) {
  signal_ = static_cast<int>(agreed_[kSignal]);
  seconds_ = agreed_[kClock];
  if (previous_step_ >= 0 && posted_step_ > previous_step_) {
    per_step_ = std::max(
        1e-9, (seconds_ - previous_seconds_) / static_cast<double>(posted_step_ - previous_step_));
  }
  previous_step_ = posted_step_;
  previous_seconds_ = seconds_;
  // The next check after about interval_ seconds at the pace so far; every
  // rank computes the same from the same agreed values.
  const long ahead =
      per_step_ > 0 ? static_cast<long>(std::clamp(interval_ / per_step_, 1.0, 1e6)) : 1;
  next_ = step + ahead;
  // Ending must still fit after the steps since the result was posted and
  // those until the next result is taken (twice: the pace may drop).
  const double to_next_result = static_cast<double>(step - posted_step_ + ahead) * per_step_;
  wall_reached_ = agreed_[kOverrun] + 2 * to_next_result >= 0;
}

void StopPoll::watch_stalls(double peer_wait_seconds) {
  stall_seconds_ = 2 * peer_wait_seconds;
  if (stall_seconds_ > 0 && !watcher_) {
    watcher_ = std::make_unique<AbortWatch>([this] { return overdue(); }, kStallLookPeriod);
  }
}

void StopPoll::seen(long step) {
  seen_step_.store(step, std::memory_order_relaxed);
  seen_at_.store(steady_seconds(), std::memory_order_release);
}

std::string StopPoll::overdue() {
  const double now = steady_seconds(), last_look = looked_at_;
  looked_at_ = now;
  // A watcher that did not run for a while means the process did not (it was
  // stopped, SIGSTOP, and resumed, maybe by the launcher's kill): it waited
  // for nobody, so the watch starts over instead of blaming the others.
  if (last_look != 0 && now - last_look > kStoppedSeconds) {
    if (seen_at_.load(std::memory_order_acquire) != 0) {
      seen_at_.store(now, std::memory_order_release);
    }
    return "";
  }
  const double at = seen_at_.load(std::memory_order_acquire);
  if (at == 0 || unwatched_.load(std::memory_order_acquire) > 0) return "";
  const double waited = now - at;
  if (waited <= stall_seconds_) return "";
  char text[64];
  std::snprintf(text, sizeof text, "%g s (twice run.peer_wait_seconds)", stall_seconds_);
  return "no step after step " + std::to_string(seen_step_.load(std::memory_order_relaxed)) +
         " finished within " + text +
         ": this rank waits for a rank that stalled or died (the rank that printed no such "
         "line); stopping";
}

StopPoll::Unwatched::Unwatched(StopPoll& poll) : poll_(poll) { ++poll_.unwatched_; }

StopPoll::Unwatched::~Unwatched() {
  // The watch starts over: what the guarded part took does not count.
  if (poll_.seen_at_.load(std::memory_order_acquire) != 0) {
    poll_.seen_at_.store(steady_seconds(), std::memory_order_release);
  }
  --poll_.unwatched_;
}

}  // namespace mpsfw
