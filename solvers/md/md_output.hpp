#pragma once
// MD output files. Both gather every atom to rank 0, which writes alone (any
// HDF5, serial or parallel), with atoms sorted by id; both are complete or
// absent: written as `<path>.partial` and renamed into place when finished.
//
// Trajectory (MdTrajectory, a ParticleTrajectory of core/particles with MD's
// records): the atoms at chosen steps, plus an XDMF file
// beside it (out.h5 -> out.xmf; other names get ".xmf" appended) that shows
// every frame as points over time in ParaView/VisIt.
//   /               attributes solver = "md", box_x, box_y, box_z (float64),
//                   atoms (int64: atoms of the first frame), frames (int64: count)
//   /frames/<k>     frame k = 0, 1, ... as 8 digits, e.g. /frames/00000002;
//                   attributes step (int64), time (float64), atoms (int64)
//     positions     float64 [N][3]
//     velocities    float64 [N][3]
//     ids           int64 [N], ascending
//
// Checkpoint (write_checkpoint): the state at one step, itself an input file
// for md.initial = dataset (core/input/checkpoint.hpp: every key of the run's
// input, root step and time, with md.initial = dataset, md.box_x/y/z and no
// run.output_file or run.checkpoint_file), plus
//   /md/positions, velocities, ids   as in a trajectory frame (positions
//                   folded into the box): what a run on any ranks starts from
//   /md/resume      how the ranks held the atoms, so that a run resumed on the
//                   same ranks, rank grid and backend rebuilds the very same
//                   neighbour lists and ghosts and goes on bit for bit:
//                   attributes ranks, px, py, pz (int64), backend (string),
//                   steps_on_lists (int64: steps since the last list build);
//                   per atom, in the order of /md/ids: rank, slot (int64: its
//                   owner and place in the owner's store), positions (as the
//                   store holds them, not folded), build_positions ([N][3],
//                   at the last list build); per rank: moved (float64, the
//                   largest move since that build as the rank measured it)
// The root attributes step and time are schema keys: a run from a checkpoint
// resumes there and ends at run.steps (docs/restart.md).
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "atom_record.hpp"
#include "md_config.hpp"
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/particles/particle_resume.hpp>
#include <mpsfw/core/particles/particle_trajectory.hpp>

namespace mpsfw::md {

class MdTrajectory {
 public:
  // Collective over `comm`: rank 0 creates `path`.partial with the root
  // attributes. Throws Error naming `path` on every rank if it cannot.
  MdTrajectory(const std::string& path, const MdConfig& config, MPI_Comm comm);
  // Local: a trajectory never closed (a failed run) leaves no file behind.
  ~MdTrajectory();
  MdTrajectory(const MdTrajectory&) = delete;
  MdTrajectory& operator=(const MdTrajectory&) = delete;

  // Collective: gathers `local_atoms` of every rank and appends one frame.
  void write_frame(long step, double time, const std::vector<AtomRecord>& local_atoms);
  // Collective: renames the file into place and writes the XDMF file. Nothing
  // may be written after.
  void close();

  const std::string& path() const;
  long frames() const;

 private:
  ParticleTrajectory trajectory_;
};

// Collective over `comm`: writes `params` (the run's input), every rank's
// `mine` (its atoms in store order as AtomRecords, core/particles/
// particle_resume.hpp) and `layout` to `path` (via `path`.partial). Throws
// Error naming `path` on every rank on failure.
void write_checkpoint(const std::string& path, const Params& params, const MdConfig& c, long step,
                      double time, const ResumeRows& mine, const ResumeLayout& layout,
                      MPI_Comm comm);

}  // namespace mpsfw::md
