#pragma once
// THE time loop every workload runs on (heat, MD, a user's own). A workload
// supplies its step, its diagnostics and guards, its output and its state as
// a checkpoint (Steppable); the loop owns the cadence:
//   open the output (its first frame) -> [step -> stop poll -> diagnostics
//   every diag_every steps, or the cheaper guard every run.check_every and
//   at the middle step (the report's steady half starts there) ->
//   output every run.output_every -> checkpoint every run.checkpoint_every
//   steps or run.checkpoint_minutes -> progress line] until run.steps, a
//   stop signal every rank agreed on, or the step after which the wall limit
//   (run.wall_limit) leaves just the time to end -> settle the device ->
//   close the output.
// The last step, and the step a stop ends at, always get diagnostics, an
// output frame and a checkpoint (where those are set). A run of no steps
// still writes its checkpoint: the initial state. A rank that stops coming
// back to the loop while others wait for it ends the job (StopPoll's stall
// watch); outputs and checkpoints are outside that watch.
#include <mpi.h>

#include <cstdio>
#include <string>

#include "report.hpp"
#include <mpsfw/core/device/timers.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/input/run_config.hpp>

namespace mpsfw {

// What a run of the loop ended with (Steppable::loop()).
struct LoopRecord {
  long steps = 0;           // the steps it took
  long end_step = 0;        // the step the loop stopped at
  int stop_signal = 0;      // the signal that ended it early, or 0
  bool wall_limit = false;  // whether run.wall_limit (or the job's end) ended it early
  std::string checkpoint;   // the last checkpoint written, "" if none
  double seconds = 0;       // this rank's wall time of the loop (not the output's open/close)
  // The steady half: from the middle step (after its guard) to the end;
  // steady_from -1 where the loop took fewer than 2 steps or stopped before it.
  long steady_from = -1;
  double steady_seconds = 0;
};

// How the loop runs a workload (Steppable::loop_setup()).
struct LoopSetup {
  const RunConfig* run = nullptr;  // cadence, run.steps, stop, stall and progress settings
  long diag_every = 0;             // the workload's diagnostics cadence; 0: first and last only
  const char* diag_phase = "diagnostics";  // the timer its diagnostics count under
  const Params* params = nullptr;  // the input a checkpoint repeats (needed with a checkpoint file)
  MPI_Comm comm = MPI_COMM_NULL;   // the ranks that step together
  PhaseTimers* timers =
      nullptr;  // the phases the loop times (diagnostics, checks, output, checkpoint)
};

class Steppable {
 public:
  virtual ~Steppable() = default;

  virtual LoopSetup loop_setup() = 0;
  // The step the state is at (run.step of a checkpoint at the start).
  virtual long step() const = 0;
  // Collective: one step; step() is one more after it.
  virtual void advance() = 0;
  // Collective: measure and keep the diagnostics of step(); rank 0 passes
  // `out` (the progress stream; others nullptr). Throws AgreedError on every
  // rank when the state is no longer finite.
  virtual void diagnose(std::FILE* out) = 0;
  // Collective: the guard between diagnostics (run.check_every, and the
  // middle step, where the steady half's clock starts: it must wait for the
  // device); throws like diagnose(). By default the diagnostics themselves,
  // unkept.
  virtual void check() = 0;
  // Collective, before the loop's clock starts: e.g. a header for the lines
  // diagnose() prints. Called once per loop.
  virtual void begin(std::FILE* /*out*/) {}
  // Collective, with run.output_file set: open the output at `path` (the
  // resumed name, resumed_output_path) and write the first frame; a frame
  // of step(); commit the file (complete or absent).
  virtual void open_output(const std::string& path) = 0;
  virtual void write_output() = 0;
  virtual void close_output() = 0;
  // Collective: the state now as a checkpoint at `path`, itself a valid
  // input (write_checkpoint_file).
  virtual void write_checkpoint(const std::string& path) = 0;
  // Collective, after the last step, inside the loop's time: wait for the
  // device; let no neighbour read this rank's memory after it.
  virtual void settle() {}

  // What the last run_time_loop() ended with.
  const LoopRecord& loop() const { return loop_; }

 private:
  friend void run_time_loop(Steppable& state, std::FILE* progress);

  LoopRecord loop_;
};

// Collective over the setup's comm: steps `state` on to run.steps (from the
// step it is at: a second call takes as many steps again), as the header
// says. Rank 0 passes `progress` for its progress lines (nullptr: silent).
void run_time_loop(Steppable& state, std::FILE* progress);

// Collective over `comm`: what the last loop of `state` did, into `report`:
// its steps, the slowest rank's loop time, the throughput (`work_per_step`
// units a step over the whole job: cells, atoms), the phases of `timers`
// (min/avg/max over ranks) and the memory per rank.
void report_loop(const Steppable& state, MPI_Comm comm, const PhaseTimers& timers,
                 double work_per_step, RunReport* report);

}  // namespace mpsfw
