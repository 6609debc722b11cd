#pragma once
// Particles in a checkpoint, and read back from one. A checkpoint is itself
// an input (core/input/checkpoint.hpp: every key of the run's input, the root
// attributes step and time); the particles are datasets of `group`, every
// rank's records gathered to rank 0 and sorted by id where they have one:
//   /<group>/positions   float64 [N][3], inside the box (the caller folds)
//   /<group>/<dataset>   each written field, float64 or int64, [N][c] ([N])
// Read back on any number of ranks: every rank reads the datasets and keeps
// the particles its subdomain owns, so a run resumes on another rank grid.
#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "core/input/params.hpp"
#include "particle_trajectory.hpp"
#include "subdomain.hpp"

namespace mpsfw {

// Collective over `comm`: writes the checkpoint at `path` (via `path`.partial)
// with `params`, `overrides` and the records of every rank. Throws
// AgreedError naming `path` on every rank on failure.
void write_particle_checkpoint(const std::string& path, const Params& params, long step,
                               double time, const std::vector<std::string>& overrides,
                               const std::string& group, const ParticleRecords& local,
                               const std::vector<WrittenField>& fields, MPI_Comm comm);

// The records of `input`'s /<group> that `domain` owns (domain.contains), in
// file order, laid out as `layout` with `fields` at their offsets; nullopt
// when `input` holds no /<group>/positions (a fresh start). Checked as
// particle_input.hpp says: InputError naming the file, the dataset and what
// was expected for a missing dataset, another shape, a value not finite or
// an id twice.
std::optional<ParticleRecords> read_particles(const std::string& input, const std::string& group,
                                              const Subdomain& domain, RecordLayout layout,
                                              const std::vector<WrittenField>& fields);

}  // namespace mpsfw
