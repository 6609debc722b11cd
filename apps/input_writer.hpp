#pragma once
// Writing input files (for mkinput) and describing them canonically (for
// checking that a committed example is what mkinput produces).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/params.hpp"

namespace mpsfw {

// Every key of `params` as a typed scalar attribute of its group (root for
// group ""), plus /heat/u0 when `u0` is not empty ([nz][ny][nx], x fastest).
// The file is written under a temporary name and renamed: complete or absent.
void write_input_file(const std::string& path, const Params& params,
                      const std::vector<double>& u0, std::array<std::uint64_t, 3> u0_dims);

// One line per attribute and dataset, sorted, with types and values (datasets
// as shape plus a hash of their bytes): equal texts mean equal contents.
std::string describe_input_file(const std::string& path);

}  // namespace mpsfw
