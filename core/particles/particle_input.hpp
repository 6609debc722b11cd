#pragma once
// Particles read from an input file, checked: the datasets of a group
//   /<group>/positions   numbers [N][3], finite (and inside the box, if given)
//   /<group>/<dataset>   each field: numbers [N][c] ([N] for one component),
//                        finite, int64 for integer fields; an optional field
//                        may be absent (the id field: then 0 .. N - 1)
// where an id field (the layout's id) holds every id once, >= 0, and no two
// particles (periodic images included) may be closer than a least separation
// when one is given. A bad file throws InputError naming the file, the
// dataset, the row and what was expected — the same message on every rank, as
// every rank reads everything. A workload's initial particles and the
// particle checkpoints (particle_resume.hpp) are read through it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "particle_store.hpp"
#include "particle_trajectory.hpp"
#include "subdomain.hpp"

namespace mpsfw {

struct ParticleInputRules {
  std::string noun = "particle", nouns = "particles";  // in messages: "atom", "atoms"
  // What needs the datasets, named when one is missing ("md.initial = dataset").
  std::string needed_by = "a particle state";
  // A missing group or positions dataset is an error (else there are none).
  bool required = false;
  // Positions inside [0, box[d]), with the keys that set the box.
  bool check_box = false;
  double box[3] = {0, 0, 0};
  std::string box_keys[3];
  // No two particles closer than this (periodic in the box; needs check_box),
  // 0: unchecked. `least_text` says the limit ("0.5 sigma = 0.5 (md.sigma =
  // 1)"), `why` why it exists.
  double least_separation = 0;
  std::string least_text, why;
};

// The fields that may be absent (by dataset name): WrittenField says how a
// field is written, this how strictly it is read.
struct ParticleInputFields {
  std::vector<WrittenField> fields;
  std::vector<std::string> optional;
};

// N of /<group>/positions after checking the datasets' presence, types and
// shapes (not their values); nullopt when the group or its positions are
// absent and not required.
std::optional<long> count_particles(const std::string& file, const std::string& group,
                                    const ParticleInputFields& fields,
                                    const ParticleInputRules& rules);

// Every particle of the file, checked, as records of `layout` in file order;
// nullopt as count_particles.
std::optional<ParticleRecords> read_all_particles(const std::string& file, const std::string& group,
                                                  RecordLayout layout,
                                                  const ParticleInputFields& fields,
                                                  const ParticleInputRules& rules);

// What /<group> of `file` holds that a reader of `fields` leaves unread (not
// positions, not a field's dataset, not a checkpoint's /<group>/resume
// (particle_resume.hpp), not in `also`: what the solver reads
// elsewhere), one warning line each, naming the file and what is read: a
// misspelt dataset ("velocity" for "velocities") would otherwise go unseen.
// None where the file or the group is absent.
std::vector<std::string> unread_particle_datasets(const std::string& file, const std::string& group,
                                                  const ParticleInputFields& fields,
                                                  const std::vector<std::string>& also = {});

// Those of them that `domain` owns (domain.contains), in file order. Every
// position is checked to lie inside domain.box even where `rules` asks no
// box check (a particle outside would be owned by no rank): outside it is an
// InputError naming the row, with box_keys, or "Lx" where they are empty.
std::optional<ParticleRecords> read_owned_particles(const std::string& file,
                                                    const std::string& group,
                                                    const Subdomain& domain, RecordLayout layout,
                                                    const ParticleInputFields& fields,
                                                    const ParticleInputRules& rules);

}  // namespace mpsfw
