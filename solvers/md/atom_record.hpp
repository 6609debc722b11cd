#pragma once
// Atoms as they travel between ranks and to and from files.
#include <cstdint>

namespace mpsfw::md {

// An owned atom: everything a rank needs to take it over.
struct AtomRecord {
  double x[3];
  double v[3];
  std::int64_t id;
};

}  // namespace mpsfw::md
