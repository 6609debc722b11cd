// The run's warning when a node's ranks crowd its cores (core/parallel/node_cores.hpp).
#include <gtest/gtest.h>

#include <string>

#include <mpsfw/core/parallel/node_cores.hpp>

namespace mpsfw {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CrowdingNote, NoneBelowTheCores) {
  EXPECT_EQ(crowding_note(48, 64, Backend::Cuda), "");
  EXPECT_EQ(crowding_note(1, 1, Backend::Host), "");
  EXPECT_EQ(crowding_note(16, 16, Backend::Host), "");  // host ranks wait for no GPU
}

TEST(CrowdingNote, MoreRanksThanCores) {
  const std::string gpu = crowding_note(32, 16, Backend::Cuda);
  EXPECT_TRUE(has(gpu, "this node's 32 ranks outnumber the 16 cores")) << gpu;
  EXPECT_TRUE(has(gpu, "wait for their GPU")) << gpu;
  const std::string host = crowding_note(3, 1, Backend::Host);
  EXPECT_TRUE(has(host, "outnumber the 1 cores")) << host;
  EXPECT_TRUE(has(host, "one OpenMP thread")) << host;
}

TEST(CrowdingNote, AsManyGpuRanksAsCores) {
  const std::string note = crowding_note(64, 64, Backend::Cuda);
  EXPECT_TRUE(has(note, "this node's 64 ranks take all 64 cores")) << note;
  EXPECT_TRUE(has(note, "the MPS servers and the launcher need cores too")) << note;
  EXPECT_TRUE(has(crowding_note(16, 16, Backend::Cuda), "take all 16 cores"));
}

}  // namespace
}  // namespace mpsfw
