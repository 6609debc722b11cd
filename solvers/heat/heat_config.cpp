#include "heat_config.hpp"

#include <cstdio>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>
#include <mpsfw/core/grid/grid_state.hpp>
#include <mpsfw/core/io/h5_io.hpp>

namespace mpsfw::heat {
namespace {

constexpr double kMaxCells1D = 1 << 20;

}  // namespace

std::vector<ParamSpec> heat_keys() {
  const double inf = std::numeric_limits<double>::infinity();
  return {
      integer_param("heat", "nx", true, "", 1, kMaxCells1D, "cells along x"),
      integer_param("heat", "ny", true, "", 1, kMaxCells1D, "cells along y"),
      integer_param("heat", "nz", true, "", 1, kMaxCells1D, "cells along z"),
      real_param("heat", "dx", true, "", 0, true, "cell spacing along x, m"),
      real_param("heat", "dy", true, "", 0, true, "cell spacing along y, m"),
      real_param("heat", "dz", true, "", 0, true, "cell spacing along z, m"),
      real_param("heat", "diffusivity", true, "", 0, true, "thermal diffusivity, m^2/s"),
      real_param("heat", "dt", true, "", 0, true, "time step, s"),
      text_param("heat", "boundary", true, "", {"dirichlet", "periodic"}, "boundary condition"),
      real_param("heat", "boundary_value", false, "0", -inf, false, "wall value for dirichlet"),
      text_param("heat", "initial", true, "", {"sine", "gaussian", "dataset"},
                 "initial condition; dataset reads /heat/u0"),
      real_param("heat", "amplitude", false, "1", -inf, false, "peak of the sine or gaussian"),
      real_param("heat", "gaussian_width", false, "0", 0, false,
                 "gaussian width, m; 0: a tenth of the shortest side"),
  };
}

std::vector<ParamSpec> heat_schema() { return input_schema({"heat"}, heat_keys()); }

std::vector<std::string> heat_template() {
  return {"solver=heat",
          "run.steps=100",
          "heat.nx=64",
          "heat.ny=64",
          "heat.nz=64",
          "heat.dx=0.01",
          "heat.dy=0.01",
          "heat.dz=0.01",
          "heat.dt=0.1",
          "heat.diffusivity=1e-4",
          "heat.boundary=dirichlet",
          "heat.initial=sine"};
}

Params heat_params_from_overrides(const std::vector<std::string>& overrides) {
  Params p(heat_schema());
  for (const std::string& o : heat_template()) p.apply_override(o);
  for (const std::string& o : overrides) p.apply_override(o);
  p.finalize();
  return p;
}

HeatConfig heat_config_from(const Params& p) {
  HeatConfig c;
  static_cast<RunConfig&>(c) = run_config_from(p);
  c.cells = {static_cast<int>(p.integer("heat.nx")), static_cast<int>(p.integer("heat.ny")),
             static_cast<int>(p.integer("heat.nz"))};
  c.spacing[0] = p.real("heat.dx");
  c.spacing[1] = p.real("heat.dy");
  c.spacing[2] = p.real("heat.dz");
  c.diffusivity = p.real("heat.diffusivity");
  c.dt = p.real("heat.dt");
  c.boundary = p.text("heat.boundary") == "periodic" ? Boundary::Periodic : Boundary::Dirichlet;
  c.boundary_value = p.real("heat.boundary_value");
  const std::string& init = p.text("heat.initial");
  c.initial =
      init == "sine" ? Initial::Sine : (init == "gaussian" ? Initial::Gaussian : Initial::Dataset);
  c.amplitude = p.real("heat.amplitude");
  c.gaussian_width = p.real("heat.gaussian_width");
  if (c.gaussian_width == 0) {
    double shortest = domain_length(c.cells.x, c.spacing[0], c.boundary);
    for (int d = 1; d < 3; ++d) {
      const double len = domain_length(c.cells[d], c.spacing[d], c.boundary);
      if (len < shortest) shortest = len;
    }
    c.gaussian_width = 0.1 * shortest;
  }

  const double limit = max_stable_dt(c.diffusivity, c.spacing[0], c.spacing[1], c.spacing[2]);
  if (c.dt > limit) {
    throw InputError(p.value("heat.dt").origin + ": dt = " + short_number(c.dt) +
                     " is unstable for the explicit scheme; the largest stable dt is " +
                     short_number(limit) + " = 1 / (2 diffusivity (1/dx^2 + 1/dy^2 + 1/dz^2))");
  }
  if (c.cells.product() > (std::int64_t{1} << 40)) {
    throw InputError("heat.nx*ny*nz = " + std::to_string(c.cells.product()) +
                     " cells is more than this build supports (2^40)");
  }
  if (c.initial == Initial::Dataset && p.dataset_file().empty()) {
    throw InputError(p.value("heat.initial").origin +
                     ": heat.initial = dataset reads /heat/u0 from an HDF5 input, and the "
                     "parameters came from " +
                     (p.file().empty() ? std::string("no file") : "the deck " + p.file()) +
                     "; make an input with the dataset (mpsfw-mkinput --u0, or h5py)");
  }
  if (c.initial == Initial::Dataset) {
    check_grid_dataset(p.dataset_file(), "/heat/u0", c.cells, "heat.initial=dataset");
  }
  return c;
}

HeatConfig load_heat_config(const std::string& file, const std::vector<std::string>& overrides,
                            std::vector<std::string>* warnings) {
  Params params(heat_schema());
  params.read_file(file, warnings);
  for (const std::string& o : overrides) params.apply_override(o);
  params.finalize();
  return heat_config_from(params);
}

}  // namespace mpsfw::heat
