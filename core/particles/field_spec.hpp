#pragma once
// A particle field declared once: its name, shape and type, whether it stays
// with its particle, reaches ghosts, and is written. The declaration makes
// the particle's record (position first, then every travelling field), the
// datasets of trajectories, checkpoints and inputs, and a store's arrays
// (ParticleArrays): nothing else lists a field again.
#include <cstddef>
#include <string>
#include <vector>

#include "particle_store.hpp"
#include "written_field.hpp"
#include <mpsfw/core/base/error.hpp>

namespace mpsfw {

enum class FieldType { Real, Integer };  // double or int64 components

struct FieldSpec {
  std::string name;
  int components = 1;
  FieldType type = FieldType::Real;
  // Kept with its particle: migration carries it and a rebuild's reordering
  // moves it. Else scratch the workload rewrites after every rebuild (a
  // force): zero on a particle that arrives, undefined on one that stays.
  bool travels = true;
  // Held by ghosts too, as the owner holds it (no periodic shift): a rebuild
  // (ParticleExchange::exchange_ghosts) fills it, update_ghost_fields moves
  // it again between rebuilds.
  bool ghosts = false;
  // Written as /<group>/<dataset> (trajectory frames, checkpoints, and read
  // back from inputs) with this XDMF attribute; empty: not written. A written
  // field travels (it is part of the particle's record).
  std::string dataset = "", attribute = "";
};

// The record a declaration makes: the position (3 doubles), then each
// travelling field's components in declaration order, 8 bytes each; an
// Integer field named "id" with one component is the record's id. offset[f]:
// where field f starts in it (-1: it does not travel); written: the fields
// with a dataset, as files take them.
struct DeclaredRecord {
  RecordLayout layout;
  std::vector<std::ptrdiff_t> offset;
  std::vector<WrittenField> written;
};

inline DeclaredRecord declared_record(const std::vector<FieldSpec>& fields) {
  DeclaredRecord r;
  r.layout.bytes = 3 * sizeof(double);
  for (const FieldSpec& spec : fields) {
    if (!spec.dataset.empty() && !spec.travels) {
      throw Error("particles: field " + spec.name + " is written (as " + spec.dataset +
                  ") but does not travel: only a particle's record is written");
    }
    if (!spec.travels) {
      r.offset.push_back(-1);
      continue;
    }
    const auto at = static_cast<std::ptrdiff_t>(r.layout.bytes);
    if (spec.name == "id" && spec.type == FieldType::Integer && spec.components == 1)
      r.layout.id_offset = at;
    if (!spec.dataset.empty()) {
      r.written.push_back({spec.dataset, spec.attribute, spec.components,
                           spec.type == FieldType::Integer, static_cast<std::size_t>(at)});
    }
    r.offset.push_back(at);
    r.layout.bytes += 8 * static_cast<std::size_t>(spec.components);
  }
  return r;
}

}  // namespace mpsfw
