#pragma once
// The wave example's configuration: its keys (group /wave)
// and the validated values a run uses.
#include <string>
#include <vector>

#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/mesh/box.hpp>

namespace wave {

// Periodic: the box wraps. Dirichlet: u = 0 in the halo cells beyond the
// box's walls (they are never written and start at 0).
enum class Boundary { Periodic, Dirichlet };
// Mode: the standing wave of a periodic box, started so that it follows
// amplitude * cos(omega t) exactly in time (wave_initial.hpp). Gaussian: a
// pulse at rest in the middle of the box.
enum class Initial { Mode, Gaussian };

struct WaveConfig : mpsfw::RunConfig {
  // /run, the example's own key
  // /wave
  mpsfw::Int3 cells;
  double spacing[3] = {1, 1, 1};  // m
  double speed = 1;               // c, m/s
  double dt = 0;                  // s
  Boundary boundary = Boundary::Periodic;
  Initial initial = Initial::Mode;
  double amplitude = 1;
  double width = 0;  // gaussian width, m; resolved: never 0 after wave_config_from
};

// The example's own keys: /wave.
std::vector<mpsfw::ParamSpec> wave_keys();

// Every required key for a small valid input: the standing wave of a periodic
// 64^3 box of side 1 m, c = 1 m/s, dt = 0.005 s (the stability limit is
// 1/128 s), 100 steps.
std::vector<std::string> wave_template();

// Checks what the schema cannot (stability, initial vs boundary) and builds
// the configuration. Throws mpsfw::InputError naming where the value came from.
WaveConfig wave_config_from(const mpsfw::Params& params);

// The box's length along `dim`, n h [m].
double box_length(const WaveConfig& config, int dim);

}  // namespace wave
