// The host memory preflight's limit: the smaller of MemAvailable and
// what this process's memory cgroup still allows, v2 and v1, read from fake
// /proc and /sys trees built in a temporary folder.
#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <mpsfw/core/device/memory_preflight.hpp>

namespace mpsfw {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kMiB = std::int64_t{1} << 20;
constexpr std::int64_t kGiB = std::int64_t{1} << 30;

class HostMemoryTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string name = fs::temp_directory_path().string() + "/mpsfw_host_memory_XXXXXX";
    ASSERT_NE(mkdtemp(name.data()), nullptr);
    dir_ = name;
    proc_ = dir_ + "/proc";
    sys_ = dir_ + "/sys";
    meminfo(64 * kGiB);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes `text` to `path` under the fake tree, making its folders.
  void put(const std::string& path, const std::string& text) const {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << text;
  }
  void meminfo(std::int64_t available) const {
    put(proc_ + "/meminfo",
        "MemTotal:       263842040 kB\nMemFree:         1000 kB\n"
        "MemAvailable:   " +
            std::to_string(available / 1024) + " kB\nBuffers:    0 kB\n");
  }
  HostMemory read() const { return available_host_memory(proc_, sys_); }

  std::string dir_, proc_, sys_;
};

// Slurm's layout: the job's limit two levels above the task's cgroup, whose
// own memory.max is "max"; page cache the kernel reclaims is not "in use".
TEST_F(HostMemoryTest, CgroupV2LimitOfAnAncestorApplies) {
  put(proc_ + "/self/cgroup", "0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0\n");
  const std::string job = sys_ + "/fs/cgroup/system.slice/slurmstepd.scope/job_7";
  put(job + "/memory.max", std::to_string(4 * kGiB) + "\n");
  put(job + "/memory.current", std::to_string(1 * kGiB) + "\n");
  put(job + "/memory.stat", "anon 700000000\nfile 400000000\ninactive_file " +
                                std::to_string(256 * kMiB) + "\nactive_file 1000\n");
  put(job + "/step_0/user/task_0/memory.max", "max\n");
  put(job + "/step_0/user/task_0/memory.current", "1000\n");
  put(sys_ + "/fs/cgroup/system.slice/memory.max", "max\n");
  const HostMemory m = read();
  EXPECT_EQ(m.bytes, 4 * kGiB - (1 * kGiB - 256 * kMiB));
  EXPECT_NE(m.source.find("the job's cgroup memory.max of /system.slice/slurmstepd.scope/job_7"),
            std::string::npos)
      << m.source;
}

TEST_F(HostMemoryTest, CgroupV1MemoryControllerLimit) {
  put(proc_ + "/self/cgroup",
      "9:pids:/slurm/uid_0/job_12\n4:memory:/slurm/uid_0/job_12/step_0\n0::/\n");
  const std::string memory = sys_ + "/fs/cgroup/memory";
  put(memory + "/memory.limit_in_bytes", "9223372036854771712\n");  // the root: none
  put(memory + "/slurm/uid_0/job_12/memory.limit_in_bytes", std::to_string(2 * kGiB) + "\n");
  put(memory + "/slurm/uid_0/job_12/memory.usage_in_bytes", std::to_string(512 * kMiB) + "\n");
  put(memory + "/slurm/uid_0/job_12/memory.stat", "cache 0\ntotal_inactive_file 0\n");
  put(memory + "/slurm/uid_0/job_12/step_0/memory.limit_in_bytes", "9223372036854771712\n");
  const HostMemory m = read();
  EXPECT_EQ(m.bytes, 2 * kGiB - 512 * kMiB);
  EXPECT_NE(m.source.find("memory.limit_in_bytes of /slurm/uid_0/job_12"), std::string::npos)
      << m.source;
}

// A container sees its own cgroup as the root of the hierarchy: the path
// /proc names is not there, its root folder holds the limit.
TEST_F(HostMemoryTest, CgroupFolderMissingFallsBackToTheRoot) {
  put(proc_ + "/self/cgroup", "4:memory:/docker/0123abcd\n");
  put(sys_ + "/fs/cgroup/memory/memory.limit_in_bytes", std::to_string(3 * kGiB) + "\n");
  put(sys_ + "/fs/cgroup/memory/memory.usage_in_bytes", "0\n");
  EXPECT_EQ(read().bytes, 3 * kGiB);
}

TEST_F(HostMemoryTest, NodeSmallerThanTheLimitOrNoLimitIsMemAvailable) {
  put(proc_ + "/self/cgroup", "0::/job\n");
  put(sys_ + "/fs/cgroup/job/memory.max", "max\n");
  HostMemory m = read();
  EXPECT_EQ(m.bytes, 64 * kGiB);
  EXPECT_NE(m.source.find("MemAvailable"), std::string::npos) << m.source;

  put(sys_ + "/fs/cgroup/job/memory.max", std::to_string(100 * kGiB) + "\n");
  put(sys_ + "/fs/cgroup/job/memory.current", "0\n");
  m = read();
  EXPECT_EQ(m.bytes, 64 * kGiB);
  EXPECT_NE(m.source.find("MemAvailable"), std::string::npos) << m.source;
}

TEST_F(HostMemoryTest, NothingReadableIsUnknown) {
  fs::remove(proc_ + "/meminfo");
  EXPECT_EQ(read().bytes, -1);
}

}  // namespace
}  // namespace mpsfw
