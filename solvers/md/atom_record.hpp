#pragma once
// Atoms as they travel between ranks and to and from files.
#include <cstddef>
#include <cstdint>

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

}  // namespace mpsfw::md
