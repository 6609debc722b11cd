#pragma once
// How a field of the particles' records is written (trajectory frames,
// checkpoints) and read back (inputs): its dataset, XDMF attribute, shape and
// place in the record.
#include <cstddef>
#include <string>

namespace mpsfw {

struct WrittenField {
  std::string dataset;     // "velocities"
  std::string attribute;   // the XDMF attribute: "velocity"
  int components = 1;      // 1: a scalar, 3: a vector
  bool integer = false;    // int64 (else float64)
  std::size_t offset = 0;  // bytes into the record
};

}  // namespace mpsfw
