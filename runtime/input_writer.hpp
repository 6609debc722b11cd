#pragma once
// Writing input files (mkinput, --write-input of solver_main) and describing them canonically (for
// checking that a committed example is what mkinput produces).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <mpsfw/core/driver/workload.hpp>
#include <mpsfw/core/input/params.hpp>

namespace mpsfw {

// Every key of `params` as a typed scalar attribute of its group (root for
// group ""), plus /heat/u0 when `u0` is not empty ([nz][ny][nx], x fastest).
// The file is written under a temporary name and renamed: complete or absent.
void write_input_file(const std::string& path, const Params& params, const std::vector<double>& u0,
                      std::array<std::uint64_t, 3> u0_dims);

// The solver named by the last "solver=NAME" of `sets`, else `fallback`.
std::string solver_of(const std::vector<std::string>& sets, const std::string& fallback);
// Every key an input of `solver` may hold, as the solver reads it: the
// workload's schema (root, /run, its own) and /mps.
std::vector<ParamSpec> input_keys(const WorkloadRegistry& workloads, const std::string& solver);
// `sets` ("group.key=value") and where each came from (`origins`, parallel;
// a missing or empty one reads "--set group.key=value"), as errors name them.
struct Settings {
  std::vector<std::string> sets;
  std::vector<std::string> origins;
};
// Finalized parameters of that solver: its input template, then `sets`. The
// /mps keys are there only where `sets` sets them (an input without /mps
// leaves MPS to its defaults).
Params workload_params(const WorkloadRegistry& workloads, const Settings& settings,
                       const std::string& fallback_solver);
// A valid input for that solver at `path` (with /heat/u0 when `u0` is not
// empty): written, read back and configured as the solver reads it before
// it replaces anything at `path`; an invalid one is dropped (the error says
// why) and the file at `path` stays as it was. Something already at `path` is
// replaced only with `replace` (--force); else InputError naming it.
void write_workload_input(const WorkloadRegistry& workloads, const std::string& path,
                          const Settings& settings, const std::string& fallback_solver,
                          bool replace, const std::vector<double>& u0 = {},
                          std::array<std::uint64_t, 3> u0_dims = {0, 0, 0});

// One line per attribute and dataset, sorted, with types and values (datasets
// as shape plus a hash of their bytes): equal texts mean equal contents.
std::string describe_input_file(const std::string& path);
// The same input as a deck for --set-file: one group.key=value line per
// attribute (the root's solver first), values as --set takes them (numbers
// exact), the saved state's step and time and datasets as comments (a deck
// holds settings only). Written out with --write-input --set-file, it gives an
// input whose attributes are the same (step and time of a fresh input: 0).
std::string describe_input_as_deck(const std::string& path);

}  // namespace mpsfw
