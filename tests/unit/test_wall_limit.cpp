// run.wall_limit as users write it (seconds, Slurm's [D-]HH:MM:SS, auto from
// the job's end, off), what it refuses, and where the job's end lands on the
// run's clock.
#include <gtest/gtest.h>

#include <string>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/wall_limit.hpp>

namespace mpsfw {
namespace {

double seconds_of(const std::string& text) {
  return parse_wall_limit(text, "--set run.wall_limit=" + text, nullptr, 0, 0).end_seconds;
}

TEST(WallLimit, SecondsAndSlurmTimesCountFromTheRunsStart) {
  EXPECT_EQ(seconds_of("3600"), 3600);
  EXPECT_EQ(seconds_of("90.5"), 90.5);
  EXPECT_EQ(seconds_of("45:00"), 45 * 60);
  EXPECT_EQ(seconds_of("01:30:00"), 5400);
  EXPECT_EQ(seconds_of("2-12:00:00"), 2.5 * 86400);
  const WallLimit l = parse_wall_limit("1:00:00", "in.h5", nullptr, 0, 0);
  EXPECT_TRUE(l.set());
  EXPECT_EQ(l.source, "run.wall_limit = 1:00:00");
}

TEST(WallLimit, AutoTakesTheJobsEndWhereTheSchedulerPublishesIt) {
  // 12 s into the run, at Unix time 1000: a job ending at 1500 has 500 s left.
  const WallLimit l = parse_wall_limit("auto", "default", "1500", 12, 1000);
  EXPECT_EQ(l.end_seconds, 512);
  EXPECT_EQ(l.source, "SLURM_JOB_END_TIME = 1500");
  EXPECT_FALSE(parse_wall_limit("auto", "default", nullptr, 12, 1000).set());
  EXPECT_FALSE(parse_wall_limit("auto", "default", "", 12, 1000).set());
  EXPECT_FALSE(parse_wall_limit("off", "default", "1500", 12, 1000).set());
  EXPECT_EQ(parse_wall_limit("60", "default", "1500", 12, 1000).end_seconds, 60);
}

TEST(WallLimit, RefusesWhatIsNoTimeNamingWhereItCameFrom) {
  for (const std::string bad : {"", "0", "-5", "1h", "12:60", "1:61:00", "soon", "1-2"}) {
    try {
      seconds_of(bad);
      ADD_FAILURE() << "'" << bad << "' accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--set run.wall_limit=" + bad), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("HH:MM:SS"), std::string::npos) << e.what();
    }
  }
  try {
    parse_wall_limit("auto", "default", "tomorrow", 0, 0);
    ADD_FAILURE() << "SLURM_JOB_END_TIME=tomorrow accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("SLURM_JOB_END_TIME"), std::string::npos) << e.what();
  }
}

TEST(WallLimit, TheTimeLeftRunsDownWithTheRunsClock) {
  WallLimit l;
  EXPECT_FALSE(l.set());
  EXPECT_EQ(wall_limit_text(l), "none");
  l.end_seconds = run_clock_seconds() + 100;
  l.source = "run.wall_limit = 100";
  const double left = wall_seconds_left(l);
  EXPECT_LE(left, 100);
  EXPECT_GT(left, 99);
  EXPECT_NE(wall_limit_text(l).find("(run.wall_limit = 100)"), std::string::npos);
}

}  // namespace
}  // namespace mpsfw
