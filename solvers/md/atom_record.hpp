#pragma once
// Atoms as they travel between ranks and to and from files.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <mpsfw/core/particles/field_spec.hpp>
#include <mpsfw/core/particles/particle_store.hpp>
#include <mpsfw/core/particles/particle_trajectory.hpp>

namespace mpsfw::md {

// MD's per-atom fields, declared once (core/particles/field_spec.hpp): the
// store's arrays, the record that migrates, the files' datasets. The
// indices follow the list.
enum AtomField { kVelocityField = 0, kForceField = 1, kIdField = 2 };
inline const std::vector<FieldSpec>& atom_field_specs() {
  static const std::vector<FieldSpec> specs = {
      {"v", 3, FieldType::Real, true, false, "velocities", "velocity"},
      {"f", 3, FieldType::Real, false},
      {"id", 1, FieldType::Integer, true, false, "ids", "id"}};
  return specs;
}

// An owned atom as the declaration's record (position first), for MD's host
// code; tests/unit/test_md_atom_record.cpp checks that the two agree.
struct AtomRecord {
  double x[3];
  double v[3];
  std::int64_t id;
};
static_assert(offsetof(AtomRecord, x) == 0 && sizeof(AtomRecord) % 8 == 0,
              "a particle record starts with its position");

// The layout the particle layer sees, and how files hold an atom's fields
// beside the positions: both from the declaration.
inline RecordLayout atom_layout() {
  static const RecordLayout layout = declared_record(atom_field_specs()).layout;
  return layout;
}
inline const std::vector<WrittenField>& atom_fields() {
  static const std::vector<WrittenField> fields = declared_record(atom_field_specs()).written;
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
