// The bounded step handshake (docs/mps.md), one body for the host's handshake
// (host_mark_and_wait, the tests' stand-in for a GPU) and the device's
// (mark_and_wait): a wait that runs out gives up naming the neighbour and the
// step and records it in this rank's block; a rank that waits for one that
// gave up gives up at once naming the same; a neighbour that arrived is not
// waited for. On the device a rank that gave up returns at once from later
// handshakes. One process: the neighbour's block is made up by the test.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/gpu_skip.hpp"
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/comm/step_handshake.hpp>
#include <mpsfw/core/comm/stream_signals.hpp>
#include <mpsfw/core/device/memory.hpp>

namespace mpsfw {
namespace {

using Block = std::vector<std::uint64_t>;

Block block(std::uint64_t steps_done) {
  Block b(kSignalWords, 0);
  b[kStepsDone] = steps_done;
  return b;
}

struct Outcome {
  std::string message;  // what the rank stops with; "" when it did not give up
  Block mine;           // its block afterwards
  double seconds = 0;   // how long the handshake took
};

// One handshake of rank "mine" finishing step `finished`, with one neighbour
// (rank 7) whose block is `theirs`, waiting at most `wait_seconds`.
Outcome handshake(Backend space, const Block& mine, const Block& theirs, std::uint64_t finished,
                  double wait_seconds) {
  StepHandshake h;
  h.count = 1;
  h.rank[0] = 7;
  h.finished = finished;
  h.wait_ns = static_cast<std::uint64_t>(wait_seconds * 1e9);
  h.step_offset = 100;
  Outcome out;
  out.mine = mine;
  Block their_copy = theirs;
  const auto start = std::chrono::steady_clock::now();
  if (space == Backend::Host) {
    h.mine = out.mine.data();
    h.theirs[0] = their_copy.data();
    try {
      host_mark_and_wait(h);
    } catch (const Error& e) {
      out.message = e.what();
    }
  } else {
    Array<std::uint64_t> mine_at(space, kSignalWords), theirs_at(space, kSignalWords);
    mine_at.copy_from_host(mine.data());
    theirs_at.copy_from_host(theirs.data());
    PeerWaitFailure* on_device = nullptr;
    const std::unique_ptr<PeerWaitFailure, void (*)(PeerWaitFailure*)> failure(
        detail::cuda_allocate_failure(&on_device),
        [](PeerWaitFailure* f) { detail::cuda_release_failure(f); });
    h.mine = mine_at.data();
    h.theirs[0] = theirs_at.data();
    h.failure = on_device;
    detail::cuda_mark_and_wait(h);
    memory::synchronize(space);
    if (failure->raised != 0) {
      out.message = peer_wait_message(
          failure->rank, h.step_offset + static_cast<std::int64_t>(failure->count), wait_seconds);
    }
    mine_at.copy_to_host(out.mine.data());
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

class StepHandshakeTest : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::Cuda) MPSFW_REQUIRE_GPU();
  }
};

TEST_P(StepHandshakeTest, GivesUpNamingTheNeighbourAndTheStep) {
  const Outcome o = handshake(GetParam(), block(2), block(2), 3, 0.2);
  EXPECT_NE(o.message.find("rank 7 did not reach step 103 within run.peer_wait_seconds = 0.2 s"),
            std::string::npos)
      << o.message;
  EXPECT_GE(o.seconds, 0.2);
  EXPECT_LT(o.seconds, 10.0);
  EXPECT_EQ(o.mine[kStepsDone], 3u);
  EXPECT_NE(o.mine[kGaveUp], 0u);
  EXPECT_EQ(o.mine[kMissingRank], 7u);
  EXPECT_EQ(o.mine[kMissingStep], 3u);
}

TEST_P(StepHandshakeTest, RelaysWhoTheNeighbourGaveUpOn) {
  Block theirs = block(2);
  theirs[kGaveUp] = 1;
  theirs[kMissingRank] = 4;
  theirs[kMissingStep] = 3;
  const Outcome o = handshake(GetParam(), block(2), theirs, 3, 60);
  EXPECT_NE(o.message.find("rank 4 did not reach step 103 within run.peer_wait_seconds = 60 s"),
            std::string::npos)
      << o.message;
  EXPECT_LT(o.seconds, 10.0) << "waited although the neighbour had given up";
  EXPECT_EQ(o.mine[kMissingRank], 4u);
  EXPECT_EQ(o.mine[kMissingStep], 3u);
}

TEST_P(StepHandshakeTest, NeighbourThatArrivedIsNotWaitedFor) {
  const Outcome o = handshake(GetParam(), block(2), block(3), 3, 60);
  EXPECT_EQ(o.message, "");
  EXPECT_LT(o.seconds, 10.0);
  EXPECT_EQ(o.mine[kStepsDone], 3u);
  EXPECT_EQ(o.mine[kGaveUp], 0u);
}

// A kernel queue behind a wait that gave up drains at once (the host may have
// enqueued many steps ahead); the record is raised once, by the first.
TEST(StepHandshakeCuda, LaterHandshakesReturnAtOnce) {
  MPSFW_REQUIRE_GPU();
  Block mine = block(2);
  mine[kGaveUp] = 1;
  const Outcome o = handshake(Backend::Cuda, mine, block(0), 3, 60);
  EXPECT_LT(o.seconds, 10.0);
  EXPECT_EQ(o.message, "") << "raised again";
  EXPECT_EQ(o.mine[kStepsDone], 3u);
}

INSTANTIATE_TEST_SUITE_P(Spaces, StepHandshakeTest, testing::Values(Backend::Host, Backend::Cuda),
                         [](const testing::TestParamInfo<Backend>& p) {
                           return std::string(p.param == Backend::Host ? "Host" : "Cuda");
                         });

}  // namespace
}  // namespace mpsfw
