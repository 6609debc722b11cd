#pragma once
// The node's MPS session, seen from one rank. mpsfw::Session (session.hpp)
// runs it for every mpsfw program; the order is the point:
//
//   NodeSession s = NodeSession::before_mpi(config, detect_launcher());  // no CUDA yet
//   MpiEnv env(argc, argv);                                               // MPI may touch CUDA
//   s.after_mpi(env.node());          // deferred bring-up when the launcher said nothing
//   bind_device(..., s.cuda_gate());  // CUDA from here on
//   s.verify(env.node(), device);     // did every rank really get MPS?
//   ... run ...
//   release_device(device); s.teardown(env.node());
//
// Node-local rank 0 (the leader) starts one control daemon per GPU in
// job-scoped folders (session_dir.hpp), or reuses daemons that already answer
// (CUDA_MPS_PIPE_DIRECTORY from a site's Slurm gres/mps or a prolog, or
// MPSFW_MPS_SESSION from `mpsctl start`) and then never stops them. The other
// local ranks wait for the leader's ready file. Every rank then exports
// CUDA_MPS_PIPE_DIRECTORY, CUDA_MPS_LOG_DIRECTORY, CUDA_VISIBLE_DEVICES (its
// GPU) and its own CUDA_MPS_ACTIVE_THREAD_PERCENTAGE and pinned-memory limit.
// A watchdog process (forked by the leader, in its own session) stops the
// daemons and removes the folders when the leader ends, however it ends:
// normal teardown, an exception, MPI_Abort, SIGTERM or SIGKILL.
#include <mpi.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "gpu_inventory.hpp"
#include "gpu_plan.hpp"
#include "launcher.hpp"
#include "mps_config.hpp"
#include "session_dir.hpp"
#include "watchdog.hpp"
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/driver/mps_rank_record.hpp>

namespace mpsfw::mps {

// Where a rank's MPS session stands. Started and Reused hold until
// verification says Active, ActiveReused or NotActive.
// NotApplicable: no GPU is visible, so the run is on the host backend.
// WouldStart: a dry run (MpsConfig::plan_only) found nothing to reuse.
enum class MpsState {
  Off,
  NotNeeded,
  NotApplicable,
  WouldStart,
  Started,
  Reused,
  Active,
  ActiveReused,
  NotActive
};
// "off", "not needed", "not applicable", "would be started (dry run)",
// "started", "reused", "active",
// "active (reused daemon)", "NOT active": the words of the summary table and
// run.json.
const char* to_string(MpsState state);

// The steps of a job's MPS session whose seconds run.json reports
// (mps_details.seconds, each the slowest rank's): where an MPS job's start and
// end go. MpiInit, Bind and Release are mpsfw::Session's, timed with or
// without MPS, so a run with --mps off is the baseline.
enum class MpsStep {
  BringUp,          // before MPI_Init: all of bring-up (a follower: waiting for the leader)
  Inventory,        // the GPUs visible (/proc/driver/nvidia/gpus or nvidia-smi)
  DaemonStart,      // leader: nvidia-cuda-mps-control -d until it answers
  DaemonConfig,     // leader: default cap and pinned-memory limit
  ServerStart,      // leader: asking each daemon to start its MPS server
  Probe,            // leader: a child process asks CUDA for SMs, memory, compute mode
  MpiInit,          // MPI_Init and the node communicator
  Bind,             // bind_device: the CUDA context (under MPS: connecting to the server)
  Verify,           // the MPS attribute, SMs, the server's client list
  Release,          // release_device (cudaDeviceReset)
  TeardownBarrier,  // waiting until every local rank has released its GPU
  TeardownStop,     // leader: the watchdog stops the daemons and removes the folders
  TeardownExit,     // leader, part of TeardownStop: after the daemons quit, until their
                    // processes (daemons, servers) have exited
  Count
};
constexpr size_t kMpsSteps = static_cast<size_t>(MpsStep::Count);
// "bring_up", "inventory", ...: the keys in mps_details.seconds.
const char* to_string(MpsStep step);

// What MPS did, for the summary table and run.json.
struct MpsStatus {
  MpsState state = MpsState::Off;
  std::string reason;    // why it is not active, or what was reused
  std::string bring_up;  // when and from what the local rank was known
  bool owner = false;    // this job started the daemons (and stops them)
  bool active = false;   // verified on this rank
  std::string pipe_dir;  // this rank's CUDA_MPS_PIPE_DIRECTORY
  std::string gpu_uuid;
  std::vector<std::string> peer_gpus;  // GPUs of the node gpu_uuid reaches directly (probe)
  std::string placement;     // "" or how the rank was pinned near its GPU (numa_placement.hpp)
  int cap = 100;             // this rank's active thread percentage
  std::string pinned_limit;  // its daemon's pinned-memory limit as read back ("8G"), or ""
  int sms = 0;               // SMs this rank sees
  int total_sms = 0;         // SMs of the GPU (0: unknown)
  std::vector<long> daemon_pids, server_pids;  // known on the leader
  int verified = 0, expected = 0;              // ranks of this node
  std::vector<std::string> per_rank;           // on the leader: one line per local rank
  std::vector<MpsRankRecord> rank_records;     // the same as numbers and flags
  std::array<double, kMpsSteps> seconds{};     // this rank's, by MpsStep
};

class NodeSession {
 public:
  static NodeSession before_mpi(const MpsConfig& config, const LauncherInfo& launcher);
  NodeSession(NodeSession&& other) noexcept = default;
  NodeSession& operator=(NodeSession&&) = delete;
  NodeSession(const NodeSession&) = delete;
  NodeSession& operator=(const NodeSession&) = delete;
  // Without teardown(): the leader lets its watchdog stop the daemons.
  ~NodeSession() = default;

  // After MPI_Init, on every rank: brings MPS up now if the launcher gave no
  // local rank. Throws (on this rank) what went wrong before or now; callers
  // wrap it in run_collectively so every rank stops together.
  void after_mpi(MPI_Comm node);
  // Collective over `node`, after after_mpi and before bind_device, where
  // mps.active_thread_percentage = balanced (else nothing, no communication):
  // each rank's cap from its share of the work of the ranks on its GPU
  // (balanced_active_thread_percentage), never above the cap it has (a
  // reused daemon's or the site's); exported for CUDA unless a dry run.
  void balance_caps(MPI_Comm node, double work);
  // Throws Error if bring-up has not finished: no CUDA before that.
  CudaGate cuda_gate() const;
  // Collective over `node`, after bind_device: checks the MPS attribute, the
  // SM count against the cap, and (leader) every local rank's PID in its
  // server's client list. With mps=on an unverified rank fails the job
  // (AgreedError on every rank); with auto the status says MPS was NOT active.
  void verify(MPI_Comm node, const DeviceBinding& device);
  // Collective over `node`, after release_device on every local rank: the
  // leader stops the daemons it started and removes the session's folders.
  void teardown(MPI_Comm node);

  // For an error about to abort the job: what the MPS server's log says about
  // a fault and which rank it names; "" without MPS or without such lines.
  std::string fault_report(const std::string& error) const;

  const MpsStatus& status() const { return status_; }
  // What went wrong in before_mpi's bring-up ("" if nothing), for a caller
  // without MPI (mpsfw-run); after_mpi throws it.
  const std::string& bring_up_error() const { return pending_error_; }
  // Whether before_mpi left bring-up for after_mpi (it needs MPI).
  bool waits_for_mpi() const { return !ready_ && !brought_up_before_mpi_; }
  // For mpsfw::Session's steps (MPI_Init, binding, releasing the device).
  void add_seconds(MpsStep step, double seconds) {
    status_.seconds[static_cast<size_t>(step)] += seconds;
  }
  const MpsConfig& config() const { return config_; }

  // The folder of a job's session under `root` (also used by mpsctl).
  static std::string session_dir(const std::string& root, const std::string& job);
  static std::string default_root(const MpsConfig& config);

 private:
  explicit NodeSession(MpsConfig config) : config_(std::move(config)) {}
  // This rank's GPUs (CUDA_VISIBLE_DEVICES applied); notes them in seen_.
  std::vector<GpuInfo> inventory();
  void bring_up(int local_rank, int local_size);
  void bring_up(const GpuPlan& plan, int local_rank);
  // After MPI_Init, when the launcher bound GPUs per task: every rank's gathered.
  void bring_up_as_launcher_bound(MPI_Comm node);
  // "" or why binding from each rank's own view was wrong (collective).
  std::string check_same_gpus(MPI_Comm node) const;
  void verify_clients(MPI_Comm node, const DeviceBinding& device);
  void lead(const GpuPlan& plan);
  void follow(int gpus);
  bool reuse_site_daemon(const std::vector<GpuInfo>& gpus, int cap);
  bool reuse_mpsctl_session(int cap);
  void export_environment(const SessionGpu& gpu, int cap);
  void give_up(const std::string& reason);  // auto: run without MPS
  // A reused daemon's default cap bounds its clients': the cap they really get.
  int obey_daemon_cap(int daemon_cap, int wanted);

  MpsConfig config_;
  LauncherInfo launcher_;
  MpsStatus status_;
  std::string dir_;               // the session folder (ours only)
  std::vector<SessionGpu> gpus_;  // from the ready file
  int my_gpu_ = 0;
  std::string seen_;                // this rank's visible GPUs' UUIDs, each followed by ','
  bool bound_by_launcher_ = false;  // bring-up waits for MPI_Init to gather every rank's GPUs
  bool brought_up_before_mpi_ = false;
  std::map<long, int> rank_of_pid_;  // this node's clients, from verify()
  bool ready_ = false;
  std::string pending_error_;
  Watchdog watchdog_;  // the leader's, when it started the daemons
  bool torn_down_ = false;
};

}  // namespace mpsfw::mps
