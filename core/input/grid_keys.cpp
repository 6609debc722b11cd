#include "grid_keys.hpp"

namespace mpsfw {
namespace {
constexpr double kMaxCells1D = 1 << 20;
constexpr const char* kAxes = "xyz";
}  // namespace

std::vector<ParamSpec> cell_keys(const std::string& group, std::vector<ParamSpec> more) {
  std::vector<ParamSpec> keys;
  for (int d = 0; d < 3; ++d) {
    const std::string axis(1, kAxes[d]);
    keys.push_back(integer_param(group, "n" + axis, true, "", 1, kMaxCells1D,
                                 "cells along " + axis + (d == 2 ? " (1: a 2D grid)" : "")));
  }
  keys.insert(keys.end(), more.begin(), more.end());
  return keys;
}

std::vector<ParamSpec> spacing_keys(const std::string& group, std::vector<ParamSpec> more) {
  std::vector<ParamSpec> keys;
  for (int d = 0; d < 3; ++d) {
    const std::string axis(1, kAxes[d]);
    keys.push_back(
        real_param(group, "d" + axis, true, "", 0, true, "cell spacing along " + axis + ", m"));
  }
  keys.insert(keys.end(), more.begin(), more.end());
  return keys;
}

std::vector<std::string> cell_key_names(const std::string& group) {
  return {group + ".nx", group + ".ny", group + ".nz"};
}

Int3 cells_of(const Params& params, const std::string& group) {
  return {static_cast<int>(params.integer(group + ".nx")),
          static_cast<int>(params.integer(group + ".ny")),
          static_cast<int>(params.integer(group + ".nz"))};
}

std::array<double, 3> spacing_of(const Params& params, const std::string& group) {
  return {params.real(group + ".dx"), params.real(group + ".dy"), params.real(group + ".dz")};
}

}  // namespace mpsfw
