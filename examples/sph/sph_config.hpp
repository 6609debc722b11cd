#pragma once
// The SPH example's configuration: its keys (group /sph) and the validated
// values a run uses.
#include <string>
#include <vector>

#include "sph_physics.hpp"
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/mesh/box.hpp>

namespace sph {

struct SphConfig : mpsfw::RunConfig {
  int n = 0;                  // particles along x and y of the starting lattice
  int nz = 0;                 // particles along z
  double length = 1;          // the box's side along x and y: the vortex's wavelength
  double speed = 1;           // the vortex's amplitude U
  double spacing = 1;         // length / n
  double box[3] = {1, 1, 1};  // length x length x nz * spacing, periodic
  double skin = 0;            // neighbour lists reach 2h + skin
  Physics physics;
};

// The example's own keys: /sph.
std::vector<mpsfw::ParamSpec> sph_keys();

// Every required key for a small valid input: a 24 x 24 x 14 lattice,
// dt = 1e-3, 200 steps (to t = 0.2).
std::vector<std::string> sph_template();

// Checks what the schema cannot (3 link cells along each axis; the time step
// within the sound's and the viscosity's limits) and builds the
// configuration. Throws mpsfw::InputError naming where the value came from.
SphConfig sph_config_from(const mpsfw::Params& params);

// How far the neighbour lists reach, and the ghosts: 2h + skin.
double reach(const SphConfig& config);
// Link cells of at least reach(config) along each axis: what the ranks split.
mpsfw::Int3 link_cells(const SphConfig& config);
long particle_count(const SphConfig& config);
// Lattice site `id`'s position (x fastest): the centre of its cell.
void lattice_position(const SphConfig& config, long id, double x[3]);
// The mass that makes the lattice's summed density rho0.
double lattice_mass(double spacing, double h, double rho0);

}  // namespace sph
