#pragma once
// A particle solver's files: trajectory frames and checkpoints of its
// store's records (positions folded into the periodic box, and the fields
// the store writes) under /<group> — what a Steppable's output and
// checkpoint hooks do, for any particle solver on ListedParticleStore. Its
// checkpoints resume exactly on the same layout (particle_resume.hpp).
#include <mpi.h>

#include <memory>
#include <optional>
#include <string>

#include "neighbour_schedule.hpp"
#include "particle_resume.hpp"
#include "particle_store.hpp"
#include "particle_trajectory.hpp"
#include "subdomain.hpp"
#include <mpsfw/core/input/params.hpp>

namespace mpsfw {

class ParticleFiles {
 public:
  // `group`: the solver's ("brownian"), also the files' `solver` attribute;
  // `box` the periodic box the positions are folded into; `params` the
  // run's input, which checkpoints repeat (may be null: no checkpoints);
  // `layout` the run's, which its checkpoints resume exactly on.
  ParticleFiles(std::string group, const double box[3], const Params* params, ResumeLayout layout,
                MPI_Comm comm);
  ~ParticleFiles();
  ParticleFiles(const ParticleFiles&) = delete;
  ParticleFiles& operator=(const ParticleFiles&) = delete;

  // Collective. open_output starts a trajectory at `path` with the store's
  // particles as its first frame; write_output appends a frame; close_output
  // puts the file in place (with its XDMF file).
  void open_output(const std::string& path, const ListedParticleStore& store, long step,
                   double time);
  void write_output(const ListedParticleStore& store, long step, double time);
  void close_output();
  // Collective: a checkpoint of the store's particles at `path`, which
  // resumes exactly on this layout (`lists`: the store's schedule).
  void write_checkpoint(const std::string& path, const ListedParticleStore& store,
                        const NeighbourSchedule& lists, long step, double time) const;
  // Collective: assigns `store` the particles `input` holds for this rank —
  // a checkpoint's of this layout as the run held them (*exact set: the
  // caller's lists resume from it, NeighbourSchedule::resume), else those
  // `domain` owns (read_owned_particles, `fields` how the store's are read)
  // — or nothing, returning false, where it holds none (a fresh start).
  bool assign_from_input(const std::string& input, const Subdomain& domain,
                         ListedParticleStore& store, const ParticleInputFields& fields,
                         std::optional<ResumeState>* exact) const;

 private:
  // This rank's particles as records, positions folded into the box.
  ParticleRecords records(const ListedParticleStore& store) const;

  std::string group_;
  double box_[3];
  const Params* params_;
  ResumeLayout layout_;
  MPI_Comm comm_;
  std::unique_ptr<ParticleTrajectory> trajectory_;
};

}  // namespace mpsfw
