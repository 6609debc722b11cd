#pragma once
// Lennard-Jones 12-6 physics in reduced units (epsilon, sigma, mass = 1 unless
// the input says otherwise), shared by every backend: the pair interaction,
// the velocity-Verlet updates and the per-atom sums. No loops, no launches.
#include <cmath>

#include "core/base/hd.hpp"

namespace mpsfw::md {

struct LjParams {
  double epsilon = 1;   // well depth, energy unit
  double sigma = 1;     // zero-crossing distance, length unit
  double cutoff = 2.5;  // r_c, in length units (not in sigma)
  double mass = 1;
  double shift = 0;  // U(r_c) before shifting: the energy is U(r) - U(r_c)
};

// U(r) = 4 eps ((sigma/r)^12 - (sigma/r)^6), unshifted, for r^2 = r2.
MPSFW_HD double lj_energy_unshifted(double r2, const LjParams& p) {
  const double s2 = p.sigma * p.sigma / r2;
  const double s6 = s2 * s2 * s2;
  return 4 * p.epsilon * (s6 * s6 - s6);
}

MPSFW_HD LjParams with_energy_shift(LjParams p) {
  p.shift = lj_energy_unshifted(p.cutoff * p.cutoff, p);
  return p;
}

// For a pair at distance^2 r2 < r_c^2: F_i = f_over_r * (x_i - x_j) with
// f_over_r = -dU/dr / r = 24 eps (2 (sigma/r)^12 - (sigma/r)^6) / r^2,
// and the shifted pair energy U(r) - U(r_c). Zero beyond the cutoff.
struct PairTerm {
  double f_over_r = 0;
  double energy = 0;
};

MPSFW_HD PairTerm lj_pair(double r2, const LjParams& p) {
  PairTerm t;
  if (r2 >= p.cutoff * p.cutoff || r2 <= 0) return t;
  const double inverse_r2 = 1 / r2;  // one division per pair
  const double s2 = p.sigma * p.sigma * inverse_r2;
  const double s6 = s2 * s2 * s2;
  t.f_over_r = 24 * p.epsilon * (2 * s6 * s6 - s6) * inverse_r2;
  t.energy = 4 * p.epsilon * (s6 * s6 - s6) - p.shift;
  return t;
}

// The pair of an atom at xi with a neighbour at xj (x, y, z each): calls
// pair(dx, r2, term), dx = xi - xj, when they lie within the cutoff; nothing
// beyond it (lj_pair would give zero). Every store's pair loops go through
// it, in list order, so that they agree bit for bit.
template <class Pair>
MPSFW_HD void with_pair_in_cutoff(const double* xi, const double* xj, const LjParams& p,
                                  const Pair& pair) {
  const double dx[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
  const double r2 = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2];
  if (r2 >= p.cutoff * p.cutoff) return;
  pair(dx, r2, lj_pair(r2, p));
}

// Velocity Verlet, split as kick (v += dt/2 F/m), drift (x += dt v), kick.
MPSFW_HD double kicked(double v, double f, double half_dt, const LjParams& p) {
  return v + half_dt * f / p.mass;
}
MPSFW_HD double drifted(double x, double v, double dt) { return x + dt * v; }

// Kinetic energy m v^2 / 2 of one atom.
MPSFW_HD double kinetic_energy(double vx, double vy, double vz, const LjParams& p) {
  return 0.5 * p.mass * (vx * vx + vy * vy + vz * vz);
}

}  // namespace mpsfw::md
