#pragma once
// Writing input files (mkinput, --write-input of solver_main) and describing them canonically (for
// checking that a committed example is what mkinput produces).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/workload.hpp"

namespace mpsfw {

// Every key of `params` as a typed scalar attribute of its group (root for
// group ""), plus /heat/u0 when `u0` is not empty ([nz][ny][nx], x fastest).
// The file is written under a temporary name and renamed: complete or absent.
void write_input_file(const std::string& path, const Params& params, const std::vector<double>& u0,
                      std::array<std::uint64_t, 3> u0_dims);

// The solver named by the last "solver=NAME" of `sets`, else `fallback`.
std::string solver_of(const std::vector<std::string>& sets, const std::string& fallback);
// Finalized parameters of that solver: its input template, then `sets`.
Params workload_params(const WorkloadRegistry& workloads, const std::vector<std::string>& sets,
                       const std::string& fallback_solver);
// A valid input for that solver at `path` (with /heat/u0 when `u0` is not
// empty): written, read back and configured as the solver reads it before
// it replaces anything at `path`; an invalid one is dropped (the error says
// why) and the file at `path` stays as it was. Something already at `path` is
// replaced only with `replace` (--force); else InputError naming it.
void write_workload_input(const WorkloadRegistry& workloads, const std::string& path,
                          const std::vector<std::string>& sets, const std::string& fallback_solver,
                          bool replace, const std::vector<double>& u0 = {},
                          std::array<std::uint64_t, 3> u0_dims = {0, 0, 0});

// One line per attribute and dataset, sorted, with types and values (datasets
// as shape plus a hash of their bytes): equal texts mean equal contents.
std::string describe_input_file(const std::string& path);
// The same input as a deck for --set-file: one group.key=value line per
// attribute (the root's solver first), values as --set takes them (numbers
// exact), datasets as comments (a deck holds scalars only). Written out with
// --write-input --set-file, it gives an input whose attributes are the same.
std::string describe_input_as_deck(const std::string& path);

}  // namespace mpsfw
