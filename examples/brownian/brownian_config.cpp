#include "brownian_config.hpp"

#include <cmath>
#include <limits>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>

namespace brownian {
std::vector<mpsfw::ParamSpec> brownian_keys() {
  using mpsfw::integer_param;
  using mpsfw::real_param;
  const double inf = std::numeric_limits<double>::infinity();
  return {
      integer_param("brownian", "n", true, "", 1, 2000,
                    "particles per side of the starting simple cubic lattice (n^3 in all)"),
      real_param("brownian", "density", false, "0.8", 0, true,
                 "particles per unit volume; the lattice spacing is density^(-1/3)"),
      real_param("brownian", "sigma", false, "1", 0, true, "particle diameter: U = 0 beyond it"),
      real_param("brownian", "epsilon", false, "1", 0, false, "energy of a full overlap, U(0)"),
      real_param("brownian", "kT", false, "1", 0, false, "thermal energy"),
      real_param("brownian", "gamma", false, "1", 0, true, "friction coefficient"),
      real_param("brownian", "dt", true, "", 0, true, "time step"),
      real_param("brownian", "skin", false, "0.3", 0, true,
                 "neighbour lists reach sigma + skin; rebuilt when a particle moved skin/2"),
      integer_param("brownian", "seed", false, "1", 0, 9007199254740992.0,
                    "the noise's seed: the same seed, the same noise on any rank count"),
  };
}

std::vector<std::string> brownian_template() {
  return {"run.steps=200", "brownian.n=16", "brownian.dt=0.0001"};
}

double reach(const BrownianConfig& c) { return c.physics.sigma + c.skin; }

mpsfw::Int3 link_cells(const BrownianConfig& c) {
  mpsfw::Int3 n;
  for (int d = 0; d < 3; ++d) n[d] = static_cast<int>(std::floor(c.box[d] / reach(c)));
  return n;
}

long particle_count(const BrownianConfig& c) { return static_cast<long>(c.n) * c.n * c.n; }

BrownianConfig brownian_config_from(const mpsfw::Params& p) {
  BrownianConfig c;
  static_cast<mpsfw::RunConfig&>(c) = mpsfw::run_config_from(p);
  c.n = static_cast<int>(p.integer("brownian.n"));
  c.spacing = std::cbrt(1 / p.real("brownian.density"));
  for (double& side : c.box) side = c.n * c.spacing;
  c.skin = p.real("brownian.skin");
  c.physics.sigma = p.real("brownian.sigma");
  c.physics.epsilon = p.real("brownian.epsilon");
  c.physics.kT = p.real("brownian.kT");
  c.physics.gamma = p.real("brownian.gamma");
  c.physics.dt = p.real("brownian.dt");
  c.physics.seed = static_cast<std::uint64_t>(p.integer("brownian.seed"));
  // The ghosts of one side must not reach the other side's: 3 cells a side.
  if (link_cells(c).x < 3) {
    throw mpsfw::InputError(p.value("brownian.n").origin + ": the box side n * density^(-1/3) = " +
                            mpsfw::short_number(c.box[0]) + " is less than 3 (sigma + skin) = " +
                            mpsfw::short_number(3 * reach(c)) +
                            "; take more particles, a higher density or a smaller skin");
  }
  return c;
}

}  // namespace brownian
