// The one time loop (core/driver/time_loop.hpp) with a workload of its own that only
// counts: which steps get diagnostics, guards, output frames and checkpoints,
// where checkpoints go (keep K: the last K numbered files), that a run of no
// steps still checkpoints its initial state, that a second run takes as many
// steps again, that a failing guard ends every rank alike, and that a
// checkpoint without the input to repeat is refused before the first step;
// and the steady half the report times (from the guard at the middle step),
// whose phases a timeline file holds for every rank. TimeLoopStop: a stop
// signal and the wall limit end every rank at one step with its diagnostics,
// frame and checkpoint, and a rank slowed after a check delays the stop by a
// few checks' worth of steps only (each case in a process of its own: a
// signal stays noted).
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "support/mpi_temp_dir.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/wall_limit.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/core/input/checkpoint.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/core/parallel/stop_request.hpp>

namespace mpsfw {
namespace {

namespace fs = std::filesystem;

// A folder every rank shares for one test, removed after it.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix)
      : path_(testing_support::make_shared_temp_dir(prefix)) {}
  ~TempDir() { testing_support::remove_shared_temp_dir(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Records every call the loop makes, by step.
class Counter final : public Steppable {
 public:
  Counter(const RunConfig& run, long diag_every, const Params* params)
      : run_(run), diag_every_(diag_every), params_(params), step_(run.start_step) {}

  LoopSetup loop_setup() override {
    return {&run_, diag_every_, "diagnostics", params_, MPI_COMM_WORLD, &timers_};
  }
  long step() const override { return step_; }
  void advance() override {
    PhaseTimers::Scope t(timers_, "work");
    if (on_step) on_step(step_ + 1);
    MPI_Barrier(MPI_COMM_WORLD);  // a collective step, as a workload's
    ++step_;
  }
  void begin(std::FILE*) override { ++begins; }
  void diagnose(std::FILE*) override {
    diagnosed.push_back(step_);
    guard();
  }
  void check() override {
    checked.push_back(step_);
    guard();
  }
  void open_output(const std::string& path) override {
    output_path = path;
    frames.push_back(step_);
  }
  void write_output() override { frames.push_back(step_); }
  void close_output() override { ++closes; }
  void write_checkpoint(const std::string& path) override {
    checkpoints.push_back(step_);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // As a workload's: an HDF5 file naming its solver and step (what
    // checkpoint_keep prunes).
    if (rank == 0) {
      h5::Handle file = h5::create_file(path);
      h5::Handle root = h5::open_group(file.get(), "/");
      h5::write_attribute(root.get(), "solver", std::string("counter"));
      h5::write_attribute(root.get(), "step", static_cast<std::int64_t>(step_));
      root = h5::Handle();
      h5::close_file(file, path);
    }
    if (checkpoint_seconds > 0)
      std::this_thread::sleep_for(std::chrono::duration<double>(checkpoint_seconds));
    MPI_Barrier(MPI_COMM_WORLD);
  }
  void settle() override { ++settles; }

  long fail_at = -1;                  // the guard throws on every rank at this step
  std::function<void(long)> on_step;  // called at the start of each step with its number
  double checkpoint_seconds = 0;      // how long writing a checkpoint takes
  int begins = 0, closes = 0, settles = 0;
  std::vector<long> diagnosed, checked, frames, checkpoints;
  std::string output_path;

 private:
  void guard() const {
    if (step_ == fail_at) throw AgreedError("counter: not finite at step " + std::to_string(step_));
  }
  RunConfig run_;
  long diag_every_;
  const Params* params_;
  long step_;
  PhaseTimers timers_;
};

TEST(TimeLoop, CadenceOfDiagnosticsGuardsOutputAndCheckpoints) {
  TempDir dir("time_loop");
  const Params params(run_schema());  // what a checkpoint repeats: not read here
  RunConfig run;
  run.steps = 10;
  run.check_every = 2;
  run.output_every = 5;
  run.output_file = dir.path() + "/out.h5";
  run.checkpoint_every = 4;
  run.checkpoint_file = dir.path() + "/ck.h5";
  Counter c(run, 3, &params);
  run_time_loop(c, nullptr);

  EXPECT_EQ(c.begins, 1);
  EXPECT_EQ(c.diagnosed, (std::vector<long>{3, 6, 9, 10}));  // every 3 and the last
  EXPECT_EQ(c.checked,
            (std::vector<long>{2, 4, 5, 8}));          // 5: the middle; not where diagnostics ran
  EXPECT_EQ(c.frames, (std::vector<long>{0, 5, 10}));  // the first, every 5, the last
  EXPECT_EQ(c.closes, 1);
  EXPECT_EQ(c.output_path, run.output_file);
  EXPECT_EQ(c.checkpoints, (std::vector<long>{4, 8, 10}));  // every 4 and the last
  EXPECT_EQ(c.settles, 1);
  EXPECT_EQ(c.loop().end_step, 10);
  EXPECT_EQ(c.loop().steps, 10);
  EXPECT_EQ(c.loop().stop_signal, 0);
  EXPECT_EQ(c.loop().checkpoint, run.checkpoint_file);
  EXPECT_GE(c.loop().seconds, 0.0);
  EXPECT_EQ(c.loop().steady_from, 5);
  EXPECT_GE(c.loop().steady_seconds, 0.0);
  EXPECT_LE(c.loop().steady_seconds, c.loop().seconds);
}

TEST(TimeLoop, AResumedRunWritesBesideTheFirstPartAndASecondRunTakesAsManyAgain) {
  TempDir dir("time_loop_resumed");
  RunConfig run;
  run.start_step = 400;
  run.steps = 403;
  run.output_file = dir.path() + "/out.h5";
  Counter c(run, 0, nullptr);
  run_time_loop(c, nullptr);
  EXPECT_EQ(c.output_path, resumed_output_path(run.output_file, 400));
  EXPECT_EQ(c.diagnosed, (std::vector<long>{403}));
  run_time_loop(c, nullptr);
  EXPECT_EQ(c.loop().end_step, 406);
  EXPECT_EQ(c.loop().steps, 3);
  EXPECT_EQ(c.begins, 2);
  EXPECT_EQ(c.closes, 2);
  // The report counts the last loop's steps over the slowest rank's time.
  RunReport r;
  const PhaseTimers timers;
  report_loop(c, MPI_COMM_WORLD, timers, 100.0, &r);
  EXPECT_EQ(r.steps, 3);
  double slowest = 0;
  MPI_Allreduce(&c.loop().seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(r.loop_seconds, slowest);
  if (slowest > 0) {
    EXPECT_DOUBLE_EQ(r.updates_per_second, 300.0 / slowest);
  }
  // The steady half: steps 404 to 406, timed from the guard at the middle step.
  EXPECT_EQ(c.checked, (std::vector<long>{401, 404}));
  EXPECT_EQ(r.steady_steps, 2);
  double steady = 0;
  MPI_Allreduce(&c.loop().steady_seconds, &steady, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(r.steady_seconds, steady);
  EXPECT_LE(r.steady_seconds, r.loop_seconds);
  if (steady > 0) {
    EXPECT_DOUBLE_EQ(r.steady_updates_per_second, 200.0 / steady);
  }
}

TEST(TimeLoop, ALoopOfOneStepHasNoSteadyHalf) {
  RunConfig run;
  run.steps = 1;
  Counter c(run, 0, nullptr);
  run_time_loop(c, nullptr);
  EXPECT_TRUE(c.checked.empty());
  EXPECT_EQ(c.loop().steady_from, -1);
  RunReport r;
  const PhaseTimers timers;
  report_loop(c, MPI_COMM_WORLD, timers, 100.0, &r);
  EXPECT_EQ(r.steady_steps, 0);
  EXPECT_EQ(r.steady_updates_per_second, 0.0);
}

TEST(TimeLoop, NumberedCheckpointsKeepTheLastK) {
  TempDir dir("time_loop_keep");
  const Params params(run_schema());  // what a checkpoint repeats: not read here
  RunConfig run;
  run.steps = 12;
  run.checkpoint_every = 2;
  run.checkpoint_keep = 3;
  run.checkpoint_file = dir.path() + "/ck.h5";
  Counter c(run, 0, &params);
  run_time_loop(c, nullptr);
  EXPECT_EQ(c.checkpoints, (std::vector<long>{2, 4, 6, 8, 10, 12}));
  const CheckpointPlan plan(run);
  EXPECT_EQ(c.loop().checkpoint, plan.path_for(12));
  MPI_Barrier(MPI_COMM_WORLD);
  for (long s : {2L, 4L, 6L}) EXPECT_FALSE(fs::exists(plan.path_for(s))) << plan.path_for(s);
  for (long s : {8L, 10L, 12L}) EXPECT_TRUE(fs::exists(plan.path_for(s))) << plan.path_for(s);
}

TEST(TimeLoop, ARunOfNoStepsCheckpointsItsInitialState) {
  TempDir dir("time_loop_zero");
  const Params params(run_schema());  // what a checkpoint repeats: not read here
  RunConfig run;
  run.steps = 0;
  run.checkpoint_file = dir.path() + "/ck.h5";
  Counter c(run, 0, &params);
  run_time_loop(c, nullptr);
  EXPECT_EQ(c.checkpoints, (std::vector<long>{0}));
  EXPECT_TRUE(c.diagnosed.empty());
  EXPECT_EQ(c.loop().end_step, 0);
}

TEST(TimeLoop, AFailingGuardEndsEveryRankAtItsStep) {
  RunConfig run;
  run.steps = 20;
  run.check_every = 3;
  Counter c(run, 0, nullptr);
  c.fail_at = 6;
  try {
    run_time_loop(c, nullptr);
    ADD_FAILURE() << "no AgreedError at step 6";
  } catch (const AgreedError& e) {
    EXPECT_NE(std::string(e.what()).find("step 6"), std::string::npos) << e.what();
  }
  EXPECT_EQ(c.step(), 6);
  EXPECT_EQ(c.settles, 0);
}

TEST(TimeLoop, ACheckpointWithoutTheInputToRepeatIsRefusedBeforeTheFirstStep) {
  TempDir dir("time_loop_no_params");
  RunConfig run;
  run.steps = 5;
  run.checkpoint_file = dir.path() + "/ck.h5";
  Counter c(run, 0, nullptr);
  EXPECT_THROW(run_time_loop(c, nullptr), Error);
  EXPECT_EQ(c.step(), 0);
  EXPECT_TRUE(c.checkpoints.empty());
}

TEST(TimeLoop, ATimelineFileHoldsEveryRanksPhasesOfTheSteadyHalf) {
  TempDir dir("time_loop_timeline");
  RunConfig run;
  run.steps = 10;
  run.timeline_file = dir.path() + "/timeline.json";
  Counter c(run, 0, nullptr);
  run_time_loop(c, nullptr);
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::ifstream in(run.timeline_file);
  ASSERT_TRUE(in.good()) << run.timeline_file;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto count = [&](const std::string& what) {
    long n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  // Steps 6 to 10 (after the middle step's guard), on every rank; the last
  // step's diagnostics; a track named for each rank.
  EXPECT_EQ(count("{\"name\":\"work\",\"ph\":\"X\""), 5L * ranks);
  EXPECT_EQ(count("{\"name\":\"diagnostics\",\"ph\":\"X\""), 1L * ranks);
  for (int r = 0; r < ranks; ++r) {
    EXPECT_EQ(count("\"args\":{\"name\":\"rank " + std::to_string(r) + " ("), 1) << r;
  }
  EXPECT_EQ(count("\"spans_dropped\":0}"), 1);
  EXPECT_EQ(text.substr(0, 16), "{\"traceEvents\":[");
  EXPECT_EQ(text.substr(text.size() - 3), "}}\n");
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has read it before the folder goes
}

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// Whether every rank has the same `value`.
bool same_on_every_rank(long value) {
  long low = 0, high = 0;
  MPI_Allreduce(&value, &low, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&value, &high, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  return low == high;
}

void sleep_seconds(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

// The stop ends the loop at the step every rank agreed on, with that step's
// diagnostics, output frame and checkpoint.
void expect_ended_with_everything(const Counter& c, const RunConfig& run) {
  const long end = c.loop().end_step;
  EXPECT_TRUE(same_on_every_rank(end)) << "rank " << world_rank() << " stopped at " << end;
  EXPECT_LT(end, run.steps);
  ASSERT_FALSE(c.diagnosed.empty());
  EXPECT_EQ(c.diagnosed.back(), end);
  ASSERT_FALSE(c.frames.empty());
  EXPECT_EQ(c.frames.back(), end);
  EXPECT_EQ(c.closes, 1);
  ASSERT_FALSE(c.checkpoints.empty());
  EXPECT_EQ(c.checkpoints.back(), end);
  EXPECT_EQ(c.loop().checkpoint, run.checkpoint_file);
  EXPECT_EQ(c.settles, 1);
}

// A run that only a stop ends, with an output and a checkpoint in `dir`.
RunConfig endless_run_writing_in(const std::string& dir) {
  RunConfig run;
  run.steps = 1000000000;
  run.output_file = dir + "/out.h5";
  run.checkpoint_file = dir + "/ck.h5";
  return run;
}

TEST(TimeLoopStop, ASignalEndsEveryRankAtOneStepWithItsCheckpoint) {
  install_stop_handlers();
  TempDir dir("time_loop_signal");
  const Params params(run_schema());
  const RunConfig run = endless_run_writing_in(dir.path());
  Counter c(run, 0, &params);
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // The last rank alone is signalled, as by a launcher that reaches one rank.
  c.on_step = [&](long step) {
    if (step == 30 && world_rank() == ranks - 1) std::raise(SIGUSR1);
  };
  run_time_loop(c, nullptr);
  EXPECT_EQ(c.loop().stop_signal, SIGUSR1);
  EXPECT_FALSE(c.loop().wall_limit);
  EXPECT_GE(c.loop().end_step, 30);
  expect_ended_with_everything(c, run);
}

TEST(TimeLoopStop, TheWallLimitEndsTheRunInTimeForItsCheckpoint) {
  TempDir dir("time_loop_wall");
  const Params params(run_schema());
  RunConfig run = endless_run_writing_in(dir.path());
  run.checkpoint_every = 300;  // one is written (and timed) before the end
  run.wall_margin_seconds = 0.5;
  const double limit_seconds = 3;
  run.wall_limit = parse_wall_limit(std::to_string(limit_seconds), "test", nullptr, 0, 0);
  run.wall_limit.end_seconds += run_clock_seconds();
  Counter c(run, 0, &params);
  c.checkpoint_seconds = 0.3;
  c.on_step = [](long) { sleep_seconds(0.001); };
  run_time_loop(c, nullptr);
  const double ended = run_clock_seconds();
  EXPECT_TRUE(c.loop().wall_limit);
  EXPECT_EQ(c.loop().stop_signal, 0);
  expect_ended_with_everything(c, run);
  // Done before the limit, the last checkpoint included, yet not long before:
  // the margin, the checkpoint's time and a few checks.
  EXPECT_LT(ended, run.wall_limit.end_seconds);
  EXPECT_GT(ended, run.wall_limit.end_seconds - 2.0);
}

TEST(TimeLoopStop, ARankSlowedAfterACheckDelaysTheStopByAFewChecksOnly) {
  install_stop_handlers();
  RunConfig run;
  run.steps = 1000000000;
  Counter c(run, 0, nullptr);
  // Steps of about 0.3 ms; from step 100 rank 0 takes 6 ms a step (as when
  // another job starts on its cores), and at step 120 it gets the signal. A
  // check scheduled in steps at the earlier pace is then twenty times further
  // away in time than planned.
  std::chrono::steady_clock::time_point signalled;
  c.on_step = [&](long step) {
    const bool slowed = step >= 100 && world_rank() == 0;
    sleep_seconds(slowed ? 0.006 : 0.0003);
    if (step == 120 && world_rank() == 0) {
      signalled = std::chrono::steady_clock::now();
      std::raise(SIGUSR1);
    }
  };
  run_time_loop(c, nullptr);
  EXPECT_EQ(c.loop().stop_signal, SIGUSR1);
  EXPECT_TRUE(same_on_every_rank(c.loop().end_step));
  if (world_rank() == 0) {
    const double delay =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
    // Two intervals of StopPoll at twenty times the pace is 2 s; a check a
    // half second of the old pace ahead would take 10 s.
    EXPECT_LT(delay, 4.0) << "the stop came " << delay << " s after the signal, at step "
                          << c.loop().end_step;
  }
}

}  // namespace
}  // namespace mpsfw
