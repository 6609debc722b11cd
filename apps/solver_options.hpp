#pragma once
// Command line of `solver`: parsed without MPI so it can be tested alone.
#include <string>
#include <vector>

namespace mpsfw {

struct SolverOptions {
  std::string input;
  std::vector<std::string> overrides;  // group.key=value, in order
  std::vector<std::string> origins;    // what the user typed for each override
  std::string report_file;             // "" = no run.json
  bool help = false, version = false;
};

// Throws InputError with the usage hint on anything it does not understand.
// --backend X and --output F become the overrides run.backend=X and
// run.output_file=F, so they are validated like every other key.
SolverOptions parse_solver_options(const std::vector<std::string>& args);

std::string solver_usage();

}  // namespace mpsfw
