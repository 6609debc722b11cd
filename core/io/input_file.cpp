#include "input_file.hpp"

#include <fstream>
#include <string>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/paths.hpp>

namespace mpsfw {

namespace {

// A text file of key = value lines (a deck) given where an HDF5 input goes:
// say how decks are used instead of only "not an HDF5 file".
void refuse_a_deck(const std::string& file) {
  if (!not_regular_kind(file).empty()) return;  // a FIFO would block the read
  std::ifstream in(file, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  // HDF5 (its signature, or any binary file: a user block, a damaged file) is HDF5's to name.
  if (head.size() < 8 || head.find('\0') != std::string::npos) return;
  in.clear();
  in.seekg(0);
  std::string line;
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    if (line.find('=') == std::string::npos) return;  // not a deck either: HDF5 says what it is
    throw InputError(file +
                     ": not an HDF5 file but a text deck of key = value lines: give it to "
                     "an input with --set-file " +
                     file +
                     " (mpirun -np N solver INPUT.h5 "
                     "--set-file " +
                     file +
                     "), or make an input of it with --write-input "
                     "IN.h5 --set-file " +
                     file);
  }
}

}  // namespace

InputAttributes read_input_attributes(const std::string& file) {
  InputAttributes input;
  input.file = file;
  refuse_a_deck(file);
  h5::Handle f = h5::open_file_readonly(file);
  const auto read_group = [&](hid_t object, const std::string& name) {
    auto& attributes = input.groups[name];
    for (const std::string& a : h5::attribute_names(object)) {
      try {
        attributes[a] = h5::read_scalar(object, a);
      } catch (const Error&) {
        attributes[a].type_name = "unreadable attribute";  // reported only if a key needs it
      }
    }
  };
  read_group(f.get(), "");
  input.members = h5::member_names(f.get());
  for (const std::string& member : input.members) {
    if (!h5::has_group(f.get(), member)) continue;  // a dataset
    h5::Handle g = h5::open_group(f.get(), member);
    read_group(g.get(), member);
  }
  return input;
}

}  // namespace mpsfw
