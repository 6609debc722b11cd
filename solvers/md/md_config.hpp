#pragma once
// The MD solver's configuration: the input schema (groups /run and /md) and
// the validated, immutable values a run uses. Reduced LJ units throughout.
#include <string>
#include <vector>

#include "pair_style.hpp"
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/mesh/box.hpp>

namespace mpsfw::md {

enum class Initial { Fcc, Dataset };
enum class Thermostat { None, Rescale };

struct MdConfig : RunConfig {
  // /run, MD's own keys
  // /md
  Initial initial = Initial::Fcc;
  Int3 unit_cells;            // FCC: lattice cells along x, y, z (4 atoms each)
  double density = 0.8442;    // FCC: atoms per sigma^3
  double temperature = 1.44;  // initial temperature (FCC velocities), k_B = 1
  long seed = 1;
  double box[3] = {0, 0, 0};  // box lengths (FCC: from density and cells)
  PairStyle pair;             // md.pair_style and its keys
  double mass = 1;
  double dt = 0.005;
  double skin = 0.3;        // neighbour lists reach cutoff + skin
  long rebuild_every = 20;  // the longest run of steps on one neighbour list
  Thermostat thermostat = Thermostat::None;
  long thermostat_every = 10;
  long thermostat_until = 0;  // last step the thermostat acts on; 0: every step of the run
  double target_temperature = 1.44;
};

// MD's own keys: /md.
std::vector<ParamSpec> md_keys();
// Schema of a whole MD input file: `solver`, /run and md_keys().
std::vector<ParamSpec> md_schema();
// A 32k-atom LJ liquid as in LAMMPS's in.lj (rho 0.8442, T 1.44, r_c 2.5,
// dt 0.005) on 20^3 FCC cells, 100 steps: what mkinput writes for solver=md.
std::vector<std::string> md_template();
Params md_params_from_overrides(const std::vector<std::string>& overrides);
// Checks what the schema cannot (cutoff vs box, datasets) and builds the
// configuration. Throws InputError naming the file and the key.
MdConfig md_config_from(const Params& params);

// Link cells per dimension for the decomposition: as many as fit with an edge
// of at least the ghost width (cutoff + skin). A rank owns whole link cells,
// so its subdomain is never thinner than that and ghosts come from direct
// neighbours only.
Int3 link_cells(const MdConfig& c);
// How far ghosts and neighbour lists reach: cutoff + skin.
double ghost_width(const MdConfig& c);

}  // namespace mpsfw::md
