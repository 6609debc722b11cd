#pragma once
// An input file's scalar attributes, read in one pass: the root's and those
// of every top-level group. The runtime reads them once, before MPI_Init (the
// /mps group must be known before MPS comes up), and every later step (which
// solver, its parameters) works from this copy. Datasets stay in the file:
// the workload that needs them reads them.
#include <map>
#include <string>
#include <vector>

#include "h5_io.hpp"

namespace mpsfw {

struct InputAttributes {
  std::string file;
  // group name ("" for the root) -> attribute name -> value
  std::map<std::string, std::map<std::string, h5::Scalar>> groups;
  std::vector<std::string> members;  // top-level groups and datasets, in file order
  // A text deck (core/input/deck.hpp): no attributes, no datasets; its
  // settings are read as the first overrides.
  bool deck = false;
};

// Throws InputError naming `file` when it cannot be opened or read.
InputAttributes read_input_attributes(const std::string& file);

}  // namespace mpsfw
