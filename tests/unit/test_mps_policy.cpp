// The pure parts of the MPS session: which GPU a local rank gets, how many
// ranks share it, the cap each one gets, what the preflight refuses, what the
// launcher says before MPI_Init, and which GPUs are visible without CUDA.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/mps/cap_policy.hpp>
#include <mpsfw/mps/fault_report.hpp>
#include <mpsfw/mps/gpu_inventory.hpp>
#include <mpsfw/mps/gpu_plan.hpp>
#include <mpsfw/mps/launcher.hpp>
#include <mpsfw/mps/mps_config.hpp>
#include <mpsfw/mps/node_session.hpp>
#include <mpsfw/mps/numa_placement.hpp>
#include <mpsfw/mps/nvml_inventory.hpp>
#include <mpsfw/mps/session_dir.hpp>

namespace mpsfw::mps {
namespace {

namespace fs = std::filesystem;

// --- GPU of a rank, ranks of a GPU ----------------------------------------

TEST(MpsPolicy, GpuOfRankKeepsConsecutiveRanksTogether) {
  EXPECT_EQ(gpu_of_local_rank(0, 8, 1), 0);
  EXPECT_EQ(gpu_of_local_rank(7, 8, 1), 0);
  // 16 ranks on 2 GPUs: 0-7 on GPU 0, 8-15 on GPU 1 (rank-grid neighbours meet on a GPU).
  EXPECT_EQ(gpu_of_local_rank(7, 16, 2), 0);
  EXPECT_EQ(gpu_of_local_rank(8, 16, 2), 1);
  // 5 ranks on 2 GPUs: the first GPU takes the extra rank.
  EXPECT_EQ(gpu_of_local_rank(2, 5, 2), 0);
  EXPECT_EQ(gpu_of_local_rank(3, 5, 2), 1);
  // Fewer ranks than GPUs: one each.
  EXPECT_EQ(gpu_of_local_rank(2, 3, 8), 2);
  EXPECT_EQ(gpu_of_local_rank(3, 4, 0), 0);  // no GPU: never an out-of-range index
}

TEST(MpsPolicy, RanksOnGpuCountsTheBlocks) {
  // Brute force: count local ranks that gpu_of_local_rank puts on g; blocks are contiguous.
  for (int gpus = 1; gpus <= 8; ++gpus) {
    for (int size = 1; size <= 20; ++size) {
      int total = 0;
      for (int r = 1; r < size; ++r)
        EXPECT_LE(gpu_of_local_rank(r - 1, size, gpus), gpu_of_local_rank(r, size, gpus));
      for (int g = 0; g < gpus; ++g) {
        int want = 0;
        for (int r = 0; r < size; ++r) want += gpu_of_local_rank(r, size, gpus) == g ? 1 : 0;
        EXPECT_EQ(local_ranks_on_gpu(g, size, gpus), want)
            << "gpu " << g << " size " << size << " gpus " << gpus;
        total += local_ranks_on_gpu(g, size, gpus);
      }
      EXPECT_EQ(total, size);
      // GPU 0 is the busiest: the session's preflight relies on it.
      for (int g = 1; g < gpus; ++g)
        EXPECT_GE(local_ranks_on_gpu(0, size, gpus), local_ranks_on_gpu(g, size, gpus));
    }
  }
  EXPECT_EQ(local_ranks_on_gpu(0, 5, 0), 5);
}

// --- Active thread percentage -----------------------------------------------

TEST(MpsPolicy, AutoCapDoublePolicyIsCeil200OverKAtMost100) {
  const std::map<int, int> want = {{1, 100}, {2, 100}, {3, 67},  {4, 50},  {5, 40},  {6, 34},
                                   {7, 29},  {8, 25},  {9, 23},  {10, 20}, {11, 19}, {12, 17},
                                   {13, 16}, {14, 15}, {15, 14}, {16, 13}};
  for (const auto& [k, cap] : want) {
    EXPECT_EQ(auto_active_thread_percentage(k, AtpPolicy::Double), cap) << "k = " << k;
  }
}

TEST(MpsPolicy, AutoCapEvenPolicyIsFloor100OverK) {
  const std::map<int, int> want = {{1, 100}, {2, 50}, {3, 33}, {4, 25},  {5, 20}, {6, 16},
                                   {7, 14},  {8, 12}, {9, 11}, {10, 10}, {11, 9}, {12, 8},
                                   {13, 7},  {14, 7}, {15, 6}, {16, 6}};
  for (const auto& [k, cap] : want) {
    EXPECT_EQ(auto_active_thread_percentage(k, AtpPolicy::Even), cap) << "k = " << k;
  }
}

TEST(MpsPolicy, AutoCapStaysInOneToHundred) {
  for (int k = 1; k <= 200; ++k) {
    for (AtpPolicy p : {AtpPolicy::Double, AtpPolicy::Even}) {
      const int cap = auto_active_thread_percentage(k, p);
      EXPECT_GE(cap, 1) << "k = " << k;
      EXPECT_LE(cap, 100) << "k = " << k;
    }
    // Double gives each rank at least what Even does, and k ranks together at least 100%.
    EXPECT_GE(auto_active_thread_percentage(k, AtpPolicy::Double),
              auto_active_thread_percentage(k, AtpPolicy::Even));
    if (k <= 100) {
      EXPECT_LE(k * auto_active_thread_percentage(k, AtpPolicy::Even), 100);
    }
    EXPECT_GE(k * auto_active_thread_percentage(k, AtpPolicy::Double), std::min(100 * k, 200));
  }
  EXPECT_EQ(auto_active_thread_percentage(0, AtpPolicy::Double), 100);
}

// Balanced caps: an even share is the automatic cap (k = 1..60, both
// rules), shares of uneven work follow the rule's rounding, and the cap stays
// in [1, 100].
TEST(MpsPolicy, BalancedCapsAreTheRuleAppliedToEachRanksShare) {
  for (int k = 1; k <= 60; ++k) {
    for (AtpPolicy p : {AtpPolicy::Double, AtpPolicy::Even}) {
      // The share as a rank computes it: its work over the sum of k equal works.
      double total = 0;
      for (int r = 0; r < k; ++r) total += 1234.5;
      EXPECT_EQ(balanced_active_thread_percentage(1234.5 / total, p),
                auto_active_thread_percentage(k, p))
          << "k = " << k << (p == AtpPolicy::Even ? ", even" : ", double");
    }
  }
  // Work 3 : 1 : 2 : 2 on one GPU.
  EXPECT_EQ(balanced_active_thread_percentage(3.0 / 8, AtpPolicy::Double), 75);
  EXPECT_EQ(balanced_active_thread_percentage(1.0 / 8, AtpPolicy::Double), 25);
  EXPECT_EQ(balanced_active_thread_percentage(400.0 / 1296, AtpPolicy::Double), 62);
  EXPECT_EQ(balanced_active_thread_percentage(256.0 / 1296, AtpPolicy::Double), 40);
  EXPECT_EQ(balanced_active_thread_percentage(1.0 / 6, AtpPolicy::Even), 16);
  EXPECT_EQ(balanced_active_thread_percentage(0.6, AtpPolicy::Double), 100);
  EXPECT_EQ(balanced_active_thread_percentage(1.0, AtpPolicy::Even), 100);
  EXPECT_EQ(balanced_active_thread_percentage(0.001, AtpPolicy::Even), 1);
  EXPECT_EQ(balanced_active_thread_percentage(0.0, AtpPolicy::Double), 1);
}

TEST(MpsPolicy, ActiveThreadPercentageIsParsedInOnePlace) {
  EXPECT_EQ(parse_active_thread_percentage("auto", "x"), 0);
  EXPECT_EQ(parse_active_thread_percentage("1", "x"), 1);
  EXPECT_EQ(parse_active_thread_percentage("100", "x"), 100);
  // balanced only where asked (the input key, not CUDA's variable).
  EXPECT_EQ(parse_active_thread_percentage("balanced", "x", true), kBalancedCaps);
  try {
    parse_active_thread_percentage("balanced", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
    ADD_FAILURE() << "accepted balanced where it is not allowed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(": expected auto or an integer in [1, 100]"),
              std::string::npos)
        << e.what();
  }
  try {
    parse_active_thread_percentage("balance", "--mps-atp balance", true);
    ADD_FAILURE() << "accepted balance";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "--mps-atp balance: expected auto, balanced or an integer in [1, 100]"),
              std::string::npos)
        << e.what();
  }
  for (const char* bad : {"0", "101", "50%", "", "-5", "12abc", "99999999999999999999"}) {
    try {
      parse_active_thread_percentage(bad, "--mps-atp " + std::string(bad));
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const InputError& e) {
      const std::string m = e.what();
      EXPECT_NE(
          m.find("--mps-atp " + std::string(bad) + ": expected auto or an integer in [1, 100]"),
          std::string::npos)
          << m;
    }
  }
}

TEST(MpsPolicy, CapForTakesTheConfiguredPercentageOrThePolicy) {
  MpsConfig c;
  EXPECT_EQ(cap_for(c, 4), auto_active_thread_percentage(4, AtpPolicy::Double));
  c.policy = AtpPolicy::Even;
  EXPECT_EQ(cap_for(c, 3), 33);
  c.active_thread_percentage = 70;
  EXPECT_EQ(cap_for(c, 3), 70);
  // Balanced: the daemons' default is 100 (a client's own cap can only lower it).
  c.active_thread_percentage = 0;
  c.balanced = true;
  EXPECT_EQ(cap_for(c, 3), 100);
}

TEST(MpsPolicy, StatesReadAsTheReportSaysThem) {
  EXPECT_STREQ(to_string(MpsState::Off), "off");
  EXPECT_STREQ(to_string(MpsState::NotNeeded), "not needed");
  EXPECT_STREQ(to_string(MpsState::NotApplicable), "not applicable");
  EXPECT_STREQ(to_string(MpsState::Active), "active");
  EXPECT_STREQ(to_string(MpsState::ActiveReused), "active (reused daemon)");
  EXPECT_STREQ(to_string(MpsState::NotActive), "NOT active");
}

// mps_details.seconds is an object keyed by step: one distinct word per step.
TEST(MpsPolicy, StepsHaveDistinctOneWordNames) {
  std::vector<std::string> names;
  for (size_t i = 0; i < kMpsSteps; ++i) {
    const std::string name = to_string(static_cast<MpsStep>(i));
    EXPECT_NE(name, "?");
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string::npos) << name;
    EXPECT_EQ(std::count(names.begin(), names.end(), name), 0) << name;
    names.push_back(name);
  }
  EXPECT_STREQ(to_string(MpsStep::TeardownStop), "teardown_stop");
  EXPECT_STREQ(to_string(MpsStep::TeardownExit), "teardown_exit");
}

TEST(MpsPolicy, ExpectedSmsRoundDownToPairs) {
  EXPECT_EQ(expected_sms(132, 25), 32);  // 33 SMs -> 16 TPCs
  EXPECT_EQ(expected_sms(132, 100), 132);
  EXPECT_EQ(expected_sms(132, 50), 66);
  EXPECT_EQ(expected_sms(132, 67), 88);  // 88.44
  EXPECT_EQ(expected_sms(108, 34), 36);  // 36.72
  EXPECT_EQ(expected_sms(132, 1), 2);    // never fewer than one TPC
  EXPECT_EQ(expected_sms(16, 5), 2);
  for (int p = 1; p <= 100; ++p) {
    const int sms = expected_sms(132, p);
    EXPECT_EQ(sms % 2, 0) << p;
    EXPECT_LE(sms, 132) << p;
  }
}

// --- Memory sizes ---------------------------------------------------------

TEST(MpsPolicy, PinnedLimitIsWholeMibOrGib) {
  EXPECT_EQ(parse_pinned_mem_limit("8G", "x"), std::int64_t{8} << 30);
  EXPECT_EQ(parse_pinned_mem_limit("8g", "x"), std::int64_t{8} << 30);
  EXPECT_EQ(parse_pinned_mem_limit("512M", "x"), std::int64_t{512} << 20);
  EXPECT_EQ(parse_pinned_mem_limit("1536m", "x"), std::int64_t{1536} << 20);
}

// What the daemon would misread without a word (64K as 64M, 2T as 2M,
// 1073741824 as that many MiB, 1.5G as 1M) is refused with what is expected.
TEST(MpsPolicy, PinnedLimitRejectsWhatTheDaemonMisreads) {
  const std::string origin = "in.h5: /mps/pinned_device_mem_limit";
  for (const char* bad :
       {"64K", "2T", "1073741824", "1.5G", "8GB", "0G", "0M", "08G", "", "G", "8 G", " 8G", "-8G",
        "+8G", "8X", "abc", "9999999999999G", "99999999999999999999M"}) {
    try {
      parse_pinned_mem_limit(bad, origin);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(origin), std::string::npos) << what;
      EXPECT_NE(what.find("mps.pinned_device_mem_limit"), std::string::npos) << what;
      EXPECT_NE(what.find("a whole number followed by M or G"), std::string::npos) << what;
      EXPECT_NE(what.find(std::string("got '") + bad + "'"), std::string::npos) << what;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "'" << bad << "' threw something else than InputError: " << e.what();
    }
  }
}

// As get_default_device_pinned_mem_limit answered on an H100.
TEST(MpsPolicy, PinnedLimitAsTheDaemonShowsIt) {
  EXPECT_EQ(pinned_limit_as_shown(std::int64_t{512} << 20), "512M");
  EXPECT_EQ(pinned_limit_as_shown(std::int64_t{1024} << 20), "1G");
  EXPECT_EQ(pinned_limit_as_shown(std::int64_t{1536} << 20), "1G");
  EXPECT_EQ(pinned_limit_as_shown(std::int64_t{8} << 30), "8G");
}

TEST(MpsPolicy, PinnedLimitKeyIsSentAsTheDaemonWritesIt) {
  std::string error;
  const MpsConfig c = read_mps_config(nullptr, {"mps.pinned_device_mem_limit=8g"}, {}, &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(c.pinned_device_mem_limit, "8G");
  EXPECT_EQ(c.pinned_bytes, std::int64_t{8} << 30);
  read_mps_config(nullptr, {"mps.pinned_device_mem_limit=64K"}, {}, &error);
  EXPECT_NE(error.find("mps.pinned_device_mem_limit"), std::string::npos) << error;
}

// --- Preflight limits ------------------------------------------------------

TEST(MpsPolicy, MaxClientsPerGpuByCudaVersion) {
  EXPECT_EQ(max_clients_per_gpu(0), 48);  // built without CUDA
  EXPECT_EQ(max_clients_per_gpu(12080), 48);
  EXPECT_EQ(max_clients_per_gpu(13000), 48);
  EXPECT_EQ(max_clients_per_gpu(13010), 60);
  EXPECT_EQ(max_clients_per_gpu(13020), 60);
}

// The arithmetic of the session's preflight: with round-robin ranks the
// busiest GPU has ceil(local_size / gpus) clients; 49 ranks on one GPU are
// refused before CUDA 13.1, 48 are not; 96 ranks on 2 GPUs fit, 97 do not.
TEST(MpsPolicy, PreflightClientArithmetic) {
  const int limit = max_clients_per_gpu(13000);
  EXPECT_LE(local_ranks_on_gpu(0, 48, 1), limit);
  EXPECT_GT(local_ranks_on_gpu(0, 49, 1), limit);
  EXPECT_LE(local_ranks_on_gpu(0, 96, 2), limit);
  EXPECT_GT(local_ranks_on_gpu(0, 97, 2), limit);
  EXPECT_LE(local_ranks_on_gpu(0, 480, 8), max_clients_per_gpu(13010));
  EXPECT_GT(local_ranks_on_gpu(0, 481, 8), max_clients_per_gpu(13010));
}

// --- Slurm task lists -----------------------------------------------------

TEST(MpsLauncher, SlurmTasksOnNode) {
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 0), 2);
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 1), 2);
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 2), 2);
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 3), 1);
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 4), 0);  // no such node
  EXPECT_EQ(slurm_tasks_on_node("4", 0), 4);
  EXPECT_EQ(slurm_tasks_on_node("4", 1), 0);
  EXPECT_EQ(slurm_tasks_on_node("1,3,5", 2), 5);
  EXPECT_EQ(slurm_tasks_on_node("8(x2),4(x2)", 3), 4);
  EXPECT_EQ(slurm_tasks_on_node("", 0), 0);
}

// --- Launcher detection ------------------------------------------------------

EnvLookup fake_env(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    const auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(MpsLauncher, OpenMpi) {
  const LauncherInfo l = detect_launcher(fake_env({{"OMPI_COMM_WORLD_LOCAL_RANK", "3"},
                                                   {"OMPI_COMM_WORLD_LOCAL_SIZE", "8"},
                                                   {"OMPI_MCA_ess_base_jobid", "12345"}}));
  EXPECT_TRUE(l.known);
  EXPECT_EQ(l.local_rank, 3);
  EXPECT_EQ(l.local_size, 8);
  EXPECT_EQ(l.source, "Open MPI");
  EXPECT_EQ(l.job, "12345");
}

TEST(MpsLauncher, OpenMpiJobFromPmixNamespace) {
  const LauncherInfo l = detect_launcher(fake_env({{"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                                                   {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                                                   {"PMIX_NAMESPACE", "prterun-n1-77@1"}}));
  EXPECT_TRUE(l.known);
  EXPECT_EQ(l.job, "prterun-n1-77@1");
}

TEST(MpsLauncher, OpenMpiWinsOverTheAllocationsSlurmVariables) {
  const LauncherInfo l = detect_launcher(fake_env({{"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                                   {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"},
                                                   {"OMPI_MCA_ess_base_jobid", "9"},
                                                   {"SLURM_LOCALID", "0"},
                                                   {"SLURM_JOB_ID", "77"},
                                                   {"SLURM_TASKS_PER_NODE", "1"}}));
  EXPECT_EQ(l.source, "Open MPI");
  EXPECT_EQ(l.local_rank, 1);
  EXPECT_EQ(l.local_size, 4);
}

TEST(MpsLauncher, SlurmStepTasksPerNode) {
  const LauncherInfo l = detect_launcher(fake_env({{"SLURM_LOCALID", "1"},
                                                   {"SLURM_NODEID", "3"},
                                                   {"SLURM_STEP_TASKS_PER_NODE", "2(x3),1"},
                                                   {"SLURM_TASKS_PER_NODE", "4(x4)"},
                                                   {"SLURM_JOB_ID", "4711"},
                                                   {"SLURM_STEP_ID", "2"}}));
  EXPECT_FALSE(l.known);  // node 3 has one task: local id 1 cannot be
  const LauncherInfo m = detect_launcher(fake_env({{"SLURM_LOCALID", "1"},
                                                   {"SLURM_NODEID", "2"},
                                                   {"SLURM_STEP_TASKS_PER_NODE", "2(x3),1"},
                                                   {"SLURM_TASKS_PER_NODE", "4(x4)"},
                                                   {"SLURM_JOB_ID", "4711"},
                                                   {"SLURM_STEP_ID", "2"}}));
  EXPECT_TRUE(m.known);
  EXPECT_EQ(m.source, "Slurm");
  EXPECT_EQ(m.local_rank, 1);
  EXPECT_EQ(m.local_size, 2);
  EXPECT_EQ(m.job, "4711.2");
}

TEST(MpsLauncher, SlurmFallsBackToJobTasksPerNode) {
  const LauncherInfo l = detect_launcher(fake_env({{"SLURM_LOCALID", "2"},
                                                   {"SLURM_NODEID", "0"},
                                                   {"SLURM_TASKS_PER_NODE", "4(x2)"},
                                                   {"SLURM_JOB_ID", "5"},
                                                   {"SLURM_STEP_ID", "0"}}));
  EXPECT_TRUE(l.known);
  EXPECT_EQ(l.local_size, 4);
  EXPECT_EQ(l.job, "5.0");
}

TEST(MpsLauncher, MpichHydra) {
  const LauncherInfo l = detect_launcher(
      fake_env({{"MPI_LOCALRANKID", "2"}, {"MPI_LOCALNRANKS", "3"}, {"PMI_KVSNAME", "kvs_123_0"}}));
  EXPECT_TRUE(l.known);
  EXPECT_EQ(l.source, "MPICH/Hydra");
  EXPECT_EQ(l.local_rank, 2);
  EXPECT_EQ(l.local_size, 3);
  EXPECT_EQ(l.job, "kvs_123_0");
}

TEST(MpsLauncher, Pmi) {
  const LauncherInfo l = detect_launcher(
      fake_env({{"PMI_LOCAL_RANK", "0"}, {"PMI_LOCAL_SIZE", "4"}, {"PMI_KVSNAME", "kvs_9"}}));
  EXPECT_TRUE(l.known);
  EXPECT_EQ(l.source, "PMI");
  EXPECT_EQ(l.local_size, 4);
  EXPECT_EQ(l.job, "kvs_9");
}

TEST(MpsLauncher, NoVariablesMeansUnknown) {
  const LauncherInfo l = detect_launcher(fake_env({}));
  EXPECT_FALSE(l.known);
  EXPECT_EQ(l.local_rank, 0);
  EXPECT_EQ(l.local_size, 1);
}

TEST(MpsLauncher, HalfTheVariablesOrNonsenseMeansUnknown) {
  EXPECT_FALSE(detect_launcher(fake_env({{"OMPI_COMM_WORLD_LOCAL_RANK", "0"}})).known);
  EXPECT_FALSE(detect_launcher(fake_env({{"MPI_LOCALRANKID", "0"}})).known);
  EXPECT_FALSE(detect_launcher(fake_env({{"OMPI_COMM_WORLD_LOCAL_RANK", "4"},
                                         {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}}))
                   .known);
  EXPECT_FALSE(detect_launcher(fake_env({{"OMPI_COMM_WORLD_LOCAL_RANK", "x"},
                                         {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}}))
                   .known);
  EXPECT_FALSE(detect_launcher(fake_env({{"OMPI_COMM_WORLD_LOCAL_RANK", "-1"},
                                         {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}}))
                   .known);
  EXPECT_FALSE(detect_launcher(fake_env({{"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                                         {"OMPI_COMM_WORLD_LOCAL_SIZE", "0"}}))
                   .known);
  EXPECT_FALSE(detect_launcher(fake_env({{"SLURM_LOCALID", "0"}})).known);  // no task list
}

TEST(MpsLauncher, JobWithoutIdIsNamedAfterTheParent) {
  const std::string ppid = "ppid" + std::to_string(getppid());
  EXPECT_EQ(detect_launcher(fake_env({{"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                                      {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}}))
                .job,
            ppid);
  EXPECT_EQ(detect_launcher(fake_env({{"SLURM_LOCALID", "0"}, {"SLURM_TASKS_PER_NODE", "2"}})).job,
            ppid);  // "." (no job, no step) is no name
}

// --- CUDA_VISIBLE_DEVICES --------------------------------------------------------

std::vector<GpuInfo> four_gpus() {
  return {{"GPU-aaaa1111-0000-0000-0000-000000000000", "0000:1a:00.0", ""},
          {"GPU-bbbb2222-0000-0000-0000-000000000000", "0000:3b:00.0", ""},
          {"GPU-cccc3333-0000-0000-0000-000000000000", "0000:5e:00.0", ""},
          {"GPU-dddd4444-0000-0000-0000-000000000000", "0000:86:00.0", ""}};
}

std::vector<std::string> uuids(const std::vector<GpuInfo>& gpus) {
  std::vector<std::string> out;
  for (const GpuInfo& g : gpus) out.push_back(g.uuid.substr(4, 4));
  return out;
}

using Names = std::vector<std::string>;

TEST(MpsGpus, VisibleDevicesByIndex) {
  EXPECT_EQ(uuids(apply_visible_devices(four_gpus(), "0,1,2,3")),
            (Names{"aaaa", "bbbb", "cccc", "dddd"}));
  EXPECT_EQ(uuids(apply_visible_devices(four_gpus(), "2,0")), (Names{"cccc", "aaaa"}));
  EXPECT_EQ(uuids(apply_visible_devices(four_gpus(), "3")), (Names{"dddd"}));
  EXPECT_EQ(uuids(apply_visible_devices(four_gpus(), "1, 2")), (Names{"bbbb", "cccc"}));
}

TEST(MpsGpus, VisibleDevicesByUuidPrefix) {
  EXPECT_EQ(uuids(apply_visible_devices(four_gpus(), "GPU-bbbb2222-0000-0000-0000-000000000000")),
            (Names{"bbbb"}));
  EXPECT_EQ(uuids(apply_visible_devices(four_gpus(), "GPU-dd,GPU-aaaa")), (Names{"dddd", "aaaa"}));
  EXPECT_EQ(uuids(apply_visible_devices(four_gpus(), "GPU-cccc,1")), (Names{"cccc", "bbbb"}));
}

// CUDA would pick one of them; mpsfw must not guess which.
TEST(MpsGpus, UuidPrefixOfSeveralGpusIsRefusedNamingThem) {
  std::vector<GpuInfo> gpus = four_gpus();
  gpus[2].uuid = "GPU-aaaa9999-0000-0000-0000-000000000000";
  for (const char* ambiguous : {"GPU-aaaa", "GPU-", "1,GPU-aa"}) {
    try {
      apply_visible_devices(gpus, ambiguous);
      ADD_FAILURE() << "'" << ambiguous << "' was accepted";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(gpus[0].uuid), std::string::npos) << what;
      EXPECT_NE(what.find(gpus[ambiguous == std::string("GPU-") ? 1 : 2].uuid), std::string::npos)
          << what;
    }
  }
  EXPECT_EQ(uuids(apply_visible_devices(gpus, "GPU-aaaa1")), (Names{"aaaa"}));
}

// A GPU listed twice (by index, UUID or both) is refused naming both entries.
TEST(MpsGpus, GpuListedTwiceIsRefusedNamingTheEntries) {
  const std::vector<GpuInfo> gpus = four_gpus();
  const std::string b = gpus[1].uuid, a = gpus[0].uuid;
  const std::vector<std::array<std::string, 4>> cases = {
      {"0,0", "'0'", "'0'", a},
      {"1,1,0", "'1'", "'1'", b},
      {b + "," + b, "'" + b + "'", "'" + b + "'", b},
      {"2,GPU-aaaa,0", "'GPU-aaaa'", "'0'", a}};
  for (const auto& [visible, first, second, uuid] : cases) {
    try {
      apply_visible_devices(gpus, visible);
      ADD_FAILURE() << "'" << visible << "' was accepted";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("entries " + first + " and " + second), std::string::npos) << what;
      EXPECT_NE(what.find(uuid), std::string::npos) << what;
    }
  }
  // After an unknown entry nothing counts, as for CUDA.
  EXPECT_EQ(uuids(apply_visible_devices(gpus, "0,7,0")), (Names{"aaaa"}));
}

TEST(MpsGpus, UnknownEntryEndsTheList) {
  EXPECT_EQ(uuids(apply_visible_devices(four_gpus(), "1,7,2")), (Names{"bbbb"}));
  EXPECT_EQ(uuids(apply_visible_devices(four_gpus(), "0,GPU-ffff,2")), (Names{"aaaa"}));
  EXPECT_EQ(uuids(apply_visible_devices(four_gpus(), "-1,0")), (Names{}));
  EXPECT_EQ(uuids(apply_visible_devices(four_gpus(), "")), (Names{}));
  EXPECT_EQ(uuids(apply_visible_devices(four_gpus(), "NoDevFiles")), (Names{}));
  EXPECT_EQ(uuids(apply_visible_devices(four_gpus(), "2,,3")), (Names{"cccc"}));
}

TEST(MpsGpus, BlockPlanIsMpsfwsOwnBinding) {
  const GpuPlan p = block_plan(four_gpus(), 5, 8);
  EXPECT_FALSE(p.from_launcher);
  EXPECT_EQ(p.gpus.size(), 4u);
  EXPECT_EQ(p.ranks, (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(p.mine, 2);
}

TEST(MpsGpus, LauncherPlanTakesEachRanksFirstGpu) {
  // Slurm gave ranks 0 and 2 the third GPU, ranks 1 and 3 the first.
  const std::vector<GpuInfo> g = four_gpus();
  const std::vector<std::vector<GpuInfo>> seen = {{g[2]}, {g[0]}, {g[2]}, {g[0], g[1]}};
  const GpuPlan p = launcher_plan(seen, 3);
  EXPECT_TRUE(p.from_launcher);
  EXPECT_EQ(uuids(p.gpus), (Names{"cccc", "aaaa"}));
  EXPECT_EQ(p.ranks, (std::vector<int>{2, 2}));
  EXPECT_EQ(p.mine, 1);
  EXPECT_EQ(launcher_plan(seen, 0).mine, 0);
  EXPECT_THROW(launcher_plan({{g[0]}, {}}, 0), Error);
}

TEST(MpsGpus, LauncherPlanOfTheSameGpusEverywhereIsMpsfwsBlocks) {
  // CUDA_VISIBLE_DEVICES=1,3 for every rank of four: two a GPU, not all on the first.
  const std::vector<GpuInfo> g = four_gpus();
  const std::vector<std::vector<GpuInfo>> seen(4, {g[1], g[3]});
  const GpuPlan p = launcher_plan(seen, 2);
  EXPECT_FALSE(p.from_launcher);
  EXPECT_EQ(uuids(p.gpus), (Names{"bbbb", "dddd"}));
  EXPECT_EQ(p.ranks, (std::vector<int>{2, 2}));
  EXPECT_EQ(p.mine, 1);
  EXPECT_EQ(launcher_plan(seen, 1).mine, 0);
  // The same GPUs in another order on one rank: the launcher's binding.
  const std::vector<std::vector<GpuInfo>> reordered = {{g[1], g[3]}, {g[3], g[1]}};
  EXPECT_EQ(uuids(launcher_plan(reordered, 1).gpus), (Names{"bbbb", "dddd"}));
  EXPECT_EQ(launcher_plan(reordered, 1).mine, 1);
}

TEST(MpsGpus, LauncherBindsGpusWhenATaskSeesPartOfTheGpus) {
  // Slurm's step has more GPUs than this task sees (--gpu-bind).
  EXPECT_TRUE(launcher_binds_gpus(
      4, fake_env({{"SLURM_STEP_GPUS", "0,1,2,3"}, {"CUDA_VISIBLE_DEVICES", "2"}})));
  EXPECT_TRUE(
      launcher_binds_gpus(4, fake_env({{"SLURM_JOB_GPUS", "0,1"}, {"CUDA_VISIBLE_DEVICES", "1"}})));
  // Outside Slurm: fewer than the node has (a per-rank wrapper).
  EXPECT_TRUE(launcher_binds_gpus(2, fake_env({{"CUDA_VISIBLE_DEVICES", "1"}})));
  // The whole allocation, or nothing set: mpsfw binds.
  EXPECT_FALSE(launcher_binds_gpus(
      4, fake_env({{"SLURM_STEP_GPUS", "0,1"}, {"CUDA_VISIBLE_DEVICES", "0,1"}})));
  EXPECT_FALSE(launcher_binds_gpus(1, fake_env({{"CUDA_VISIBLE_DEVICES", "0"}})));
  EXPECT_FALSE(launcher_binds_gpus(2, fake_env({{"SLURM_STEP_GPUS", "0,1"}})));
}

TEST(MpsGpus, CpuListsAsTheKernelWritesThem) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("5\n"), (std::vector<int>{5}));
  EXPECT_EQ(parse_cpu_list(""), (std::vector<int>{}));
  EXPECT_EQ(parse_cpu_list("x,2,4-3"), (std::vector<int>{2}));  // bad parts skipped
}

// --- GPUs from a fake /proc/driver/nvidia/gpus --------------------------------

class FakeProc : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("mpsfw-test-mps-policy-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  // A GPU folder as the driver writes it (only "GPU UUID" matters).
  void gpu(const std::string& pci, const std::string& uuid) {
    fs::create_directories(root_ / pci);
    std::ofstream(root_ / pci / "information")
        << "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 255\nGPU UUID: \t " << uuid
        << "\nVideo BIOS: \t 96.00.99.00.01\nBus Type: \t PCIe\nBus Location: \t " << pci << "\n";
  }
  EnvLookup env(const std::string& visible = "", bool has_visible = false) const {
    std::map<std::string, std::string> vars = {{"MPSFW_NVIDIA_PROC_ROOT", root_.string()}};
    if (has_visible) vars["CUDA_VISIBLE_DEVICES"] = visible;
    return fake_env(vars);
  }
  fs::path root_;
};

// The ready file carries each GPU's peers (the probe's answer) to every rank,
// so ranks that see only their own GPU know which others they reach.
TEST_F(FakeProc, ReadyFileKeepsEachGpusPeers) {
  SessionGpu a, b;
  a.index = 0;
  a.uuid = "GPU-aaaa";
  a.pipe_dir = (root_ / "gpu0" / "pipe").string();
  a.log_dir = (root_ / "gpu0" / "log").string();
  a.peers = {"GPU-bbbb", "GPU-cccc"};
  b = a;
  b.index = 1;
  b.uuid = "GPU-bbbb";
  b.peers = {};
  b.mig = "MIG 3g.20gb of GPU-aaaa";
  b.pinned = "8G";
  write_ready(root_.string(), {42, {a, b}});
  SessionRecord back;
  ASSERT_TRUE(read_ready(root_.string(), &back));
  EXPECT_EQ(back.leader, 42);
  ASSERT_EQ(back.gpus.size(), 2u);
  EXPECT_EQ(back.gpus[0].peers, (Names{"GPU-bbbb", "GPU-cccc"}));
  EXPECT_EQ(back.gpus[0].log_dir, a.log_dir);
  EXPECT_EQ(back.gpus[1].peers, Names{});
  EXPECT_EQ(back.gpus[1].uuid, "GPU-bbbb");
  EXPECT_EQ(back.gpus[0].mig, "");
  EXPECT_EQ(back.gpus[1].mig, "MIG 3g.20gb of GPU-aaaa");
  EXPECT_EQ(back.gpus[0].pinned, "");
  EXPECT_EQ(back.gpus[1].pinned, "8G");
}

// A ready file of an older mpsfw (no "mpsfw-session" line, no pinned field)
// is still read, for reuse; only removal asks for our record.
TEST_F(FakeProc, OlderReadyFilesAreStillRead) {
  std::ofstream(root_ / "ready") << "leader 0\ngpu 0 GPU-aaaa 77 50 0 /p /l GPU-bbbb MIG 1g of x\n";
  SessionRecord back;
  ASSERT_TRUE(read_ready(root_.string(), &back));
  EXPECT_EQ(back.leader, 0);
  ASSERT_EQ(back.gpus.size(), 1u);
  EXPECT_EQ(back.gpus[0].cap, 50);
  EXPECT_EQ(back.gpus[0].peers, Names{"GPU-bbbb"});
  EXPECT_EQ(back.gpus[0].pinned, "");
  EXPECT_EQ(back.gpus[0].mig, "MIG 1g of x");
}

// --- What remove_session may remove -------------------------------------------

// A folder whose files must all still be there after a refused removal.
void expect_untouched(const fs::path& dir, const std::vector<std::string>& files) {
  for (const std::string& f : files) EXPECT_TRUE(fs::exists(dir / f)) << (dir / f);
}

std::string refusal(const fs::path& dir) {
  try {
    remove_session(dir.string(), 1.0);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A session as start_session_daemons and write_ready leave it, daemons gone.
fs::path make_session(const fs::path& root, const std::string& job) {
  const fs::path dir = root / session_name(job);
  for (const char* g : {"gpu0", "gpu1"}) {
    fs::create_directories(dir / g / "pipe");
    fs::create_directories(dir / g / "log");
    std::ofstream(dir / g / "pipe" / "control_lock");
    std::ofstream(dir / g / "log" / "control.log") << "log\n";
  }
  SessionGpu gpu;
  gpu.pipe_dir = (dir / "gpu0" / "pipe").string();
  gpu.log_dir = (dir / "gpu0" / "log").string();
  write_ready(dir.string(), {0, {gpu}});
  return dir;
}

TEST_F(FakeProc, RemoveSessionRemovesOnlyAProvenSession) {
  const fs::path dir = make_session(root_, "unit");
  EXPECT_EQ(refusal(dir), "");
  EXPECT_FALSE(fs::exists(dir));
  fs::create_directories(root_ / session_name("empty"));  // a leader's folder before any record
  EXPECT_EQ(refusal(root_ / session_name("empty")), "");
  EXPECT_FALSE(fs::exists(root_ / session_name("empty")));
  EXPECT_EQ(refusal(root_ / "no-such-folder"), "");
}

// A project folder with a `ready` file must never be removed whole.
TEST_F(FakeProc, RemoveSessionRefusesAFolderThatIsNotOneTouchingNothing) {
  const fs::path project = root_ / "project";
  fs::create_directories(project / "data");
  std::ofstream(project / "ready") << "leader 0\n";
  std::ofstream(project / "data" / "results.csv") << "1,2\n";
  std::string why = refusal(project);
  EXPECT_NE(why.find("not removing " + project.string()), std::string::npos) << why;
  EXPECT_NE(why.find("its name is not mpsfw-mps-<job>-<host>"), std::string::npos) << why;
  expect_untouched(project, {"ready", "data/results.csv"});
  // Our name, but a record we did not write (an older mpsfw, or the user's).
  const fs::path named = root_ / session_name("named");
  fs::create_directories(named / "gpu0" / "pipe");
  std::ofstream(named / "ready") << "leader 0\n";
  why = refusal(named);
  EXPECT_NE(why.find("does not begin with 'mpsfw-session 1 <host>'"), std::string::npos) << why;
  expect_untouched(named, {"ready", "gpu0/pipe"});
  // Our name, no record at all.
  fs::remove(named / "ready");
  why = refusal(named);
  EXPECT_NE(why.find("holds no ready, failed or starting file"), std::string::npos) << why;
  expect_untouched(named, {"gpu0/pipe"});
}

TEST_F(FakeProc, RemoveSessionKeepsWhatMpsfwNeverWrites) {
  const fs::path dir = make_session(root_, "unit");
  fs::create_directories(dir / "data");
  std::ofstream(dir / "data" / "results.csv") << "1,2\n";
  fs::create_directories(dir / "gpu1" / "log" / "mine");
  std::string why = refusal(dir);
  EXPECT_NE(why.find("did not remove it: it holds"), std::string::npos) << why;
  EXPECT_NE(why.find("'data'"), std::string::npos) << why;
  EXPECT_NE(why.find("'gpu1/log/mine'"), std::string::npos) << why;
  expect_untouched(dir, {"ready", "data/results.csv", "gpu0/pipe/control_lock", "gpu1/log/mine"});
  // Never through a symbolic link: the user's folder it points to stays whole.
  const fs::path user = root_ / "user";
  fs::create_directories(user / "pipe");
  std::ofstream(user / "pipe" / "notes.txt") << "mine\n";
  const fs::path linked = make_session(root_, "linked");
  fs::remove_all(linked / "gpu1");
  fs::create_directory_symlink(user, linked / "gpu1");
  why = refusal(linked);
  EXPECT_NE(why.find("'gpu1'"), std::string::npos) << why;
  expect_untouched(user, {"pipe/notes.txt"});
}

// With mps.directory on a shared file system: never this host's to judge.
TEST_F(FakeProc, SessionsOfOtherHostsAreNeitherListedNorRemoved) {
  const fs::path mine = make_session(root_, "unit");
  const fs::path other = root_ / ("mpsfw-mps-unit-" + session_host() + "x");
  fs::create_directories(other / "gpu0" / "pipe");
  std::ofstream(other / "ready") << "mpsfw-session 1 " << session_host() << "x\nleader 99999999\n";
  int others = 0;
  EXPECT_EQ(list_sessions(root_.string(), &others), std::vector<std::string>{mine.string()});
  EXPECT_EQ(others, 1);
  const std::string why = refusal(other);
  EXPECT_NE(why.find("a session of another host"), std::string::npos) << why;
  expect_untouched(other, {"ready", "gpu0/pipe"});
  // The name alone is not enough: the record names the host too.
  std::ofstream(mine / "ready") << "mpsfw-session 1 elsewhere\nleader 0\n";
  EXPECT_NE(refusal(mine).find("names host elsewhere"), std::string::npos);
  EXPECT_EQ(list_sessions(root_.string(), &others), std::vector<std::string>{});
  EXPECT_EQ(others, 2);
}

TEST_F(FakeProc, GpusInPciOrder) {
  // UUIDs deliberately not in PCI order: the PCI order is CUDA's order.
  gpu("0000:86:00.0", "GPU-aaaa1111-0000-0000-0000-000000000000");
  gpu("0000:1a:00.0", "GPU-dddd4444-0000-0000-0000-000000000000");
  gpu("0000:3b:00.0", "GPU-cccc3333-0000-0000-0000-000000000000");
  const std::vector<GpuInfo> g = visible_gpus(env());
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].pci_bus, "0000:1a:00.0");
  EXPECT_EQ(g[0].uuid, "GPU-dddd4444-0000-0000-0000-000000000000");
  EXPECT_EQ(g[1].uuid, "GPU-cccc3333-0000-0000-0000-000000000000");
  EXPECT_EQ(g[2].uuid, "GPU-aaaa1111-0000-0000-0000-000000000000");
}

TEST_F(FakeProc, VisibleDevicesFilter) {
  gpu("0000:1a:00.0", "GPU-aaaa1111-0000-0000-0000-000000000000");
  gpu("0000:3b:00.0", "GPU-bbbb2222-0000-0000-0000-000000000000");
  EXPECT_EQ(uuids(visible_gpus(env("1", true))), (Names{"bbbb"}));
  EXPECT_EQ(uuids(visible_gpus(env("GPU-bbbb,GPU-aaaa", true))), (Names{"bbbb", "aaaa"}));
  EXPECT_EQ(uuids(visible_gpus(env("", true))), (Names{}));  // set but empty: no GPU
  EXPECT_EQ(uuids(visible_gpus(env())), (Names{"aaaa", "bbbb"}));
}

TEST_F(FakeProc, FoldersWithoutUuidAreSkipped) {
  gpu("0000:1a:00.0", "GPU-aaaa1111-0000-0000-0000-000000000000");
  fs::create_directories(root_ / "0000:3b:00.0");  // no information file
  fs::create_directories(root_ / "0000:5e:00.0");
  std::ofstream(root_ / "0000:5e:00.0" / "information") << "Model: \t NVIDIA Something\n";
  EXPECT_EQ(uuids(visible_gpus(env())), (Names{"aaaa"}));
}

TEST_F(FakeProc, EmptyOrMissingTreeMeansNoGpuAndNoNvidiaSmi) {
  // With MPSFW_NVIDIA_PROC_ROOT set, nvidia-smi is not asked: no GPU here.
  EXPECT_TRUE(visible_gpus(env()).empty());
  EXPECT_TRUE(
      visible_gpus(fake_env({{"MPSFW_NVIDIA_PROC_ROOT", (root_ / "missing").string()}})).empty());
}

// `nvidia-smi -L` on an A100 split into two MIG instances, as the driver
// writes it (R470+), and the older R450 wording of an instance.
const char* const kMigList =
    "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-aaaa1111-0000-0000-0000-000000000000)\n"
    "  MIG 3g.20gb     Device  0: (UUID: MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f)\n"
    "  MIG 2g.10gb     Device  1: (UUID: MIG-0f1e2d3c-42e4-5de3-91c7-45d71c87eb3f)\n"
    "GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-bbbb2222-0000-0000-0000-000000000000)\n";

TEST(MpsGpus, MigInstancesAreReadUnderTheirGpu) {
  const std::vector<MigInstance> m = parse_mig_instances(kMigList);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].gpu_uuid, "GPU-aaaa1111-0000-0000-0000-000000000000");
  EXPECT_EQ(m[0].profile, "3g.20gb");
  EXPECT_EQ(m[0].uuid, "MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f");
  EXPECT_EQ(m[1].profile, "2g.10gb");
  const std::vector<MigInstance> old = parse_mig_instances(
      "GPU 0: A100-SXM4-40GB (UUID: GPU-aaaa)\n  MIG 1g.5gb Device 0: (UUID: MIG-GPU-aaaa/1/0)\n");
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].uuid, "MIG-GPU-aaaa/1/0");
  EXPECT_TRUE(parse_mig_instances("No devices found.\n").empty());
}

// A GPU whose capabilities list MIG instances is listed as its instances,
// named by a stand-in nvidia-smi; the other GPU stays whole.
TEST_F(FakeProc, MigInstancesReplaceTheirGpu) {
  gpu("0000:3b:00.0", "GPU-aaaa1111-0000-0000-0000-000000000000");
  gpu("0000:5e:00.0", "GPU-bbbb2222-0000-0000-0000-000000000000");
  std::ofstream(root_ / "0000:3b:00.0" / "information", std::ios::app) << "Device Minor: \t 0\n";
  std::ofstream(root_ / "0000:5e:00.0" / "information", std::ios::app) << "Device Minor: \t 1\n";
  const fs::path caps = root_.parent_path() / (root_.filename().string() + "-caps");
  fs::create_directories(caps / "gpu0" / "mig" / "gi1" / "ci0");
  fs::create_directories(caps / "gpu0" / "mig" / "gi2" / "ci0");
  fs::create_directories(caps / "gpu1");
  const fs::path smi = root_.parent_path() / (root_.filename().string() + "-nvidia-smi");
  std::ofstream(smi) << "#!/bin/sh\ncat <<'EOF'\n" << kMigList << "EOF\n";
  fs::permissions(smi, fs::perms::owner_all);
  std::map<std::string, std::string> vars = {{"MPSFW_NVIDIA_PROC_ROOT", root_.string()},
                                             {"MPSFW_NVIDIA_CAPABILITIES_ROOT", caps.string()},
                                             {"MPSFW_NVIDIA_SMI", smi.string()}};
  const std::vector<GpuInfo> gpus = visible_gpus(fake_env(vars));
  ASSERT_EQ(gpus.size(), 3u);
  EXPECT_EQ(gpus[0].uuid, "MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f");
  EXPECT_EQ(gpus[0].mig, "MIG 3g.20gb of GPU-aaaa1111-0000-0000-0000-000000000000");
  EXPECT_EQ(gpus[1].uuid, "MIG-0f1e2d3c-42e4-5de3-91c7-45d71c87eb3f");
  EXPECT_EQ(gpus[2].uuid, "GPU-bbbb2222-0000-0000-0000-000000000000");
  EXPECT_EQ(gpus[2].mig, "");
  // CUDA_VISIBLE_DEVICES may name an instance.
  vars["CUDA_VISIBLE_DEVICES"] = "MIG-0f1e";
  const std::vector<GpuInfo> one = visible_gpus(fake_env(vars));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].uuid, "MIG-0f1e2d3c-42e4-5de3-91c7-45d71c87eb3f");
  // Instances nvidia-smi does not name: an error that says what is missing.
  vars.erase("CUDA_VISIBLE_DEVICES");
  vars["MPSFW_NVIDIA_SMI"] = (root_ / "no-such-nvidia-smi").string();
  try {
    visible_gpus(fake_env(vars));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has MIG instances"), std::string::npos) << e.what();
  }
  fs::remove_all(caps);
  fs::remove(smi);
}

// The server log names PIDs; the session maps them to ranks. These lines are
// what the CUDA 13 MPS server wrote on an H200 (driver 580) when rank 1
// (pid 1349) wrote through a null pointer and rank 3 (pid 1351) shared its GPU
// (scripts/device_mps_check.sh).
const char* const kRealFaultLog =
    "[2026-11-21 13:57:53.694 Server  1386] Client {PID: 1349, Context ID: 0} connected\n"
    "[2026-11-21 13:57:53.695 Server  1386] Client {PID: 1351, Context ID: 0} connected\n"
    "[2026-11-21 13:57:53.808 Server  1386] Status of client {PID: 1349, Context ID: 1} is ACTIVE\n"
    "[2026-11-21 13:57:56.301 Server  1386] Client {PID: 1349, Context: 1} encountered a fatal GPU "
    "error.\n"
    "[2026-11-21 13:57:56.301 Server  1386] Server is handling a fatal GPU error.\n"
    "[2026-11-21 13:57:56.301 Server  1386] Client {PID: 1349, Context ID: 1} on device 0 to be "
    "torn down\n"
    "[2026-11-21 13:57:56.301 Server  1386] Client {PID: 1351, Context ID: 1} on device 0 to be "
    "torn down\n"
    "[2026-11-21 13:57:56.301 Server  1386] All clients belonging to error trigging process 1349 "
    "will be torn down\n"
    "[2026-11-21 13:57:56.301 Server  1386] All clients belonging to error trigging process 1351 "
    "will be torn down\n"
    "[2026-11-21 13:57:56.301 Server  1386] The following client process have a sticky error set:\n"
    "[2026-11-21 13:57:56.301 Server  1386] 1349\n"
    "[2026-11-21 13:57:56.301 Server  1386] 1351\n";

TEST(MpsFaultReport, TheClientThatEncounteredTheFaultIsTheCulpritNotTheOthersTornDown) {
  ServerFault fault;
  ASSERT_TRUE(find_server_fault(kRealFaultLog, &fault));
  EXPECT_EQ(fault.faulting, (std::vector<long>{1349}));
  EXPECT_EQ(fault.torn_down, (std::vector<long>{1349, 1351}));
  EXPECT_EQ(fault.line, "Client {PID: 1349, Context: 1} encountered a fatal GPU error.");
  const std::string text = describe_server_fault(fault, {{1349, 1}, {1351, 3}, {1350, 2}});
  EXPECT_NE(text.find("faulting client per the server: rank 1 (pid 1349)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("torn down with it: rank 3 (pid 1351)"), std::string::npos) << text;
  // Rank 2 is on the other GPU: named as untouched, after the torn-down ones.
  const size_t untouched = text.find("; not torn down (other GPUs");
  ASSERT_NE(untouched, std::string::npos) << text;
  EXPECT_NE(text.find("rank 2 (pid 1350)", untouched), std::string::npos) << text;
  EXPECT_EQ(text.find("rank 2"), text.find("rank 2", untouched)) << text;
}

TEST(MpsFaultReport, TimestampsServerPidAndContextIdsAreNotTakenForClients) {
  // 13, 57, 56, 301, the server's 1386 and context 1 must never name a rank.
  ServerFault fault;
  ASSERT_TRUE(find_server_fault(kRealFaultLog, &fault));
  const std::string all = describe_server_fault(fault, {{1349, 1}, {1386, 5}, {1, 6}, {301, 7}});
  // Only the untouched-ranks clause may name them (they are the node's clients there).
  const std::string text = all.substr(0, all.find("; not torn down"));
  EXPECT_EQ(text.find("rank 5"), std::string::npos) << text;
  EXPECT_EQ(text.find("rank 6"), std::string::npos) << text;
  EXPECT_EQ(text.find("rank 7"), std::string::npos) << text;
}

TEST(MpsFaultReport, PidsOfNoRankAreSaidToBeOutsideTheJob) {
  ServerFault fault;
  ASSERT_TRUE(find_server_fault(kRealFaultLog, &fault));
  const std::string text = describe_server_fault(fault, {{1351, 0}});
  EXPECT_NE(text.find("pid 1349 (not a rank of this job)"), std::string::npos) << text;
}

TEST(MpsFaultReport, QuietWhenTheLogSpeaksOfNoFault) {
  ServerFault fault;
  EXPECT_FALSE(
      find_server_fault("[x Server 9] Client {PID: 5, Context ID: 0} connected\n", &fault));
  EXPECT_FALSE(find_server_fault("", &fault));
}

TEST(MpsFaultReport, OtherWordingsStillGiveTheLineAndItsPids) {
  ServerFault fault;
  ASSERT_TRUE(find_server_fault("[t Server 9] Xid 31 from client 42\n", &fault));
  EXPECT_EQ(fault.line, "Xid 31 from client 42");
  EXPECT_EQ(fault.faulting, (std::vector<long>{42}));
  const std::string text = describe_server_fault(fault, {{42, 4}});
  EXPECT_NE(text.find("rank 4 (pid 42)"), std::string::npos) << text;
}

TEST(MpsFaultReport, VictimErrorsAreTheMpsOnes) {
  EXPECT_TRUE(is_mps_victim_error("CUDA call failed: x: cudaErrorMpsClientTerminated: ..."));
  EXPECT_TRUE(is_mps_victim_error("cudaErrorMpsServerNotReady"));
  EXPECT_FALSE(is_mps_victim_error("CUDA call failed: x: cudaErrorIllegalAddress: ..."));
}

// Without NVML (no driver library) the inventory is /proc's and nvidia-smi's.
TEST(NvmlInventory, AMissingLibraryIsNoInventory) {
  EXPECT_FALSE(mps::nvml_gpus("libmpsfw-no-such-nvml.so.1").has_value());
}

}  // namespace
}  // namespace mpsfw::mps
