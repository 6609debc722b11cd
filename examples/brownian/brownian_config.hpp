#pragma once
// The Brownian example's configuration: its keys (group /brownian) and the
// validated values a run uses.
#include <string>
#include <vector>

#include "brownian_physics.hpp"
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/mesh/box.hpp>

namespace brownian {

struct BrownianConfig : mpsfw::RunConfig {
  // /run, the example's own key
  // /brownian
  int n = 0;                  // particles per side of the starting lattice: n^3 in all
  double spacing = 1;         // lattice spacing, (1 / density)^(1/3)
  double box[3] = {1, 1, 1};  // the periodic box, n * spacing along each axis
  double skin = 0.3;          // neighbour lists reach sigma + skin
  Physics physics;
};

// The example's own keys: /brownian.
std::vector<mpsfw::ParamSpec> brownian_keys();

// Every required key for a small valid input: 16^3 particles at density 0.8,
// dt = 1e-4, 200 steps.
std::vector<std::string> brownian_template();

// Checks what the schema cannot (a box of at least 3 link cells along each
// axis) and builds the configuration. Throws mpsfw::InputError naming where
// the value came from.
BrownianConfig brownian_config_from(const mpsfw::Params& params);

// How far the neighbour lists reach, and the ghosts: sigma + skin.
double reach(const BrownianConfig& config);
// Link cells of at least reach(config) along each axis: what the ranks split.
mpsfw::Int3 link_cells(const BrownianConfig& config);
long particle_count(const BrownianConfig& config);

}  // namespace brownian
