// The lifecycle of a node's MPS session: bring-up before MPI_Init (or after,
// when the launcher said nothing), leading (daemons, watchdog, ready file) or
// following (waiting for the leader's ready file), the environment each rank
// exports, giving up under mps.enable = auto, and teardown. Reuse of running
// daemons is in node_session_reuse.cpp, verification in node_session_verify.cpp.
#include "node_session.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "cap_policy.hpp"
#include "numa_placement.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/text_fields.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>
#include <mpsfw/core/parallel/string_gather.hpp>

namespace mpsfw::mps {
namespace fs = std::filesystem;

const char* to_string(MpsState state) {
  switch (state) {
    case MpsState::Off:
      return "off";
    case MpsState::NotNeeded:
      return "not needed";
    case MpsState::NotApplicable:
      return "not applicable";
    case MpsState::WouldStart:
      return "would be started (dry run)";
    case MpsState::Started:
      return "started";
    case MpsState::Reused:
      return "reused";
    case MpsState::Active:
      return "active";
    case MpsState::ActiveReused:
      return "active (reused daemon)";
    case MpsState::NotActive:
      return "NOT active";
  }
  return "?";
}

const char* to_string(MpsStep step) {
  switch (step) {
    case MpsStep::BringUp:
      return "bring_up";
    case MpsStep::Inventory:
      return "inventory";
    case MpsStep::DaemonStart:
      return "daemon_start";
    case MpsStep::DaemonConfig:
      return "daemon_config";
    case MpsStep::ServerStart:
      return "server_start";
    case MpsStep::Probe:
      return "probe";
    case MpsStep::MpiInit:
      return "mpi_init";
    case MpsStep::Bind:
      return "bind";
    case MpsStep::Verify:
      return "verify";
    case MpsStep::Release:
      return "release";
    case MpsStep::TeardownBarrier:
      return "teardown_barrier";
    case MpsStep::TeardownStop:
      return "teardown_stop";
    case MpsStep::TeardownExit:
      return "teardown_exit";
    case MpsStep::Count:
      break;
  }
  return "?";
}

std::string NodeSession::default_root(const MpsConfig& config) {
  if (!config.directory.empty()) return config.directory;
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

std::string NodeSession::session_dir(const std::string& root, const std::string& job) {
  return root + "/" + session_name(job);
}

NodeSession NodeSession::before_mpi(const MpsConfig& config, const LauncherInfo& launcher) {
  NodeSession s(config);
  s.launcher_ = launcher;
  if (config.enable == Enable::Off) {
    s.status_.reason = "mps.enable = off";
    s.ready_ = true;
    return s;
  }
  if (!launcher.known) {
    s.status_.bring_up = "after MPI_Init (the launcher set no local-rank variables)";
    return s;  // after_mpi brings it up
  }
  if (launcher_binds_gpus(static_cast<int>(node_gpus().size()))) {
    s.bound_by_launcher_ = true;
    s.status_.bring_up =
        "after MPI_Init (CUDA_VISIBLE_DEVICES holds a part of the GPUs, so ranks may see "
        "different ones: every rank's are gathered first)";
    return s;  // after_mpi brings it up
  }
  s.status_.bring_up = "before MPI_Init (local rank from " + launcher.source + ")";
  s.brought_up_before_mpi_ = true;
  const auto start = std::chrono::steady_clock::now();
  try {
    s.bring_up(launcher.local_rank, launcher.local_size);
  } catch (const std::exception& e) {
    s.pending_error_ = e.what();
  }
  s.add_seconds(MpsStep::BringUp, seconds_since(start));
  return s;
}

void NodeSession::after_mpi(MPI_Comm node) {
  if (brought_up_before_mpi_) {
    // Collective on every rank of the node, whatever its bring-up did. Only
    // ranks the session gave a GPU from the leader's view (MPS started or
    // reused) are wrong when views differ; with one rank per GPU each kept
    // its own CUDA_VISIBLE_DEVICES.
    const std::string differ = check_same_gpus(node);
    const bool exported = status_.state == MpsState::Started || status_.state == MpsState::Reused;
    if (pending_error_.empty() && exported) pending_error_ = differ;
  } else if (!ready_ && pending_error_.empty()) {
    int rank = 0, size = 1;
    MPSFW_MPI_CHECK(MPI_Comm_rank(node, &rank));
    MPSFW_MPI_CHECK(MPI_Comm_size(node, &size));
    // Without launcher variables all ranks agree on a job name through MPI.
    if (!bound_by_launcher_) {
      long leader_pid = static_cast<long>(getpid());
      MPSFW_MPI_CHECK(MPI_Bcast(&leader_pid, 1, MPI_LONG, 0, node));
      launcher_.job = "pid" + std::to_string(leader_pid);
    }
    const auto start = std::chrono::steady_clock::now();
    try {
      if (bound_by_launcher_) {
        bring_up_as_launcher_bound(node);
      } else {
        bring_up(rank, size);
      }
    } catch (const std::exception& e) {
      pending_error_ = e.what();
    }
    add_seconds(MpsStep::BringUp, seconds_since(start));
  }
  if (!pending_error_.empty()) throw Error(pending_error_);
}

std::string NodeSession::check_same_gpus(MPI_Comm node) const {
  // Bring-up before MPI_Init bound ranks from each one's own view; that is
  // only right when every rank of the node sees the same GPUs.
  const std::vector<std::string> all = all_gather_strings(node, seen_);
  for (size_t r = 1; r < all.size(); ++r) {
    if (all[r] != all[0]) {
      return "MPS: the ranks of this node see different GPUs (local rank 0: " +
             (all[0].empty() ? std::string("none") : all[0]) + " local rank " + std::to_string(r) +
             ": " + (all[r].empty() ? std::string("none") : all[r]) +
             "): CUDA_VISIBLE_DEVICES differs between them. Give every rank the same "
             "CUDA_VISIBLE_DEVICES (mpsfw then binds them), or give each rank a part of the "
             "node's GPUs (Slurm's --gpu-bind, a per-rank wrapper), which mpsfw follows";
    }
  }
  return "";
}

CudaGate NodeSession::cuda_gate() const {
  if (!ready_) throw Error("internal: CUDA used before the MPS session was ready");
  return CudaGate();
}

void NodeSession::give_up(const std::string& reason) {
  if (config_.enable == Enable::On) throw Error("MPS (mps.enable = on): " + reason);
  status_.state = MpsState::NotActive;
  status_.reason = reason;
  unsetenv("CUDA_MPS_PIPE_DIRECTORY");
  unsetenv("CUDA_MPS_LOG_DIRECTORY");
  ready_ = true;
}

std::vector<GpuInfo> NodeSession::inventory() {
  const auto start = std::chrono::steady_clock::now();
  std::vector<GpuInfo> gpus = visible_gpus();
  add_seconds(MpsStep::Inventory, seconds_since(start));
  seen_.clear();
  for (const GpuInfo& g : gpus) seen_ += g.uuid + ",";
  return gpus;
}

void NodeSession::bring_up(int local_rank, int local_size) {
  const std::vector<GpuInfo> gpus = inventory();
  if (gpus.empty()) {
    const std::string none =
        "no GPU is visible (CUDA_VISIBLE_DEVICES, /proc/driver/nvidia/gpus, nvidia-smi)";
    if (config_.enable == Enable::On) throw Error("MPS (mps.enable = on): " + none);
    // Nothing was asked of a GPU that is not there: not a failure to report.
    status_.state = MpsState::NotApplicable;
    status_.reason = "no GPU: host backend";
    ready_ = true;
    return;
  }
  bring_up(block_plan(gpus, local_rank, local_size), local_rank);
}

void NodeSession::bring_up_as_launcher_bound(MPI_Comm node) {
  inventory();
  int rank = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(node, &rank));
  const std::vector<GpuInfo> all = node_gpus();  // details of the others' UUIDs
  std::vector<std::vector<GpuInfo>> seen;
  for (const std::string& text : all_gather_strings(node, seen_)) {
    seen.emplace_back();
    for (const std::string& uuid : split_fields(text, ',')) {
      if (uuid.empty()) continue;  // after the last one
      const auto known =
          std::find_if(all.begin(), all.end(), [&](const GpuInfo& g) { return g.uuid == uuid; });
      seen.back().push_back(known != all.end() ? *known : GpuInfo{uuid, "", ""});
    }
  }
  bring_up(launcher_plan(seen, rank), rank);
}

void NodeSession::bring_up(const GpuPlan& plan, int local_rank) {
  const std::vector<GpuInfo>& gpus = plan.gpus;
  my_gpu_ = plan.mine;
  const int k = plan.ranks.at(static_cast<size_t>(my_gpu_));
  status_.placement = config_.place_near_gpu
                          ? place_near(cpus_near(gpus.at(static_cast<size_t>(my_gpu_)).pci_bus), k)
                          : "left to the launcher (mps.cpu_placement = launcher)";
  const int busiest = *std::max_element(plan.ranks.begin(), plan.ranks.end());
  if (config_.enable == Enable::Auto && busiest <= 1) {
    status_.state = MpsState::NotNeeded;
    status_.reason = "one rank per GPU";
    // A MIG instance is a GPU of its own only where CUDA_VISIBLE_DEVICES names it.
    const GpuInfo& mine = gpus[static_cast<size_t>(my_gpu_)];
    if (!mine.mig.empty()) setenv("CUDA_VISIBLE_DEVICES", mine.uuid.c_str(), 1);
    ready_ = true;
    return;
  }
  // Preflight: what MPS would refuse later, refused now with a clear message.
  const int limit = max_clients_per_gpu(cuda_runtime_version());
  if (busiest > limit) {
    throw Error("MPS: " + std::to_string(busiest) + " ranks would share one GPU, more than the " +
                std::to_string(limit) + " clients an MPS server takes; use fewer ranks per node");
  }
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  const rlim_t need = static_cast<rlim_t>(64 + 16 * busiest);
  if (files.rlim_cur != RLIM_INFINITY && files.rlim_cur < need) {
    throw Error("MPS: the open-file limit (ulimit -n = " + std::to_string(files.rlim_cur) +
                ") is below the " + std::to_string(need) + " that " + std::to_string(busiest) +
                " clients per GPU need; raise it (ulimit -n " + std::to_string(need) + ")");
  }
  const int cap = cap_for(config_, k);

  // Daemons that already answer (site, prolog, mpsctl) are reused, never stopped.
  if (reuse_mpsctl_session(cap) || reuse_site_daemon(gpus, cap)) {
    ready_ = true;
    return;
  }

  dir_ = session_dir(default_root(config_), launcher_.job);
  if (config_.plan_only) {  // a dry run: what would start, nothing started
    status_.state = MpsState::WouldStart;
    status_.reason = "one daemon per GPU in " + dir_;
    status_.gpu_uuid = gpus.at(static_cast<size_t>(my_gpu_)).uuid;
    status_.cap = cap;
    ready_ = true;
    return;
  }
  if (local_rank == 0) {
    lead(plan);
  } else {
    follow(static_cast<int>(gpus.size()));
  }
  if (status_.state == MpsState::NotActive) return;
  export_environment(gpus_.at(static_cast<size_t>(my_gpu_)),
                     gpus_.at(static_cast<size_t>(my_gpu_)).cap);
  ready_ = true;
}

void NodeSession::lead(const GpuPlan& plan) {
  std::error_code ec;
  if (fs::exists(dir_, ec)) {
    // Same job name on this node: left behind by a run that died. Its daemons
    // are not ours to keep. A folder that is not provably a session stays as
    // it is, and nothing of ours goes into it.
    try {
      remove_session(dir_, config_.timeout_seconds);
    } catch (const std::exception& e) {
      give_up(e.what());
      return;
    }
    status_.reason = "removed a stale session folder " + dir_;
  }
  try {
    fs::create_directories(dir_);
    if (!watchdog_.start(dir_, config_.timeout_seconds)) {
      throw Error("MPS: cannot start the watchdog process");
    }
    StartTimes times;
    gpus_ =
        start_session_daemons(dir_, plan.gpus, plan.ranks, config_, /*start_servers=*/true, &times);
    add_seconds(MpsStep::DaemonStart, times.daemon_start);
    add_seconds(MpsStep::DaemonConfig, times.daemon_config);
    add_seconds(MpsStep::ServerStart, times.server_start);
    add_seconds(MpsStep::Probe, times.probe);
    write_ready(dir_, {static_cast<long>(getpid()), gpus_});
    status_.owner = true;
    status_.state = MpsState::Started;
    for (const SessionGpu& g : gpus_) status_.daemon_pids.push_back(g.daemon_pid);
  } catch (const std::exception& e) {
    write_failed(dir_, static_cast<long>(getpid()), e.what());
    give_up(e.what());
  }
}

void NodeSession::follow(int gpus) {
  // The leader may spend one timeout on a stale folder and one per GPU.
  const double wait = config_.timeout_seconds * (gpus + 2);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait);
  while (std::chrono::steady_clock::now() < deadline) {
    // A failed file from a dead leader is stale; the live leader will remove it.
    const std::string failed = read_failed(dir_, /*live_only=*/true);
    if (!failed.empty()) {
      give_up("the node leader could not start MPS: " + failed);
      return;
    }
    SessionRecord record;
    // A ready file whose leader is gone is a stale one the leader will remove.
    if (read_ready(dir_, &record) && process_alive(record.leader) &&
        static_cast<size_t>(my_gpu_) < record.gpus.size()) {
      gpus_ = std::move(record.gpus);
      status_.state = MpsState::Started;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", wait);
  give_up("no ready file from the node leader in " + dir_ + " after " + seconds +
          " s ((GPUs + 2) x mps.timeout_seconds)");
}

void NodeSession::balance_caps(MPI_Comm node, double work) {
  if (!config_.balanced) return;
  const std::vector<std::string> gpus = all_gather_strings(node, status_.gpu_uuid);
  std::vector<double> works(gpus.size());
  MPSFW_MPI_CHECK(MPI_Allgather(&work, 1, MPI_DOUBLE, works.data(), 1, MPI_DOUBLE, node));
  const MpsState s = status_.state;
  if (status_.gpu_uuid.empty() ||
      (s != MpsState::Started && s != MpsState::Reused && s != MpsState::WouldStart)) {
    return;
  }
  double total = 0;
  int sharing = 0;
  for (size_t r = 0; r < gpus.size(); ++r) {
    if (gpus[r] != status_.gpu_uuid) continue;
    total += works[r];
    ++sharing;
  }
  const double share = total > 0 ? work / total : 1.0 / sharing;
  status_.cap = std::min(status_.cap, balanced_active_thread_percentage(share, config_.policy));
  if (s != MpsState::WouldStart) {
    setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(status_.cap).c_str(), 1);
  }
}

void NodeSession::export_environment(const SessionGpu& gpu, int cap) {
  setenv("CUDA_MPS_PIPE_DIRECTORY", gpu.pipe_dir.c_str(), 1);
  setenv("CUDA_MPS_LOG_DIRECTORY", gpu.log_dir.c_str(), 1);
  // One daemon per GPU serves that GPU only; the client sees it as device 0.
  setenv("CUDA_VISIBLE_DEVICES", gpu.uuid.c_str(), 1);
  setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(cap).c_str(), 1);
  if (!config_.pinned_device_mem_limit.empty()) {
    setenv("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", ("0=" + config_.pinned_device_mem_limit).c_str(), 1);
  }
  status_.pipe_dir = gpu.pipe_dir;
  status_.gpu_uuid = gpu.uuid;
  status_.cap = cap;
  status_.total_sms = gpu.total_sms;
  status_.peer_gpus = gpu.peers;
  status_.pinned_limit = gpu.pinned;
}

void NodeSession::teardown(MPI_Comm node) {
  if (torn_down_) return;
  torn_down_ = true;
  // Every local rank has released its device: no client is left.
  const auto start = std::chrono::steady_clock::now();
  MPSFW_MPI_CHECK(MPI_Barrier(node));
  add_seconds(MpsStep::TeardownBarrier, seconds_since(start));
  if (!watchdog_.running()) return;
  const auto stop_start = std::chrono::steady_clock::now();
  ExitWait waited;
  const bool confirmed = watchdog_.stop(&waited);
  add_seconds(MpsStep::TeardownStop, seconds_since(stop_start));
  add_seconds(MpsStep::TeardownExit, waited.seconds);
  std::string said =
      confirmed ? "daemons stopped, folders removed" : "watchdog did not confirm teardown";
  if (waited.killed > 0) {
    said += "; " + std::to_string(waited.killed) +
            " MPS process(es) still there mps.timeout_seconds after quit were killed";
  }
  status_.reason += (status_.reason.empty() ? "" : "; ") + said;
}

}  // namespace mpsfw::mps
