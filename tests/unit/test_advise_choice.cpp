// advise's decisions (mps/advise_choice.hpp) on recorded probe tables: the
// medians of the committed H200 sweeps (docs/sweep-h200/*/sweep.csv; "mps"
// there is MPS at 100 %, "mps-caps" MPS at the auto cap) and small tables
// that hold a tie, a failed point and a node with fewer cores than the table.
#include <gtest/gtest.h>

#include <vector>

#include "mps/advise_choice.hpp"

namespace mpsfw::advise {
namespace {

Measured ran(Arm arm, int k, int cap, double throughput) {
  return {{arm, k, cap}, true, throughput, ""};
}

// heat 256^3 strong, one H200 (docs/sweep-h200/heat-strong).
std::vector<Measured> heat_strong_h200() {
  return {ran(Arm::OnePerGpu, 1, 0, 2.16e11),  ran(Arm::TimeSliced, 2, 0, 5.23e10),
          ran(Arm::TimeSliced, 4, 0, 2.58e10), ran(Arm::Mps, 2, 100, 2.22e11),
          ran(Arm::Mps, 4, 50, 2.09e11),       ran(Arm::Mps, 8, 25, 2.02e11),
          ran(Arm::Mps, 16, 13, 1.90e11),      ran(Arm::Mps, 32, 7, 1.19e11)};
}

// MD 16k atoms per rank, weak, MPS at the auto cap (docs/sweep-h200/md-weak).
std::vector<Measured> md_weak_h200() {
  return {ran(Arm::OnePerGpu, 1, 0, 1.28e8), ran(Arm::Mps, 2, 100, 1.46e8),
          ran(Arm::Mps, 4, 50, 2.17e8),      ran(Arm::Mps, 8, 25, 2.85e8),
          ran(Arm::Mps, 16, 13, 3.43e8),     ran(Arm::Mps, 32, 7, 4.76e7)};
}

std::vector<Measured> arm_of(const std::vector<Measured>& table, Arm arm) {
  std::vector<Measured> out;
  for (const Measured& m : table) {
    if (m.point.arm == arm) out.push_back(m);
  }
  return out;
}

TEST(AdviseChoice, HeatStrongPicksTwoRanksUnderMps) {
  const std::vector<Measured> table = heat_strong_h200();
  const Choice c = choose(table);
  ASSERT_EQ(c.index, 3);
  EXPECT_EQ(describe(table[3].point), "2 MPS 100%");
  EXPECT_NEAR(c.efficiency, 2.22 / 2.16, 1e-12);
  EXPECT_EQ(c.why, "the fastest point");
}

TEST(AdviseChoice, MdWeakPicksSixteenRanksAndEightOnEightCores) {
  std::vector<Measured> table = md_weak_h200();
  EXPECT_EQ(describe(table[static_cast<size_t>(choose(table).index)].point), "16 MPS 13%");
  // The same table on a node with 8 cores: 16 and 32 ranks are skipped.
  const Node node{1, 8, 0, 0, 48};
  for (Measured& m : table) {
    const std::string why = skip_reason(m.point, node, {});
    if (!why.empty()) m = {m.point, false, m.throughput, why};
  }
  EXPECT_EQ(table[4].why, "16 ranks on 8 cores");
  const Choice c = choose(table);
  ASSERT_GE(c.index, 0);
  EXPECT_EQ(describe(table[static_cast<size_t>(c.index)].point), "8 MPS 25%");
  EXPECT_NEAR(c.efficiency, 2.85 / 1.28, 1e-12);
}

TEST(AdviseChoice, TheProbeStopsClimbingOnceThroughputFalls) {
  const std::vector<Measured> table = heat_strong_h200();
  std::vector<Measured> mps = arm_of(table, Arm::Mps);
  // 2 is the first: climb; then 4 fell below 2: stop there.
  EXPECT_TRUE(keep_climbing({mps[0]}));
  EXPECT_FALSE(keep_climbing({mps[0], mps[1]}));
  std::vector<Measured> md = arm_of(md_weak_h200(), Arm::Mps);
  for (size_t n = 1; n <= 4; ++n) {
    EXPECT_TRUE(keep_climbing(std::vector<Measured>(md.begin(), md.begin() + n))) << n;
  }
  EXPECT_FALSE(keep_climbing(md));  // 32 fell
  // A point that failed or was skipped ends the arm too.
  md[1] = {md[1].point, false, 0, "exit 1"};
  EXPECT_FALSE(keep_climbing(std::vector<Measured>(md.begin(), md.begin() + 2)));
  EXPECT_TRUE(keep_climbing({}));
}

TEST(AdviseChoice, LevelPointsGoToTheSimplest) {
  // 8 MPS is 1 % faster than 4 MPS and 4 time-sliced: level; fewer ranks
  // first, then no MPS.
  const std::vector<Measured> table = {
      ran(Arm::OnePerGpu, 1, 0, 1.0e9), ran(Arm::Mps, 4, 50, 1.50e9),
      ran(Arm::TimeSliced, 4, 0, 1.50e9), ran(Arm::Mps, 8, 25, 1.515e9)};
  const Choice c = choose(table);
  ASSERT_EQ(c.index, 2);
  EXPECT_EQ(c.why, "within 2 % of the fastest, and simpler");
  // With no tolerance the fastest wins.
  EXPECT_EQ(choose(table, 0).index, 3);
  // At the same k, the larger cap is simpler (fewer SMs withheld).
  const std::vector<Measured> caps = {ran(Arm::Mps, 4, 25, 2e9), ran(Arm::Mps, 4, 50, 2e9)};
  EXPECT_EQ(choose(caps).index, 1);
}

TEST(AdviseChoice, AFailedPointIsNeverChosen) {
  std::vector<Measured> table = md_weak_h200();
  table[4] = {table[4].point, false, 9e9, "exit 137 (out of memory)"};
  const Choice c = choose(table);
  ASSERT_GE(c.index, 0);
  EXPECT_EQ(describe(table[static_cast<size_t>(c.index)].point), "8 MPS 25%");
  std::vector<Measured> none = {{{Arm::OnePerGpu, 1, 0}, false, 0, "exit 1"}};
  EXPECT_EQ(choose(none).index, -1);
  EXPECT_EQ(choose({}).index, -1);
  // Without a one-per-GPU point there is no efficiency to give.
  EXPECT_EQ(choose({ran(Arm::Mps, 8, 25, 3e8)}).efficiency, 0);
}

TEST(AdviseChoice, PointsANodeCannotRunAreSkippedWithTheReason) {
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const Node node{4, 64, 100 * gib, 80 * gib, 48};
  EXPECT_EQ(skip_reason({Arm::Mps, 16, 13}, node, {}), "");
  EXPECT_EQ(skip_reason({Arm::Mps, 32, 7}, node, {}), "128 ranks on 64 cores");
  const Node wide{1, 128, 0, 0, 48};
  EXPECT_EQ(skip_reason({Arm::Mps, 64, 4}, wide, {}),
            "64 MPS clients per GPU, the server takes 48");
  EXPECT_EQ(skip_reason({Arm::TimeSliced, 64, 0}, wide, {}), "");  // no MPS server
  EXPECT_EQ(skip_reason({Arm::Mps, 8, 25}, node, {4 * gib, 0}),
            "host memory: 128.0 GiB needed, 100.0 GiB available");
  EXPECT_EQ(skip_reason({Arm::Mps, 8, 25}, node, {0, 12 * gib}),
            "GPU memory: 96.0 GiB needed per GPU, 80.0 GiB available");
}

TEST(AdviseChoice, ForecastIsWorkOverThroughputOnEveryGpu) {
  const Forecast f = forecast(7.2e14, 2e11, 4);
  EXPECT_DOUBLE_EQ(f.seconds, 3600);
  EXPECT_DOUBLE_EQ(f.gpu_hours, 4);
  EXPECT_EQ(forecast(1e9, 0, 1).seconds, 0);
}

}  // namespace
}  // namespace mpsfw::advise
