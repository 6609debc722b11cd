#pragma once
// Checkpoints, one mechanism for every workload. A checkpoint is itself a
// valid input: every key of the run's input (so the same solver reads it
// back), the root attributes step and time of the saved state, and the
// workload's state as datasets (heat: /heat/u0 and /heat/u_previous; MD:
// /md/positions, velocities, ids). Running it resumes the run up to
// run.steps; where it writes (run.output_file, run.checkpoint_file) is not
// kept: a resumed run is told again, as slurm/run.sbatch does; nor is
// run.wall_limit (the resumed run's job has its own end).
//
// When (CheckpointPlan): every run.checkpoint_every steps, every
// run.checkpoint_minutes of loop time (agreed through StopPoll, so every rank
// writes at the same step), at the run's end (also of a run of no steps: the
// initial state), and when a stop signal ends it early. Where:
// run.checkpoint_file, rewritten each time (written as `.partial`, flushed to
// disk and renamed: the previous one survives a failed write or a crash), or
// with run.checkpoint_keep = K > 1 the last K as <name>.<step 8 digits>.h5.
#include <mpi.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "params.hpp"
#include "run_config.hpp"
#include <mpsfw/core/parallel/stop_request.hpp>

namespace mpsfw {

class CheckpointPlan {
 public:
  explicit CheckpointPlan(const RunConfig& run);

  bool enabled() const { return !file_.empty(); }
  // After the step `step` and the poll's check(step) (`polled`: whether it
  // checked): whether a checkpoint is due by steps or by time. Collective
  // decisions only: every rank gets the same answer.
  bool due(long step, const StopPoll& poll, bool polled);
  // Where the checkpoint of `step` goes.
  std::string path_for(long step) const;
  // After `path` was written (every rank calls it). With checkpoint_keep K >
  // 1, rank 0 prunes by what is on disk, so a requeued run's earlier parts
  // count too: of the numbered checkpoints of checkpoint_file
  // (is_numbered_checkpoint_of; regular files only, never a link or folder)
  // it keeps `path` and the K - 1 others of the highest steps. It removes
  // only HDF5 files with the root attributes `solver` (that of `path`) and
  // `step` (the one in the name): another file of such a name is kept and not counted, with a
  // warning on stderr (once per file).
  void written(const std::string& path, MPI_Comm comm);
  // The last checkpoint written, "" before the first.
  const std::string& last() const { return last_; }

 private:
  std::string file_;
  long every_;
  double seconds_;
  int keep_;
  double last_seconds_ = 0;  // agreed loop time of the last checkpoint by time
  std::string last_;
  std::set<std::string> warned_;  // files of a numbered name kept as not ours
};

// Collective over `comm`: rank 0 creates `path`.partial holding `params`
// with the root keys step and time set, run.output_file and
// run.checkpoint_file emptied and `overrides` ("group.key=value") applied, and closes it; then
// every rank runs `write_state(partial)`, which adds the state datasets (h5::write_block_datasets
// for fields: each rank its own block); then rank 0 renames the file into place (move_into_place:
// flushed to disk first). A failure on any rank throws AgreedError naming
// `path` on every rank and leaves the previous file at `path` untouched (an
// AgreedError from `write_state` keeps its message, other errors get
// "checkpoint '<path>': " before it).
void write_checkpoint_file(const std::string& path, const Params& params, long step, double time,
                           const std::vector<std::string>& overrides, MPI_Comm comm,
                           const std::function<void(const std::string& partial)>& write_state);

// Whether `path` is (or would be) one of the numbered checkpoints
// <name>.<step, 8 or more digits>.h5 of `checkpoint_file` (run.checkpoint_keep
// > 1), also through "./" or a symlinked folder.
bool is_numbered_checkpoint_of(const std::string& checkpoint_file, const std::string& path);

// Where a run resumed at `start_step` writes an output that the first part
// of the run wrote to `path`: "out.h5" -> "out.from00000400.h5" (`path`
// itself when start_step is 0), so the first part's file survives.
std::string resumed_output_path(const std::string& path, long start_step);

}  // namespace mpsfw
