#pragma once
// The InputError message of parse_command_line(args), or "" when it parses:
// what the command-line tests compare.
#include <string>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/input/command_line.hpp>

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
