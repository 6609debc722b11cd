#include "sph_config.hpp"

#include <cmath>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>

namespace sph {
std::vector<mpsfw::ParamSpec> sph_keys() {
  using mpsfw::integer_param;
  using mpsfw::real_param;
  return {
      integer_param("sph", "n", true, "", 3, 4096,
                    "particles along x and y of the starting lattice (one vortex period)"),
      integer_param("sph", "nz", false, "0", 0, 4096, "particles along z; 0: n"),
      real_param("sph", "length", false, "1", 0, true,
                 "the box's side along x and y: the vortex's wavelength"),
      real_param("sph", "speed", false, "1", 0, false, "the vortex's velocity amplitude U"),
      real_param("sph", "nu", false, "0.01", 0, false, "kinematic viscosity"),
      real_param("sph", "rho0", false, "1", 0, true, "reference density"),
      real_param("sph", "sound_speed", false, "10", 0, true,
                 "artificial speed of sound c0: P = c0^2 (rho - rho0) + background"),
      real_param("sph", "background_pressure", false, "0", 0, false,
                 "added to every pressure (keeps pressures positive)"),
      real_param("sph", "shifting", false, "2", 0, false,
                 "A of the particle shift -A h |v| dt grad C (Lind et al.); 0: none"),
      real_param("sph", "h", false, "2", 1, false,
                 "smoothing length in particle spacings (the kernel reaches 2h)", 3),
      real_param("sph", "skin", false, "0.5", 0, true,
                 "neighbour lists reach 2h + skin (in particle spacings); rebuilt when a "
                 "particle moved skin/2"),
      real_param("sph", "dt", true, "", 0, true, "time step"),
  };
}

std::vector<std::string> sph_template() {
  return {"run.steps=200", "run.diag_every=25", "sph.n=24", "sph.nz=14", "sph.dt=0.001"};
}

double reach(const SphConfig& c) { return 2 * c.physics.h + c.skin; }

mpsfw::Int3 link_cells(const SphConfig& c) {
  mpsfw::Int3 n;
  for (int d = 0; d < 3; ++d) n[d] = static_cast<int>(std::floor(c.box[d] / reach(c)));
  return n;
}

long particle_count(const SphConfig& c) { return static_cast<long>(c.n) * c.n * c.nz; }

void lattice_position(const SphConfig& c, long id, double x[3]) {
  const long along[3] = {id % c.n, id / c.n % c.n, id / (static_cast<long>(c.n) * c.n)};
  for (int d = 0; d < 3; ++d) x[d] = (static_cast<double>(along[d]) + 0.5) * c.spacing;
}

double lattice_mass(double spacing, double h, double rho0) {
  const int reach = static_cast<int>(std::ceil(2 * h / spacing));
  double sum = 0;
  for (int i = -reach; i <= reach; ++i) {
    for (int j = -reach; j <= reach; ++j) {
      for (int k = -reach; k <= reach; ++k)
        sum += kernel(spacing * std::sqrt(static_cast<double>(i * i + j * j + k * k)), h);
    }
  }
  return rho0 / sum;
}

SphConfig sph_config_from(const mpsfw::Params& p) {
  SphConfig c;
  static_cast<mpsfw::RunConfig&>(c) = mpsfw::run_config_from(p);
  c.n = static_cast<int>(p.integer("sph.n"));
  c.nz = static_cast<int>(p.integer("sph.nz"));
  if (c.nz == 0) c.nz = c.n;
  c.length = p.real("sph.length");
  c.speed = p.real("sph.speed");
  c.spacing = c.length / c.n;
  c.box[0] = c.box[1] = c.length;
  c.box[2] = c.nz * c.spacing;
  c.skin = p.real("sph.skin") * c.spacing;
  Physics& ph = c.physics;
  ph.h = p.real("sph.h") * c.spacing;
  ph.rho0 = p.real("sph.rho0");
  ph.mass = lattice_mass(c.spacing, ph.h, ph.rho0);
  ph.c0 = p.real("sph.sound_speed");
  ph.nu = p.real("sph.nu");
  ph.p_background = p.real("sph.background_pressure");
  ph.shifting = p.real("sph.shifting");
  ph.dt = p.real("sph.dt");
  // The ghosts of one side must not reach the other side's: 3 cells a side.
  const mpsfw::Int3 cells = link_cells(c);
  if (cells.x < 3 || cells.z < 3) {
    const bool z = cells.z < 3;
    throw mpsfw::InputError(p.value(z ? "sph.nz" : "sph.n").origin + ": the box side " +
                            (z ? "nz" : "n") +
                            " * spacing = " + mpsfw::short_number(c.box[z ? 2 : 0]) +
                            " is less than 3 (2h + skin) = " + mpsfw::short_number(3 * reach(c)) +
                            "; take more particles or a smaller sph.h or sph.skin");
  }
  // Stable steps: sound (CFL) and viscous diffusion.
  const double sound = 0.25 * ph.h / (ph.c0 + c.speed), viscous = 0.125 * ph.h * ph.h / ph.nu;
  if (ph.dt > sound || ph.dt > viscous) {
    const bool by_sound = sound <= viscous;
    throw mpsfw::InputError(
        p.value("sph.dt").origin + ": sph.dt = " + mpsfw::short_number(ph.dt) +
        " is above the stable " +
        (by_sound ? "step 0.25 h / (sound_speed + speed) = " + mpsfw::short_number(sound)
                  : "step 0.125 h^2 / nu = " + mpsfw::short_number(viscous)) +
        "; take a smaller sph.dt");
  }
  return c;
}

}  // namespace sph
