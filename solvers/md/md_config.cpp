#include "md_config.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>

namespace mpsfw::md {

std::vector<ParamSpec> md_keys() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<ParamSpec> keys = {
      text_param("md", "initial", true, "", {"fcc", "dataset"},
                 "fcc lattice, or datasets /md/positions and /md/velocities"),
      integer_param("md", "cells_x", false, "0", 0, 1 << 12,
                    "FCC unit cells along x (4 atoms each)"),
      integer_param("md", "cells_y", false, "0", 0, 1 << 12, "FCC unit cells along y"),
      integer_param("md", "cells_z", false, "0", 0, 1 << 12, "FCC unit cells along z"),
      real_param("md", "density", false, "0.8442", 0, true,
                 "FCC number density, atoms per sigma^3"),
      real_param("md", "temperature", false, "1.44", 0, false, "initial temperature (k_B = 1)"),
      integer_param("md", "seed", false, "1", 0, 9.2e18, "seed of the initial velocities"),
      real_param("md", "box_x", false, "0", 0, false, "box length along x (dataset input)"),
      real_param("md", "box_y", false, "0", 0, false, "box length along y (dataset input)"),
      real_param("md", "box_z", false, "0", 0, false, "box length along z (dataset input)"),
      real_param("md", "mass", false, "1", 0, true, "atom mass"),
      real_param("md", "dt", false, "0.005", 0, true, "time step"),
      real_param("md", "skin", false, "0.3", 0, false,
                 "neighbour lists reach cutoff + skin; rebuilt when an atom moved skin/2"),
      integer_param("md", "rebuild_every", false, "20", 1, inf,
                    "most steps between neighbour-list rebuilds (1: every step)"),
      text_param("md", "thermostat", false, "none", {"none", "rescale"},
                 "velocity rescaling towards target_temperature, or none (NVE)"),
      integer_param("md", "thermostat_every", false, "10", 1, inf, "steps between rescalings"),
      integer_param("md", "thermostat_until", false, "0", 0, inf,
                    "last step the thermostat acts on; 0: the whole run"),
      real_param("md", "target_temperature", false, "0", 0, false,
                 "thermostat target; 0: md.temperature"),
  };
  for (ParamSpec& k : pair_style_keys()) keys.push_back(std::move(k));
  return keys;
}

std::vector<ParamSpec> md_schema() { return input_schema({"md"}, md_keys()); }

std::vector<std::string> md_template() {
  return {"solver=md",     "run.steps=100", "run.diag_every=10", "md.initial=fcc",
          "md.cells_x=20", "md.cells_y=20", "md.cells_z=20"};
}

Params md_params_from_overrides(const std::vector<std::string>& overrides) {
  Params p(md_schema());
  for (const std::string& o : md_template()) p.apply_override(o);
  for (const std::string& o : overrides) p.apply_override(o);
  p.finalize();
  return p;
}

MdConfig md_config_from(const Params& p) {
  MdConfig c;
  static_cast<RunConfig&>(c) = run_config_from(p);
  c.initial = p.text("md.initial") == "fcc" ? Initial::Fcc : Initial::Dataset;
  c.unit_cells = {static_cast<int>(p.integer("md.cells_x")),
                  static_cast<int>(p.integer("md.cells_y")),
                  static_cast<int>(p.integer("md.cells_z"))};
  c.density = p.real("md.density");
  c.temperature = p.real("md.temperature");
  c.seed = static_cast<long>(p.integer("md.seed"));
  c.pair = pair_style_from(p);
  c.mass = p.real("md.mass");
  c.dt = p.real("md.dt");
  c.skin = p.real("md.skin");
  c.rebuild_every = p.integer("md.rebuild_every");
  c.thermostat = p.text("md.thermostat") == "rescale" ? Thermostat::Rescale : Thermostat::None;
  c.thermostat_every = p.integer("md.thermostat_every");
  c.thermostat_until = p.integer("md.thermostat_until");
  c.target_temperature = p.real("md.target_temperature");
  if (c.target_temperature == 0) c.target_temperature = c.temperature;

  const char* axis[3] = {"x", "y", "z"};
  if (c.initial == Initial::Fcc) {
    for (int d = 0; d < 3; ++d) {
      if (c.unit_cells[d] < 1) {
        throw InputError(p.value(std::string("md.cells_") + axis[d]).origin +
                         ": md.initial = fcc needs md.cells_" + axis[d] +
                         " >= 1 (unit cells along " + axis[d] + ")");
      }
    }
    // Four atoms per cubic unit cell of edge a: density = 4 / a^3.
    const double a = std::cbrt(4.0 / c.density);
    for (int d = 0; d < 3; ++d) c.box[d] = a * c.unit_cells[d];
  } else {
    for (int d = 0; d < 3; ++d) {
      c.box[d] = p.real(std::string("md.box_") + axis[d]);
      if (c.box[d] <= 0) {
        throw InputError(p.value(std::string("md.box_") + axis[d]).origin +
                         ": md.initial = dataset needs md.box_" + axis[d] +
                         " > 0 (box length along " + axis[d] + ")");
      }
    }
  }
  const double cutoff = cutoff_of(c.pair);
  for (int d = 0; d < 3; ++d) {
    // Minimum image: a pair must not see two images of the same atom.
    if (cutoff > 0.5 * c.box[d]) {
      throw InputError(p.value("md.cutoff").origin + ": md.cutoff = " + short_number(cutoff) +
                       " is more than half the box along " + axis[d] + " (" +
                       short_number(c.box[d]) + "); use a larger box or a shorter cutoff");
    }
  }
  for (int d = 0; d < 3; ++d) {
    // A subdomain is at least one link cell of cutoff + skin thick.
    if (cutoff + c.skin > c.box[d]) {
      throw InputError(p.value("md.skin").origin + ": md.skin = " + short_number(c.skin) +
                       " with md.cutoff = " + short_number(cutoff) + " reaches " +
                       short_number(cutoff + c.skin) + ", more than the box along " + axis[d] +
                       " (" + short_number(c.box[d]) + "); use a smaller skin");
    }
  }
  return c;
}

double ghost_width(const MdConfig& c) { return cutoff_of(c.pair) + c.skin; }

Int3 link_cells(const MdConfig& c) {
  Int3 n;
  for (int d = 0; d < 3; ++d)
    n[d] = std::max(1, static_cast<int>(std::floor(c.box[d] / ghost_width(c))));
  return n;
}

}  // namespace mpsfw::md
