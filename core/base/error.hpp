#pragma once
// Errors are exceptions with context; main() catches them in one place.
#include <stdexcept>
#include <string>

namespace mpsfw {

// Any failure the user can act on: bad input, missing GPU, failed MPI/CUDA call.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A bad input file or command-line value. The message names the file (or
// option), the path inside it and what was expected.
class InputError : public Error {
 public:
  using Error::Error;
};

// A command line that does not parse (an unknown option, a missing value, a
// wrong combination): the programs exit 2 for it, as getopt's do, and 1 for
// a bad input.
class UsageError : public InputError {
 public:
  using InputError::InputError;
};
inline constexpr int kUsageExitCode = 2;

// Thrown on every rank at once when all ranks agreed on a failure (see
// collective.hpp): the caller prints the message once and exits, no abort needed.
class AgreedError : public Error {
 public:
  using Error::Error;
};

// Thrown on every rank after a collective check failed and rank 0 already
// printed the reason: the caller only has to exit with a non-zero code.
class ReportedError : public Error {
 public:
  ReportedError() : Error("error already reported") {}
};

}  // namespace mpsfw
