#pragma once
// The /mps input group and --mps / --mps-atp options: whether and how mpsfw
// brings up MPS on each node. Read before MPI_Init by the same Params reader
// the solvers use.
#include <string>
#include <vector>

#include "cap_policy.hpp"
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/io/input_file.hpp>

namespace mpsfw::mps {

enum class Enable {
  Auto,  // on when ranks share a GPU and MPS can be brought up; else runs without, and says so
  On,    // MPS or a failed job
  Off,   // never touch MPS
};

struct MpsConfig {
  Enable enable = Enable::Auto;
  int active_thread_percentage = 0;  // 0: auto (policy below)
  // mps.active_thread_percentage = balanced: each rank's cap in proportion to
  // its work (Session::balance_mps_caps), the daemons' default 100.
  bool balanced = false;
  AtpPolicy policy = AtpPolicy::Double;
  std::string pinned_device_mem_limit;  // per client, "512M" or "8G" (unit upper case); "" none
  std::int64_t pinned_bytes = 0;
  std::string directory;  // root of the session folders; "" = $TMPDIR or /tmp
  double timeout_seconds = 30;
  // A rank the launcher left free is pinned near its GPU (numa_placement.hpp).
  bool place_near_gpu = true;
  // A dry run (--dry-run): bring-up decides everything (GPUs, caps, reuse)
  // and starts nothing.
  bool plan_only = false;
};

std::vector<ParamSpec> mps_schema();
MpsConfig mps_config_from(const Params& params);
// The cap of each of `ranks_sharing` ranks on one GPU: the configured
// percentage, or the policy's automatic one; 100 under balanced caps (the
// daemons' default, which a client's own cap can only lower).
int cap_for(const MpsConfig& config, int ranks_sharing);

// The /mps part of an input (nullptr: none) plus the mps.* overrides, without
// MPI (before MPI_Init). Errors are returned as text so the caller can report
// them once, after MPI_Init, on every rank alike.
// `origins` says where each override came from (as Params::apply_override).
MpsConfig read_mps_config(const InputAttributes* input, const std::vector<std::string>& overrides,
                          const std::vector<std::string>& origins, std::string* error);

const char* to_string(Enable e);

}  // namespace mpsfw::mps
