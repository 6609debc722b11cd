#pragma once
// The /run group every workload shares: how long, where to compute, how
// ranks split, what to write, how often to diagnose. A workload's
// configuration extends RunConfig with its own group.
#include <string>
#include <vector>

#include "halo_choices.hpp"
#include "params.hpp"
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/base/wall_limit.hpp>
#include <mpsfw/core/mesh/box.hpp>

namespace mpsfw {

struct RunConfig {
  // The saved state's step and time (root attributes of a checkpoint); a
  // fresh run starts at 0.
  long start_step = 0;
  double start_time = 0;
  // The time at `step` of steps `dt` long: the saved state's time plus the
  // steps since, or step * dt where the saved state's time is that of a run
  // from time 0 at this dt (the bits of a run that never stopped). Every
  // solver's clock: a resume with another dt goes on from the saved time.
  double time_at(long step, double dt) const {
    if (start_time == static_cast<double>(start_step) * dt) return static_cast<double>(step) * dt;
    return start_time + static_cast<double>(step - start_step) * dt;
  }
  long steps = 0;               // the run's last step
  std::string checkpoint_file;  // "" = none
  long checkpoint_every = 0;    // steps; 0: at the end and on a stop signal only
  double checkpoint_minutes = 0;
  int checkpoint_keep = 1;
  long output_every = 0;  // 0: first and last step only (when an output file is set)
  long diag_every = 0;    // steps between the workload's diagnostics; 0: first and last only
  // Steps between the finiteness guards when they should run more often than
  // the workload's diagnostics (which always check); 0: with those only.
  long check_every = 0;
  std::string output_file;  // "" = no output
  // Every rank's phases over the loop's steady half, as a Chrome trace (core/driver/timeline.hpp);
  // "" = none.
  std::string timeline_file;
  Backend backend = Backend::Auto;
  HaloTransport halo = HaloTransport::Auto;  // between ranks on one GPU
  HaloSync halo_sync = HaloSync::Auto;       // how those ranks order their halos
  Int3 rank_grid_hint;                       // zeros: chosen by choose_rank_grid
  std::string cuda_aware_mpi = "auto";       // auto | yes | no (mpi_is_cuda_aware)
  double progress_seconds = 5;
  // When the run must be done (run.wall_limit, or the job's end), and the
  // seconds it keeps free beyond its measured output and checkpoint times.
  WallLimit wall_limit;
  double wall_margin_seconds = 10;
  // How long a rank waits for a neighbour on its GPU before the job stops
  // naming it (PeerWait).
  double peer_wait_seconds = kDefaultPeerWaitSeconds;
  std::string input_file;  // the HDF5 input datasets are read from; "" for a deck
};

// The root keys step and time, and the keys of /run: steps, output_every,
// output_file, timeline_file, diag_every, check_every, backend, halo, halo_sync, peer_wait_seconds,
// checkpoint_*, wall_limit, wall_margin, px, py, pz, progress_seconds.
std::vector<ParamSpec> run_schema();
// From finalized params whose schema includes run_schema().
RunConfig run_config_from(const Params& params);

// The steps as a run will take them, for banners: "200 steps", or resumed
// from a checkpoint "steps 100..200".
std::string steps_text(const RunConfig& run);

// The schema of a whole input for one workload: the root attribute `solver`
// (one of `solver_names`), /run, then the workload's own keys.
std::vector<ParamSpec> input_schema(const std::vector<std::string>& solver_names,
                                    const std::vector<ParamSpec>& workload_keys);

}  // namespace mpsfw
