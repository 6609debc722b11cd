#pragma once
// The InputError message of parse_command_line(args), or "" when it parses:
// what the command-line tests compare.
#include <string>
#include <vector>

#include "core/command_line.hpp"
#include "core/error.hpp"

namespace mpsfw::test {

inline std::string parse_error(const std::vector<std::string>& args) {
  try {
    parse_command_line(args);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace mpsfw::test
