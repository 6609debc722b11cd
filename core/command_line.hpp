#pragma once
// The command line every mpsfw program shares (apps/solver and solvers built
// on the runtime): an input file, --set overrides and their shorthands, the
// report file. Parsed without MPI (before MPI_Init), so it can be tested alone.
#include <string>
#include <vector>

namespace mpsfw {

struct CommandLine {
  std::string input;
  std::vector<std::string> overrides;  // group.key=value, in order
  std::vector<std::string> origins;    // what the user typed for each override
  std::string report_file;             // "" = no run.json
  std::string write_input;             // --write-input FILE: write a valid input, run nothing
  bool force = false;                  // --force: --write-input may replace an existing file
  std::string describe;                // --describe FILE: list an input's contents, run nothing
  bool help = false, version = false;
};

// Throws InputError with the usage hint on anything it does not understand.
// --backend X and --output F become the overrides run.backend=X and
// run.output_file=F, so they are validated like every other key.
// `program` names the executable in the usage text.
CommandLine parse_command_line(const std::vector<std::string>& args,
                               const std::string& program = "solver");

std::string command_line_usage(const std::string& program = "solver");

}  // namespace mpsfw
