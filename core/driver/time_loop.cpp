#include "time_loop.hpp"

#include <algorithm>
#include <chrono>

#include "progress.hpp"
#include "timeline.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/input/checkpoint.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>
#include <mpsfw/core/parallel/stop_request.hpp>

namespace mpsfw {
namespace {

bool every(long step, long period) { return period > 0 && step % period == 0; }

}  // namespace

void run_time_loop(Steppable& state, std::FILE* progress) {
  const LoopSetup setup = state.loop_setup();
  if (setup.run == nullptr || setup.timers == nullptr || setup.comm == MPI_COMM_NULL) {
    throw Error("time loop: a workload's loop_setup() must name its run, timers and ranks");
  }
  const RunConfig& run = *setup.run;
  PhaseTimers& timers = *setup.timers;
  int rank = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(setup.comm, &rank));
  std::FILE* out = rank == 0 ? progress : nullptr;

  state.begin(out);
  const bool output = !run.output_file.empty();
  if (output) {
    PhaseTimers::Scope t(timers, kOutputFilesPhase);
    state.open_output(resumed_output_path(run.output_file, state.step()));
  }
  const auto t0 = std::chrono::steady_clock::now();
  // Up to run.steps from the saved state; a second call takes as many again.
  const long first = state.step(), last = first + (run.steps - run.start_step);
  ProgressLine progress_line(out, last - first, run.progress_seconds);
  StopPoll poll(setup.comm);
  poll.watch_stalls(run.peer_wait_seconds);
  // What ending takes, by the longest output and checkpoint so far.
  double longest_output = 0, longest_checkpoint = 0;
  poll.limit_wall(run.wall_limit, run.wall_margin_seconds);
  const auto timed = [&](double* longest, const auto& write) {
    const auto io = poll.unwatched();
    const auto start = std::chrono::steady_clock::now();
    write();
    *longest = std::max(
        *longest, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    poll.reserve(run.wall_margin_seconds + longest_output + longest_checkpoint);
  };
  CheckpointPlan checkpoints(run);
  if (checkpoints.enabled() && setup.params == nullptr) {
    throw Error(
        "time loop: run.checkpoint_file is set, but the workload gave no parameters to "
        "repeat in its checkpoints (LoopSetup::params)");
  }
  const auto checkpoint = [&] {
    timed(&longest_checkpoint, [&] {
      PhaseTimers::Scope t(timers, "checkpoint");
      const std::string path = checkpoints.path_for(state.step());
      state.write_checkpoint(path);
      checkpoints.written(path, setup.comm);
    });
  };
  int stopped_by = 0;
  bool wall_limit = false;
  // A run of no steps still leaves its checkpoint: the initial state.
  if (first == last && checkpoints.enabled()) checkpoint();
  // The steady half's clock starts at the middle step, after a guard there
  // (collective, it waits for the device): start-up and first steps drop out.
  const long middle = last - first >= 2 ? first + (last - first) / 2 : -1;
  std::chrono::steady_clock::time_point steady_start;
  while (state.step() < last) {
    state.advance();
    const long step = state.step();
    const bool polled = poll.check(step);
    const bool stopping = polled && (poll.signal() != 0 || poll.wall_limit_reached());
    const bool ending = step == last || stopping;
    if (ending || every(step, setup.diag_every)) {
      PhaseTimers::Scope t(timers, setup.diag_phase);
      state.diagnose(out);
    } else if (every(step, run.check_every) || step == middle) {
      PhaseTimers::Scope t(timers, "checks");
      state.check();
    }
    if (step == middle) {
      steady_start = std::chrono::steady_clock::now();
      if (!run.timeline_file.empty()) timers.start_timeline(steady_start, kTimelineSpans);
    }
    if (output && (ending || every(step, run.output_every))) {
      timed(&longest_output, [&] {
        PhaseTimers::Scope t(timers, "output");
        state.write_output();
      });
    }
    if ((ending || checkpoints.due(step, poll, polled)) && checkpoints.enabled()) checkpoint();
    if (stopping) {
      stopped_by = poll.signal();
      wall_limit = stopped_by == 0;
      break;
    }
    if (!ending) progress_line.update(step - first);
  }
  state.settle();
  const auto t1 = std::chrono::steady_clock::now();
  LoopRecord& record = state.loop_;
  record.seconds = std::chrono::duration<double>(t1 - t0).count();
  record.end_step = state.step();
  const bool steady = middle >= 0 && record.end_step > middle;
  record.steady_from = steady ? middle : -1;
  record.steady_seconds = steady ? std::chrono::duration<double>(t1 - steady_start).count() : 0;
  record.steps = record.end_step - first;
  record.stop_signal = stopped_by;
  record.wall_limit = wall_limit;
  record.checkpoint = checkpoints.last();
  if (output) {
    const auto io = poll.unwatched();
    PhaseTimers::Scope t(timers, kOutputFilesPhase);
    state.close_output();
  }
  if (!run.timeline_file.empty()) {
    const auto io = poll.unwatched();
    write_timeline(run.timeline_file, setup.comm, timers);
  }
}

void report_loop(const Steppable& state, MPI_Comm comm, const PhaseTimers& timers,
                 double work_per_step, RunReport* report) {
  const LoopRecord& loop = state.loop();
  report->steps = loop.steps;
  report->loop_seconds = reduce_over_ranks(comm, loop.seconds).max;
  report->updates_per_second =
      report->loop_seconds > 0
          ? work_per_step * static_cast<double>(report->steps) / report->loop_seconds
          : 0;
  report->steady_steps = loop.steady_from >= 0 ? loop.end_step - loop.steady_from : 0;
  report->steady_seconds = reduce_over_ranks(comm, loop.steady_seconds).max;
  report->steady_updates_per_second =
      report->steady_steps > 0 && report->steady_seconds > 0
          ? work_per_step * static_cast<double>(report->steady_steps) / report->steady_seconds
          : 0;
  report->phases = timers.reduce(comm);
  add_memory_usage(comm, report);
}

}  // namespace mpsfw
