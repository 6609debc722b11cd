// NodeMax, the largest value over all ranks through each node's shared
// memory: every call of a long run equals MPI_Allreduce's MPI_MAX (so no rank
// reads a call's result before it is out, or a slot before it is written),
// spinning and sleeping alike, on one node and on ranks grouped as several
// "nodes" (their first ranks agree through MPI); a NaN on one rank reaches
// every rank; calls back to back with nothing else between them, where some
// ranks run ahead of others, still read each call's values.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <mpsfw/core/parallel/node_max.hpp>
#include <mpsfw/core/parallel/wait_policy.hpp>

namespace mpsfw {
namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Values that change from call to call and rank to rank, the largest on a
// different rank each time.
double value(int rank, int call) { return std::sin(0.7 * rank + 1.3 * call) * (1 + call % 5); }

void expect_max_of_every_call(NodeMax& max, int calls) {
  const int me = world_rank();
  for (int call = 0; call < calls; ++call) {
    const double mine = value(me, call);
    double want = 0;
    MPI_Allreduce(&mine, &want, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    ASSERT_EQ(max.max(mine), want) << "call " << call;
  }
}

TEST(NodeMax, EqualsTheAllReduceAtEveryCall) {
  NodeMax max(MPI_COMM_WORLD);
  expect_max_of_every_call(max, 500);
}

// No all-reduce between the calls: a rank that returns early starts the next
// call while others still read this one's values. Every rank knows every
// rank's values, so each checks its results after the run.
void expect_back_to_back_calls_right(NodeMax& max, int calls) {
  const int me = world_rank();
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> got(static_cast<size_t>(calls));
  volatile double busy = 0;
  for (int call = 0; call < calls; ++call) {
    // A different rank lags at each call.
    if (call % size == me) {
      for (int i = 0; i < 2000; ++i) busy = busy + std::sqrt(static_cast<double>(i));
    }
    got[static_cast<size_t>(call)] = max.max(value(me, call));
  }
  for (int call = 0; call < calls; ++call) {
    double want = value(0, call);
    for (int r = 1; r < size; ++r) want = std::max(want, value(r, call));
    ASSERT_EQ(got[static_cast<size_t>(call)], want) << "call " << call;
  }
}

// The process's wait policy for a scope (wait_policy.hpp), spinning after.
struct SleepingWaits {
  SleepingWaits() { set_wait_policy(WaitPolicy::Sleep); }
  ~SleepingWaits() { set_wait_policy(WaitPolicy::Spin); }
};

TEST(NodeMax, CallsBackToBackReadEachCallsValues) {
  NodeMax max(MPI_COMM_WORLD);
  expect_back_to_back_calls_right(max, 5000);
  SleepingWaits sleeping;
  expect_back_to_back_calls_right(max, 300);
}

TEST(NodeMax, SleepingWaitsGiveTheSame) {
  NodeMax max(MPI_COMM_WORLD);
  SleepingWaits sleeping;
  expect_max_of_every_call(max, 200);
}

// Ranks 0, 2, ... as one node and 1, 3, ... as another: two first ranks agree
// through MPI.
TEST(NodeMax, RanksGroupedAsSeveralNodes) {
  MPI_Comm halves = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, world_rank(), &halves);
  {
    NodeMax max(MPI_COMM_WORLD, halves);
    expect_max_of_every_call(max, 300);
    SleepingWaits sleeping;
    expect_max_of_every_call(max, 50);
  }
  MPI_Comm_free(&halves);
}

TEST(NodeMax, ANaNOnOneRankReachesEveryRank) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm halves = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, world_rank(), &halves);
  {
    NodeMax one_node(MPI_COMM_WORLD), two_nodes(MPI_COMM_WORLD, halves);
    for (int nan_on = 0; nan_on < size; ++nan_on) {
      const double mine = world_rank() == nan_on ? NAN : 1.0;
      EXPECT_TRUE(std::isnan(one_node.max(mine))) << "NaN on rank " << nan_on;
      EXPECT_TRUE(std::isnan(two_nodes.max(mine))) << "NaN on rank " << nan_on << ", two nodes";
      EXPECT_EQ(one_node.max(2.0), 2.0);  // and the next call is clean again
    }
  }
  MPI_Comm_free(&halves);
}

// A file-size limit too small for the shared window on one rank (the
// failure that hung the node's other ranks inside the window's creation):
// every rank reduces through MPI instead, with the same results.
TEST(NodeMax, AFileSizeLimitOnOneRankFallsBackToMpi) {
  struct rlimit before {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  struct rlimit small = before;
  small.rlim_cur = 4096;
  if (world_rank() == 0) {
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  }
  {
    NodeMax max(MPI_COMM_WORLD);
    if (world_rank() == 0) {
      ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &before), 0);
    }
    expect_max_of_every_call(max, 200);
    EXPECT_TRUE(std::isnan(max.max(world_rank() == 0 ? NAN : 1.0)));
  }
}

}  // namespace
}  // namespace mpsfw
