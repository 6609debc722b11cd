#pragma once
// The Brownian example's physics, per particle and per pair, for the host and
// the device alike (MPSFW_HD): overdamped Langevin dynamics of soft spheres,
//   x(t + dt) = x + dt / gamma * F + sqrt(2 kT dt / gamma) * xi,
// F the sum of the pair forces of U(r) = epsilon (1 - r / sigma)^2 (r < sigma,
// 0 beyond), xi standard normal from a counter-based hash of (seed, particle
// id, step, component): the noise does not depend on the rank count or on the
// particles' order in memory. Units: lengths in sigma's unit, energies in
// epsilon's, time in gamma sigma^2 / epsilon's.
#include <cmath>
#include <cstdint>

#include <mpsfw/core/base/hd.hpp>

namespace brownian {

struct Physics {
  double sigma = 1;    // particle diameter: the pair's range
  double epsilon = 1;  // energy of a full overlap, U(0)
  double kT = 1;       // thermal energy
  double gamma = 1;    // friction coefficient, force / velocity
  double dt = 1e-4;    // time step
  std::uint64_t seed = 1;
};

// splitmix64's finaliser: a bijection of 64-bit words that mixes every bit.
MPSFW_HD std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A uniform number in (0, 1) from the top 53 bits (never 0: log is finite).
MPSFW_HD double open_uniform(std::uint64_t bits) {
  return (static_cast<double>(bits >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

// The hash of a key (seed, id, step, component), each folded in turn.
MPSFW_HD std::uint64_t noise_key(std::uint64_t seed, std::int64_t id, std::int64_t step,
                                 int component) {
  std::uint64_t h = splitmix64(seed);
  h = splitmix64(h ^ static_cast<std::uint64_t>(id));
  h = splitmix64(h ^ static_cast<std::uint64_t>(step));
  return splitmix64(h ^ static_cast<std::uint64_t>(component));
}

// Standard normal xi for (seed, id, step, component): Box-Muller of two
// uniforms, u1 from the key's hash and u2 from its hash again,
//   xi = sqrt(-2 ln u1) cos(2 pi u2).
MPSFW_HD double gaussian(std::uint64_t seed, std::int64_t id, std::int64_t step, int component) {
  const std::uint64_t h1 = noise_key(seed, id, step, component);
  const double u1 = open_uniform(h1), u2 = open_uniform(splitmix64(h1));
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

// A pair at separation dx = x_i - x_j (squared distance r2) within sigma:
// the energy U(r) and -U'(r) / r, so that the force on i is f_over_r * dx.
struct PairTerm {
  double energy;
  double f_over_r;
};

// U(r) = epsilon (1 - r/sigma)^2 and F = -U'(r) = 2 epsilon (1 - r/sigma) / sigma,
// for 0 < r < sigma; {0, 0} beyond (and at r = 0, where no direction exists).
MPSFW_HD PairTerm soft_pair(double r2, const Physics& p) {
  if (!(r2 < p.sigma * p.sigma) || r2 == 0) return {0, 0};
  const double r = sqrt(r2), overlap = 1 - r / p.sigma;
  return {p.epsilon * overlap * overlap, 2 * p.epsilon * overlap / (p.sigma * r)};
}

// f(dx, pair) for a pair within sigma: xi and xj are 4-double positions.
template <class F>
MPSFW_HD void with_pair_in_range(const double* xi, const double* xj, const Physics& p, F f) {
  double dx[3], r2 = 0;
  for (int d = 0; d < 3; ++d) {
    dx[d] = xi[d] - xj[d];
    r2 += dx[d] * dx[d];
  }
  const PairTerm t = soft_pair(r2, p);
  if (t.f_over_r != 0) f(dx, t);
}

// One component of the Euler-Maruyama step of the overdamped Langevin
// equation: x + dt / gamma * f + sqrt(2 kT dt / gamma) * xi.
MPSFW_HD double moved(double x, double f, double xi, const Physics& p) {
  return x + p.dt / p.gamma * f + sqrt(2 * p.kT * p.dt / p.gamma) * xi;
}

// The starting position of lattice site `id` of an n^3 simple cubic lattice
// of spacing a along `component`: the site's centre plus a jitter of at most
// a tenth of a, from the same hash as the noise (step -1).
MPSFW_HD double lattice_position(std::int64_t id, int n, double a, int component,
                                 std::uint64_t seed) {
  std::int64_t index = id;
  for (int d = 0; d < component; ++d) index /= n;
  const double site = static_cast<double>(index % n) + 0.5;
  const double jitter = 0.2 * (open_uniform(noise_key(seed, id, -1, component)) - 0.5);
  return (site + jitter) * a;
}

}  // namespace brownian
