#include "wave_config.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <string>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>
#include <mpsfw/core/input/grid_keys.hpp>

#include "wave_physics.hpp"

namespace wave {

std::vector<mpsfw::ParamSpec> wave_keys() {
  using mpsfw::real_param;
  using mpsfw::text_param;
  const double inf = std::numeric_limits<double>::infinity();
  return mpsfw::cell_keys(
      "wave",
      mpsfw::spacing_keys(
          "wave",
          {real_param("wave", "speed", false, "1", 0, true, "wave speed c, m/s"),
           real_param("wave", "dt", true, "", 0, true, "time step, s"),
           text_param("wave", "boundary", true, "", {"periodic", "dirichlet"},
                      "periodic box, or u = 0 beyond the walls"),
           text_param("wave", "initial", true, "", {"mode", "gaussian"},
                      "standing wave of a periodic box, or a gaussian pulse at rest"),
           real_param("wave", "amplitude", false, "1", -inf, false, "peak of the initial u"),
           real_param("wave", "width", false, "0", 0, false,
                      "gaussian width, m; 0: a tenth of the shortest side")}));
}

std::vector<std::string> wave_template() {
  return {"run.steps=100",          "wave.nx=64",       "wave.ny=64",       "wave.nz=64",
          "wave.dx=0.015625",       "wave.dy=0.015625", "wave.dz=0.015625", "wave.dt=0.005",
          "wave.boundary=periodic", "wave.initial=mode"};
}

double box_length(const WaveConfig& config, int dim) {
  return config.cells[dim] * config.spacing[dim];
}

WaveConfig wave_config_from(const mpsfw::Params& p) {
  WaveConfig c;
  static_cast<mpsfw::RunConfig&>(c) = mpsfw::run_config_from(p);
  c.cells = mpsfw::cells_of(p, "wave");
  const std::array<double, 3> spacing = mpsfw::spacing_of(p, "wave");
  for (int d = 0; d < 3; ++d) c.spacing[d] = spacing[static_cast<std::size_t>(d)];
  c.speed = p.real("wave.speed");
  c.dt = p.real("wave.dt");
  c.boundary = p.text("wave.boundary") == "periodic" ? Boundary::Periodic : Boundary::Dirichlet;
  c.initial = p.text("wave.initial") == "mode" ? Initial::Mode : Initial::Gaussian;
  c.amplitude = p.real("wave.amplitude");
  c.width = p.real("wave.width");
  if (c.width == 0) {
    double shortest = box_length(c, 0);
    for (int d = 1; d < 3; ++d) {
      if (box_length(c, d) < shortest) shortest = box_length(c, d);
    }
    c.width = 0.1 * shortest;
  }

  const double limit = max_stable_dt(c.speed, c.spacing);
  if (c.dt > limit) {
    throw mpsfw::InputError(
        p.value("wave.dt").origin + ": dt = " + mpsfw::short_number(c.dt) +
        " is unstable for leapfrog with the 4th-order Laplacian; the largest stable dt is " +
        mpsfw::short_number(limit) + " = 2 / (c sqrt(16/3 (1/dx^2 + 1/dy^2 + 1/dz^2)))");
  }
  // The standing wave's exact solution holds only where the box wraps.
  if (c.initial == Initial::Mode && c.boundary != Boundary::Periodic) {
    throw mpsfw::InputError(p.value("wave.initial").origin +
                            ": initial = mode is the standing wave of a periodic box; with "
                            "wave.boundary = dirichlet use initial = gaussian");
  }
  // The stencil reaches two cells across a periodic wrap: a block must have them.
  if (c.boundary == Boundary::Periodic) {
    for (int d = 0; d < 3; ++d) {
      if (c.cells[d] < 2) {
        const std::string key = std::string("wave.n") + "xyz"[d];
        throw mpsfw::InputError(p.value(key).origin + ": " + key +
                                " = 1; a periodic box needs at least 2 cells along each axis "
                                "(the 4th-order stencil reaches 2 cells across the wrap)");
      }
    }
  }
  if (c.cells.product() > (std::int64_t{1} << 40)) {
    throw mpsfw::InputError("wave.nx*ny*nz = " + std::to_string(c.cells.product()) +
                            " cells is more than this example supports (2^40)");
  }
  return c;
}

}  // namespace wave
