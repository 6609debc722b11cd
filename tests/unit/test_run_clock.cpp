// Every solver's clock (RunConfig::time_at): a fresh run's time is step * dt;
// a resumed run goes on from its checkpoint's time, with the dt it runs at
// now, and a run resumed at its own dt keeps the bits of one that never
// stopped.
#include <gtest/gtest.h>

#include <mpsfw/core/input/run_config.hpp>

namespace mpsfw {
namespace {

TEST(RunClock, AFreshRunCountsStepsOfDt) {
  const RunConfig run;
  EXPECT_EQ(run.time_at(0, 0.1), 0.0);
  EXPECT_EQ(run.time_at(7, 0.1), 7 * 0.1);
}

TEST(RunClock, AResumeGoesOnFromTheSavedTime) {
  RunConfig run;
  run.start_step = 100;
  run.start_time = 100 * 0.005;  // saved by a run at dt 0.005
  // Resumed at the same dt: the bits of the run that never stopped.
  EXPECT_EQ(run.time_at(137, 0.005), 137 * 0.005);
  // Resumed at another dt: from the saved time on.
  EXPECT_DOUBLE_EQ(run.time_at(110, 0.01), 0.5 + 10 * 0.01);
  EXPECT_EQ(run.time_at(100, 0.01), run.start_time);
}

}  // namespace
}  // namespace mpsfw
