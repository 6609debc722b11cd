#pragma once
// The keys every grid solver has, declared once: cells along x, y, z
// (<group>.nx, ny, nz: integers in [1, 2^20]; one cell along an axis makes it
// flat, a 2D grid) and, where a solver wants one per axis, the cell spacing
// (<group>.dx, dy, dz: metres, > 0), each followed by `more` (a solver's
// own keys):
//   return cell_keys("wave", spacing_keys("wave", {real_param("wave", "speed", ...), ...}));
#include <array>
#include <string>
#include <vector>

#include "params.hpp"
#include <mpsfw/core/mesh/box.hpp>

namespace mpsfw {

std::vector<ParamSpec> cell_keys(const std::string& group, std::vector<ParamSpec> more = {});
std::vector<ParamSpec> spacing_keys(const std::string& group, std::vector<ParamSpec> more = {});
// "<group>.nx", "<group>.ny", "<group>.nz": what a weak-scaling study grows.
std::vector<std::string> cell_key_names(const std::string& group);

// The values of finalized parameters.
Int3 cells_of(const Params& params, const std::string& group);
std::array<double, 3> spacing_of(const Params& params, const std::string& group);

}  // namespace mpsfw
