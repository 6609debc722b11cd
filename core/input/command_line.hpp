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
  std::vector<std::string> decks;      // --set-file FILEs: inputs, never an output
  std::string write_input;             // --write-input FILE: write a valid input, run nothing
  bool force = false;                  // --force: --write-input may replace an existing file
  std::string describe;                // --describe FILE: list an input's contents, run nothing
  bool as_set = false;                 // --as-set: --describe prints a deck of key=value lines
  bool list_keys = false;              // --list-keys[=NAME]: every key of the input, run nothing
  bool dry_run = false;                // --dry-run: check the input, print the plan, start nothing
  std::string list_keys_of;            // NAME: only that solver's (and the shared ones)
  // --kokkos-NAME[=VALUE] as typed, for Kokkos::initialize (core/device/kokkos_options.hpp);
  // kokkos_help: one of them is --kokkos-help or --kokkos-tools-help.
  std::vector<std::string> kokkos_options;
  bool kokkos_help = false;
  bool help = false, version = false;
};

// Throws InputError with the usage hint on anything it does not understand.
// --backend X and --output F become the overrides run.backend=X and
// run.output_file=F, so they are validated like every other key. Options for
// Kokkos are kept, except those mpsfw's binding sets (refused by name).
// `program` names the executable in the usage text.
CommandLine parse_command_line(const std::vector<std::string>& args,
                               const std::string& program = "solver");

std::string command_line_usage(const std::string& program = "solver");

}  // namespace mpsfw
