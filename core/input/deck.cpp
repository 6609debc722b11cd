#include "deck.hpp"

#include <fstream>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/paths.hpp>

namespace mpsfw {

namespace {

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

}  // namespace

void refuse_state_key(const std::string& assignment, const std::string& origin) {
  const std::string key = assignment.substr(0, assignment.find('='));
  if (key != "step" && key != "time") return;
  throw InputError(origin + ": '" + key + "' is the " + key +
                   " of a checkpoint's saved state, not a setting; a resumed run goes on from "
                   "it up to run.steps (set run.steps to run further)");
}

void read_deck(const std::string& path, std::vector<std::string>* overrides,
               std::vector<std::string>* origins) {
  // Checked before opening: opening a FIFO nobody writes blocks forever.
  const std::string kind = not_regular_kind(path);
  if (!kind.empty()) {
    throw InputError(path + ": is " + kind + ", not a regular file; a deck is " +
                     "a text file of key=value lines");
  }
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot be read");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string text = trimmed(line);
    if (text.empty() || text[0] == '#') continue;
    const size_t eq = text.find('=');
    const std::string where = path + ":" + std::to_string(number);
    if (eq == std::string::npos || trimmed(text.substr(0, eq)).empty()) {
      throw InputError(where + ": expected group.key=value, got '" + text + "'");
    }
    overrides->push_back(trimmed(text.substr(0, eq)) + "=" + trimmed(text.substr(eq + 1)));
    origins->push_back(where);
    refuse_state_key(overrides->back(), where);
  }
  if (in.bad()) throw InputError(path + ": reading failed");
}

bool is_deck(const std::string& path) {
  if (!not_regular_kind(path).empty()) return false;  // a FIFO would block the read
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  // Any binary file (HDF5's signature, a user block, a damaged file) is HDF5's to name.
  if (head.empty() || head.find('\0') != std::string::npos) return false;
  in.clear();
  in.seekg(0);
  std::string line;
  while (std::getline(in, line)) {
    const std::string text = trimmed(line);
    if (text.empty() || text[0] == '#') continue;
    return text.find('=') != std::string::npos;
  }
  return false;
}

InputAttributes read_input(const std::string& path, std::vector<std::string>* overrides,
                           std::vector<std::string>* origins) {
  if (!is_deck(path)) {
    try {
      return read_input_attributes(path);
    } catch (const InputError& e) {
      if (!not_regular_kind(path).empty() || std::ifstream(path).fail()) throw;
      throw InputError(std::string(e.what()) +
                       "; an input is an HDF5 file (mpsfw-mkinput or --write-input make one) "
                       "or a text deck of key = value lines with a line solver = NAME "
                       "(--list-keys lists the keys)");
    }
  }
  std::vector<std::string> lines, where;
  read_deck(path, &lines, &where);
  overrides->insert(overrides->begin(), lines.begin(), lines.end());
  origins->insert(origins->begin(), where.begin(), where.end());
  InputAttributes input;
  input.file = path;
  input.deck = true;
  return input;
}

}  // namespace mpsfw
