#pragma once
// Atoms as they travel between ranks and to and from files.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/particles/particle_store.hpp"
#include "core/particles/particle_trajectory.hpp"

namespace mpsfw::md {

// An owned atom: everything a rank needs to take it over.
// As the particle exchange moves it (core/particles/particle_store.hpp): the
// position first.
struct AtomRecord {
  double x[3];
  double v[3];
  std::int64_t id;
};
static_assert(offsetof(AtomRecord, x) == 0 && sizeof(AtomRecord) % 8 == 0,
              "a particle record starts with its position");

// The layout the particle layer sees, and how files hold an atom's fields
// beside the positions: velocities, then ids.
inline RecordLayout atom_layout() {
  return {sizeof(AtomRecord), static_cast<std::ptrdiff_t>(offsetof(AtomRecord, id))};
}
inline const std::vector<WrittenField>& atom_fields() {
  static const std::vector<WrittenField> fields = {
      {"velocities", "velocity", 3, false, offsetof(AtomRecord, v)},
      {"ids", "id", 1, true, offsetof(AtomRecord, id)}};
  return fields;
}

// Atoms as the particle layer's records, and back.
inline ParticleRecords records_of(const std::vector<AtomRecord>& atoms) {
  ParticleRecords r(atom_layout());
  r.append(atoms.data(), atoms.size());
  return r;
}
inline std::vector<AtomRecord> atoms_of(const ParticleRecords& records) {
  const auto* first = static_cast<const AtomRecord*>(records.data());
  return std::vector<AtomRecord>(first, first + records.size());
}

}  // namespace mpsfw::md
