#pragma once
// MD's physics in reduced units (mass = 1 unless the input says otherwise),
// shared by every backend: the pair styles (pair_style.hpp: the pair term and
// its cutoff), the velocity-Verlet updates and the per-atom sums. No loops,
// no launches.
#include "pair_style.hpp"
#include "pair_term.hpp"
#include <mpsfw/core/base/hd.hpp>

namespace mpsfw::md {

// Velocity Verlet, split as kick (v += dt/2 F/m), drift (x += dt v), kick.
MPSFW_HD double kicked(double v, double f, double half_dt, double mass) {
  return v + half_dt * f / mass;
}
MPSFW_HD double drifted(double x, double v, double dt) { return x + dt * v; }

// Kinetic energy m v^2 / 2 of one atom.
MPSFW_HD double kinetic_energy(double vx, double vy, double vz, double mass) {
  return 0.5 * mass * (vx * vx + vy * vy + vz * vz);
}

}  // namespace mpsfw::md
