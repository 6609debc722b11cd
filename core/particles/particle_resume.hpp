#pragma once
// Particles in a checkpoint, and an exact resume for any particle solver on
// ListedParticleStore. A checkpoint is itself an input (core/input/
// checkpoint.hpp: every key of the run's input, the root attributes step and
// time); every rank's records are gathered to rank 0 and sorted by id:
//   /<group>/positions   float64 [N][3], folded into the box
//   /<group>/<dataset>   each written field, float64 or int64, [N][c] ([N])
// Read back on any number of ranks (read_owned_particles), every rank keeps
// the particles its subdomain owns. Beside them a checkpoint keeps /<group>/resume — every
// particle's rank, its slot in that rank's store, its position as the store held it and where it
// stood at the last list build, and the steps since that build. A run on the
// same ranks, rank grid and backend takes its particles back in the same
// order at their build positions, rebuilds the very same ghosts and lists,
// then moves them to where the run stopped: it goes on bit for bit. Any other
// run starts from /<group>/positions. A solver assigns the state's records,
// then calls NeighbourSchedule::resume in place of its first rebuild.
//   /<group>/resume   attributes ranks, px, py, pz, backend, steps_on_lists;
//                     datasets rank [N], slot [N], positions [N][3],
//                     build_positions [N][3] (rows as /<group>/ids), moved [ranks]
#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "neighbour_schedule.hpp"
#include "particle_exchange.hpp"
#include "particle_input.hpp"
#include "particle_store.hpp"
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/mesh/box.hpp>

namespace mpsfw {

// Which runs a checkpoint resumes exactly: the same rank grid and backend.
struct ResumeLayout {
  Int3 rank_grid;
  std::string backend;  // "host", "cuda"
};

// This rank's particles as the interrupted run held them.
struct ResumeState {
  ParticleRecords records;        // in store order, at their build positions
  std::vector<double> positions;  // [3 * i + d]: where they stood when it stopped
  long steps_on_lists = 0;
};

// One rank's part of a resumable checkpoint: its owned particles in its
// store's order (positions as held, not folded), their positions at the
// last list build, the store's max_displacement() and the steps since.
struct ResumeRows {
  ParticleRecords records;
  std::vector<double> build_positions;  // [3 * i + d]
  double moved = 0;
  long steps_on_lists = 0;
};

// This rank's rows as `store` and its schedule `lists` hold them.
ResumeRows resume_rows_of(const ListedParticleStore& store, const NeighbourSchedule& lists);

// Collective over `comm`: a checkpoint at `path` of every rank's `mine` under
// /<group> (positions folded into `box`, `fields` written), with
// /<group>/resume for `layout`; `overrides` as write_checkpoint_file's. The
// records need an id.
void write_resumable_checkpoint(const std::string& path, const Params& params, long step,
                                double time, const std::vector<std::string>& overrides,
                                const std::string& group, const double box[3],
                                const std::vector<WrittenField>& fields, const ResumeRows& mine,
                                const ResumeLayout& layout, MPI_Comm comm);

// This rank's state when `file` has a /<group>/resume written on `layout`
// with `ranks` ranks; nullopt when it has none or another layout. Every rank
// reads the whole file (the particles checked by `rules`, as
// particle_input.hpp says); InputError naming the file and dataset when
// /<group>/resume does not fit.
std::optional<ResumeState> read_resume_state(const std::string& file, const std::string& group,
                                             RecordLayout records,
                                             const ParticleInputFields& fields,
                                             const ParticleInputRules& rules, int rank, int ranks,
                                             const ResumeLayout& layout);

}  // namespace mpsfw
