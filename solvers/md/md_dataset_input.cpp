#include "md_dataset_input.hpp"

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>
#include <mpsfw/core/particles/particle_input.hpp>

namespace mpsfw::md {
namespace {

const std::string& input_file(const MdConfig& c) {
  if (c.input_file.empty()) {
    throw InputError(
        "md.initial = dataset reads the atoms from the datasets /md/positions and "
        "/md/velocities of an HDF5 input, and the parameters came from a deck or no file");
  }
  return c.input_file;
}

// Velocities required, ids optional (0 .. N - 1).
ParticleInputFields dataset_fields() { return {atom_fields(), {"ids"}}; }

// Presence, types and shapes; with a configuration, the values too: inside
// md.box_*, and no two atoms closer than the pair style allows.
ParticleInputRules dataset_rules(const MdConfig* c) {
  ParticleInputRules r;
  r.noun = "atom";
  r.nouns = "atoms";
  r.needed_by = "md.initial = dataset";
  r.required = true;
  if (c == nullptr) return r;
  r.check_box = true;
  const char* const keys[3] = {"md.box_x", "md.box_y", "md.box_z"};
  for (int d = 0; d < 3; ++d) {
    r.box[d] = c->box[d];
    r.box_keys[d] = keys[d];
  }
  const ClosestApproach closest = closest_approach(c->pair);
  r.least_separation = closest.distance;
  r.least_text = closest.text;
  r.why = closest.why;
  return r;
}

}  // namespace

long dataset_atom_count(const std::string& file) {
  return count_particles(file, "md", dataset_fields(), dataset_rules(nullptr)).value();
}

std::vector<AtomRecord> all_dataset_atoms(const MdConfig& c) {
  return atoms_of(
      read_all_particles(input_file(c), "md", atom_layout(), dataset_fields(), dataset_rules(&c))
          .value());
}

std::optional<ResumeState> md_resume_state(const MdConfig& c, int rank, int ranks,
                                           const ResumeLayout& layout) {
  return read_resume_state(input_file(c), "md", atom_layout(), dataset_fields(), dataset_rules(&c),
                           rank, ranks, layout);
}

std::vector<std::string> unread_input_datasets(const MdConfig& c) {
  return unread_particle_datasets(c.input_file, "md", dataset_fields());
}

std::vector<AtomRecord> dataset_atoms(const MdConfig& c, const Subdomain& domain) {
  return atoms_of(read_owned_particles(input_file(c), "md", domain, atom_layout(), dataset_fields(),
                                       dataset_rules(&c))
                      .value());
}

}  // namespace mpsfw::md
