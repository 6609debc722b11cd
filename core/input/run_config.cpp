#include "run_config.hpp"

#include <string>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>

namespace mpsfw {

std::vector<ParamSpec> run_schema() {
  const double inf = std::numeric_limits<double>::infinity();
  constexpr double kMaxRanks1D = 1 << 20;
  return {
      integer_param("", "step", false, "0", 0, 1e15,
                    "step of the saved state (a checkpoint): the run resumes from it"),
      real_param("", "time", false, "0", 0, false, "time of the saved state (a checkpoint)"),
      integer_param("run", "steps", true, "", 0, 1e12,
                    "the run's last step (a run resumed from a checkpoint ends there too)"),
      integer_param("run", "output_every", false, "0", 0, inf,
                    "steps between snapshots; 0: first and last only"),
      text_param("run", "output_file", false, "", {}, "HDF5 output file; empty: none"),
      text_param("run", "timeline_file", false, "", {},
                 "every rank's timed phases over the run's second half, as a Chrome trace "
                 "(JSON for Perfetto or chrome://tracing: who waits for whom); empty: none"),
      integer_param("run", "diag_every", false, "0", 0, inf,
                    "steps between the workload's diagnostics (its rows in the report; MD's thermo "
                    "lines); 0: at the first and last step only"),
      integer_param("run", "check_every", false, "0", 0, inf,
                    "steps between checks that the state is still finite, beyond the "
                    "diagnostics, which always check; 0: with those only"),
      text_param("run", "backend", false, "auto", {"auto", "host", "cuda", "kokkos"},
                 "where to compute: auto (CUDA where a GPU is visible, else host), host "
                 "(OpenMP), cuda, or kokkos (through Kokkos, on its default execution space)"),
      text_param("run", "halo", false, "auto", {"auto", "mpi", "ipc", "same-gpu"},
                 "halos between ranks on one GPU or peer GPUs of a node: auto (device to device "
                 "where the ranks can map each other's memory, else MPI), mpi, ipc (device to "
                 "device or fail), or same-gpu (device to device on one GPU, MPI between GPUs)"),
      text_param("run", "halo_sync", false, "auto", {"auto", "barrier"},
                 "how ranks on one GPU order their device-to-device halos: auto (GPU-side "
                 "waits under MPS, else a host barrier) or barrier (a host barrier every step)"),
      real_param("run", "peer_wait_seconds", false, exact_number(kDefaultPeerWaitSeconds), 0, true,
                 "seconds a rank waits on the GPU for a neighbour on the same GPU before the job "
                 "stops, naming the rank that did not arrive (a step not finished within twice "
                 "this, outside output, stops it too); far above any step's time",
                 1e6),
      text_param("run", "checkpoint_file", false, "", {},
                 "HDF5 checkpoint (a valid input to resume from); empty: none"),
      integer_param("run", "checkpoint_every", false, "0", 0, inf,
                    "steps between checkpoints; 0: at the end (and on a stop signal) only"),
      real_param("run", "checkpoint_minutes", false, "0", 0, false,
                 "minutes between checkpoints; 0: none by time"),
      integer_param("run", "checkpoint_keep", false, "1", 1, 1000,
                    "checkpoints kept: 1 rewrites checkpoint_file; K > 1 keeps the last K as "
                    "<name>.<step>.h5"),
      text_param("run", "wall_limit", false, "auto", {},
                 "when the run must be done: seconds or [D-]HH:MM:SS from its start, off, or auto "
                 "(the job's end where the scheduler publishes it, SLURM_JOB_END_TIME; else "
                 "none); every rank stops at one step early enough to write its checkpoint and "
                 "exits 75"),
      real_param("run", "wall_margin", false, "10", 0, false,
                 "seconds kept free before run.wall_limit beyond the measured step, output and "
                 "checkpoint times (teardown, a first checkpoint not yet measured)"),
      integer_param("run", "px", false, "0", 0, kMaxRanks1D,
                    "ranks along x; 0: chosen for the fewest halo cells"),
      integer_param("run", "py", false, "0", 0, kMaxRanks1D,
                    "ranks along y; 0: chosen for the fewest halo cells"),
      integer_param("run", "pz", false, "0", 0, kMaxRanks1D,
                    "ranks along z; 0: chosen for the fewest halo cells"),
      text_param("run", "cuda_aware_mpi", false, "auto", {"auto", "yes", "no"},
                 "whether MPI is given device pointers: auto (the site's MPSFW_CUDA_AWARE_MPI "
                 "where set, else what the MPI library says), yes, or no (through pinned host "
                 "buffers)"),
      real_param("run", "progress_seconds", false, "5", 0, true, "seconds between progress lines"),
  };
}

RunConfig run_config_from(const Params& p) {
  RunConfig c;
  c.start_step = p.integer("step");
  c.start_time = p.real("time");
  c.steps = p.integer("run.steps");
  c.checkpoint_file = p.text("run.checkpoint_file");
  c.checkpoint_every = p.integer("run.checkpoint_every");
  c.checkpoint_minutes = p.real("run.checkpoint_minutes");
  c.checkpoint_keep = static_cast<int>(p.integer("run.checkpoint_keep"));
  if (c.steps < c.start_step) {
    throw InputError(p.value("run.steps").origin + ": run.steps = " + std::to_string(c.steps) +
                     " ends before the saved state's step " + std::to_string(c.start_step) +
                     " (run.steps is the run's last step, not a count from the checkpoint)");
  }
  c.output_every = p.integer("run.output_every");
  c.output_file = p.text("run.output_file");
  c.timeline_file = p.text("run.timeline_file");
  c.diag_every = p.integer("run.diag_every");
  c.check_every = p.integer("run.check_every");
  c.backend = parse_backend(p.text("run.backend"));
  c.halo = parse_halo_transport(p.text("run.halo"));
  c.halo_sync = parse_halo_sync(p.text("run.halo_sync"));
  c.peer_wait_seconds = p.real("run.peer_wait_seconds");
  c.rank_grid_hint = {static_cast<int>(p.integer("run.px")), static_cast<int>(p.integer("run.py")),
                      static_cast<int>(p.integer("run.pz"))};
  c.cuda_aware_mpi = p.text("run.cuda_aware_mpi");
  c.progress_seconds = p.real("run.progress_seconds");
  c.wall_limit = wall_limit_of(p.text("run.wall_limit"), p.value("run.wall_limit").origin);
  c.wall_margin_seconds = p.real("run.wall_margin");
  c.input_file = p.dataset_file();
  return c;
}

std::vector<ParamSpec> input_schema(const std::vector<std::string>& solver_names,
                                    const std::vector<ParamSpec>& workload_keys) {
  std::vector<ParamSpec> schema = {
      text_param("", "solver", true, "", solver_names, "which solver reads this file")};
  for (const ParamSpec& s : run_schema()) schema.push_back(s);
  for (const ParamSpec& s : workload_keys) schema.push_back(s);
  return schema;
}

std::string steps_text(const RunConfig& run) {
  if (run.start_step == 0) return std::to_string(run.steps) + " steps";
  return "steps " + std::to_string(run.start_step) + ".." + std::to_string(run.steps);
}

}  // namespace mpsfw
