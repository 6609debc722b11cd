#pragma once
// The heat solver's configuration: the input schema (groups /run and /heat),
// and the validated, immutable values a run uses.
#include <string>
#include <vector>

#include "heat_physics.hpp"
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/mesh/box.hpp>

namespace mpsfw::heat {

enum class Initial { Sine, Gaussian, Dataset };

struct HeatConfig : RunConfig {
  // /run, heat's own key
  // /heat
  Int3 cells;
  double spacing[3] = {1, 1, 1};
  double diffusivity = 1;
  double dt = 0;
  Boundary boundary = Boundary::Dirichlet;
  double boundary_value = 0;
  Initial initial = Initial::Sine;
  double amplitude = 1;
  double gaussian_width = 0;  // resolved: never 0 after from_params
};

// Heat's own keys: /heat.
std::vector<ParamSpec> heat_keys();
// Schema of a whole heat input file: `solver`, /run and heat_keys().
std::vector<ParamSpec> heat_schema();

// Values for every required key, as group.key=value overrides: a 64^3 block
// of metal (diffusivity 1e-4 m^2/s, 1 cm cells, dt 0.1 s against a stability
// limit of 1/6 s), Dirichlet walls at 0, sine initial mode, 100 steps. mkinput
// and the tests start from it.
std::vector<std::string> heat_template();

// Params for the heat schema from heat_template() plus `overrides`, finalized.
Params heat_params_from_overrides(const std::vector<std::string>& overrides);

// Checks what the schema alone cannot (stability, the u0 dataset's shape)
// and builds the configuration. Throws InputError naming file and path.
HeatConfig heat_config_from(const Params& params);

// Reads `file`, applies `overrides` ("group.key=value"), validates: the whole
// input step. Warnings (unknown keys) are appended to `warnings`.
HeatConfig load_heat_config(const std::string& file, const std::vector<std::string>& overrides,
                            std::vector<std::string>* warnings);

}  // namespace mpsfw::heat
