#pragma once
// When a run must be done: the wall-time budget of run.wall_limit, or by
// default the job's end where the scheduler publishes it (SLURM_JOB_END_TIME,
// Unix seconds). The time loop stops every rank at one step early enough to
// write its checkpoint and end (StopPoll), whatever the launcher forwards:
// no signal needs to reach the ranks.
#include <limits>
#include <string>

namespace mpsfw {

// The exit code of a run that stopped itself at its wall limit: EX_TEMPFAIL
// of sysexits.h ("try again"), distinct from a failure (1) and from a stop
// signal (128 + signal). A job script requeues on it.
constexpr int kWallLimitExitCode = 75;

struct WallLimit {
  // Seconds from the run's start (run_clock_seconds() == 0) to its end;
  // infinity: no limit.
  double end_seconds = std::numeric_limits<double>::infinity();
  // Where the limit came from ("run.wall_limit = 1:00:00",
  // "SLURM_JOB_END_TIME = 1796580000"); "" without one.
  std::string source;

  bool set() const { return end_seconds != std::numeric_limits<double>::infinity(); }
};

// Seconds since the run's clock started: at the first call, which the
// solver makes at its first instruction (install_stop_handlers).
double run_clock_seconds();

// run.wall_limit's text: "auto" (the job's end from `job_end_time`, the
// value of SLURM_JOB_END_TIME, when given and not empty; else none), "off",
// seconds ("3600", "90.5") or Slurm's [D-]HH:MM:SS / MM:SS. `now_seconds` is
// run_clock_seconds() and `now_unix` the Unix time now, to place the job's
// end on the run's clock. Throws InputError naming `origin` for a text that
// is none of these, and for a job end that is not a Unix time.
WallLimit parse_wall_limit(const std::string& text, const std::string& origin,
                           const char* job_end_time, double now_seconds, double now_unix);

// The same with this process's SLURM_JOB_END_TIME and clocks.
WallLimit wall_limit_of(const std::string& text, const std::string& origin);

// Seconds left before `limit` (infinity without one; negative when past).
double wall_seconds_left(const WallLimit& limit);

// "58 min 20 s (SLURM_JOB_END_TIME = 1796580000)", for banners and the dry
// run; "none" without a limit.
std::string wall_limit_text(const WallLimit& limit);

}  // namespace mpsfw
