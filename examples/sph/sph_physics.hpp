#pragma once
// The SPH example's physics, per particle and per pair, for the host and the
// device alike (MPSFW_HD): weakly compressible SPH of a Newtonian fluid in a
// periodic box,
//   rho_i = sum_j m W(r_ij)                                (self included)
//   P_i   = c0^2 (rho_i - rho0) + p_background
//   dv_i/dt = - sum_j m (P_i / rho_i^2 + P_j / rho_j^2) grad_i W_ij
//             + sum_j m nu (rho_i + rho_j) / (rho_i rho_j)
//                   * (x_ij . grad_i W_ij) / (r_ij^2 + eta^2) v_ij
// (the pressure gradient, and Morris et al.'s laminar viscosity, mu = rho nu),
// and each step's drift x += dt v followed by Lind et al.'s particle shift
//   dx_i = -A h |v_i| dt grad C_i,   grad C_i = sum_j m / rho_j grad_i W_ij
// which keeps particles from clustering along the flow's stagnation lines,
// x_ij = x_i - x_j, v_ij = v_i - v_j, W the Wendland C2 kernel of smoothing
// length h (support 2h). Its validation case is the Taylor-Green vortex
//   u =  U sin(k x) cos(k y),  v = -U cos(k x) sin(k y),  w = 0,  k = 2 pi / L,
// whose kinetic energy decays as exp(-4 nu k^2 t).
#include <cmath>

#include <mpsfw/core/base/hd.hpp>

namespace sph {

struct Physics {
  double h = 1;             // smoothing length (the kernel reaches 2h)
  double mass = 1;          // of every particle: the lattice's summed density is rho0
  double rho0 = 1;          // reference density
  double c0 = 10;           // artificial speed of sound
  double nu = 0.01;         // kinematic viscosity
  double p_background = 0;  // added to every pressure
  double shifting = 2;      // A of the particle shift -A h |v| dt grad C (0: none)
  double dt = 1e-3;         // time step
};

constexpr double kPi = 3.141592653589793;

// Wendland C2 in 3D, q = r / h in [0, 2]:
//   W(r)  = 21 / (16 pi h^3) (1 - q/2)^4 (2q + 1)
//   W'(r) = 21 / (16 pi h^4) (-5 q) (1 - q/2)^3
MPSFW_HD double kernel(double r, double h) {
  const double q = r / h;
  if (!(q < 2)) return 0;
  const double s = 1 - 0.5 * q;
  return 21.0 / (16.0 * kPi * h * h * h) * s * s * s * s * (2 * q + 1);
}
MPSFW_HD double kernel_slope(double r, double h) {
  const double q = r / h;
  if (!(q < 2)) return 0;
  const double s = 1 - 0.5 * q;
  return -5.0 * 21.0 / (16.0 * kPi * h * h * h * h) * q * s * s * s;
}

MPSFW_HD double pressure(double rho, const Physics& p) {
  return p.c0 * p.c0 * (rho - p.rho0) + p.p_background;
}

// Particle j's share of rho_i at squared distance r2.
MPSFW_HD double density_term(double r2, const Physics& p) { return p.mass * kernel(sqrt(r2), p.h); }

// Particle j's share of dv_i/dt in term[3], for a pair within 2h (else
// false, term untouched): dx = x_i - x_j (squared length r2), dv = v_i - v_j,
// rho and P of both.
MPSFW_HD bool acceleration_term(const double dx[3], double r2, const double dv[3], double rho_i,
                                double p_i, double rho_j, double p_j, const Physics& p,
                                double term[3]) {
  if (!(r2 < 4 * p.h * p.h) || r2 == 0) return false;
  const double r = sqrt(r2), slope = kernel_slope(r, p.h);  // grad_i W = slope dx / r
  const double push = -p.mass * (p_i / (rho_i * rho_i) + p_j / (rho_j * rho_j)) * slope / r;
  const double eta2 = 0.01 * p.h * p.h;
  const double drag = p.mass * p.nu * (rho_i + rho_j) / (rho_i * rho_j) * r * slope / (r2 + eta2);
  for (int d = 0; d < 3; ++d) term[d] = push * dx[d] + drag * dv[d];
  return true;
}

// Particle j's share of grad C_i in term[3], for a pair within 2h (else
// false): dx = x_i - x_j (squared length r2), rho_j j's density.
MPSFW_HD bool concentration_gradient_term(const double dx[3], double r2, double rho_j,
                                          const Physics& p, double term[3]) {
  if (!(r2 < 4 * p.h * p.h) || r2 == 0) return false;
  const double r = sqrt(r2), scale = p.mass / rho_j * kernel_slope(r, p.h) / r;
  for (int d = 0; d < 3; ++d) term[d] = scale * dx[d];
  return true;
}

// The shift of a particle of velocity v (3) and concentration gradient g (3).
MPSFW_HD void shift(const double v[3], const double g[3], const Physics& p, double dx[3]) {
  const double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  for (int d = 0; d < 3; ++d) dx[d] = -p.shifting * p.h * speed * p.dt * g[d];
}

// The Taylor-Green vortex's velocity at (x, y) in a box of side L, amplitude U.
MPSFW_HD void taylor_green(double x, double y, double L, double U, double v[3]) {
  const double k = 2 * kPi / L;
  v[0] = U * sin(k * x) * cos(k * y);
  v[1] = -U * cos(k * x) * sin(k * y);
  v[2] = 0;
}

// Its kinetic energy relative to t = 0 at time t.
inline double taylor_green_decay(double t, double L, double nu) {
  const double k = 2 * kPi / L;
  return std::exp(-4 * nu * k * k * t);
}

}  // namespace sph
