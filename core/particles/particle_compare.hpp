#pragma once
// Two particle files' /<group> (trajectory-frame layout: checkpoints, inputs)
// particle by particle, matched by id: how many values of the positions and
// of each written field differ, and by how much at most — what a solver's
// check compares runs on other rank counts or resumed runs with.
#include <string>
#include <vector>

#include "particle_input.hpp"
#include "particle_store.hpp"

namespace mpsfw {

struct FieldDifference {
  std::string dataset;  // "positions", or a written field's
  long values = 0;      // compared (particles x components)
  long differing = 0;   // not the same bits
  // The largest difference; positions' in box lengths along their axis, the
  // nearest periodic image's.
  double largest = 0;
};

struct ParticleDifference {
  long particles[2] = {0, 0};           // in each file
  bool same_ids = false;                // the same ids (else no field is compared)
  std::vector<FieldDifference> fields;  // positions first, then `fields` in order
};

// Reads both files as particle_input.hpp does (InputError for a bad one);
// the layout must have an id.
ParticleDifference compare_particle_files(const std::string& a, const std::string& b,
                                          const std::string& group, RecordLayout layout,
                                          const ParticleInputFields& fields, const double box[3]);

}  // namespace mpsfw
