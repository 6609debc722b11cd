#pragma once
// Physics of the 3D scalar wave equation, shared by every backend.
//
//   u_tt = c^2 (u_xx + u_yy + u_zz)
//
// In space, the 4th-order central second difference along each axis,
//
//   u_xx ~ (-u[i-2] + 16 u[i-1] - 30 u[i] + 16 u[i+1] - u[i+2]) / (12 dx^2),
//
// exact for polynomials up to degree 5 (its error is -dx^4/90 u_xxxxxx), so a
// block needs a halo two cells wide. In time, leapfrog:
//
//   u^{n+1} = 2 u^n - u^{n-1} + (c dt)^2 L4(u^n).
//
// c: wave speed [m/s]; dt [s]; dx, dy, dz: cell spacing [m]. Cell centres sit
// at x = (g + 0.5) dx for global cell g, in a box of length L = n dx.
//
// Stability: the stencil's most negative eigenvalue (the grid's sawtooth
// mode) is -16 / (3 h^2) per axis, and leapfrog stays bounded while
// (c dt)^2 times the Laplacian's eigenvalues stays within [-4, 0]:
//
//   (c dt)^2 * sum_d 16 / (3 h_d^2) <= 4.
#include <cmath>
#include <cstdint>

#include <mpsfw/core/base/hd.hpp>

namespace wave {

// Weight of the 4th-order second difference per axis: s / (12 h^2). With
// s = (c dt)^2 (dimensionless weights) the weighted Laplacian is the leapfrog
// increment; with s = 1 [1/m^2] it is the Laplacian itself.
struct Coefficients {
  double wx = 0, wy = 0, wz = 0;
};

inline Coefficients scaled_coefficients(double s, const double spacing[3]) {
  return {s / (12.0 * spacing[0] * spacing[0]), s / (12.0 * spacing[1] * spacing[1]),
          s / (12.0 * spacing[2] * spacing[2])};
}
// (c dt)^2 / (12 h^2) per axis: what every backend's update takes.
inline Coefficients leapfrog_coefficients(double speed, double dt, const double spacing[3]) {
  return scaled_coefficients((speed * dt) * (speed * dt), spacing);
}
// 1 / (12 h^2) per axis: weighted_laplacian() is then L4(u) [u/m^2].
inline Coefficients laplacian_coefficients(const double spacing[3]) {
  return scaled_coefficients(1.0, spacing);
}

// Largest stable dt [s]: (c dt)^2 sum_d 16 / (3 h_d^2) = 4.
inline double max_stable_dt(double speed, const double spacing[3]) {
  double sum = 0;
  for (int d = 0; d < 3; ++d) sum += 16.0 / (3.0 * spacing[d] * spacing[d]);
  return 2.0 / (speed * std::sqrt(sum));
}

// 12 h^2 u'' at the middle of five points one cell apart. Mirror pairs are
// added first: the result is then the same read left to right or right to
// left, and the large terms cancel before the small ones are added.
MPSFW_HD double second_difference4(double m2, double m1, double c, double p1, double p2) {
  return (16.0 * (m1 + p1) - (m2 + p2)) - 30.0 * c;
}

// The three axes' second differences at cell `c` of a field with y and z
// strides sy, sz, weighted and summed in one fixed order (x, y, z) so that
// every backend and every decomposition produce the same bits (builds
// disable FMA contraction).
MPSFW_HD double weighted_laplacian(const double* u, std::int64_t c, std::int64_t sy,
                                   std::int64_t sz, Coefficients k) {
  const double dxx = second_difference4(u[c - 2], u[c - 1], u[c], u[c + 1], u[c + 2]);
  const double dyy = second_difference4(u[c - 2 * sy], u[c - sy], u[c], u[c + sy], u[c + 2 * sy]);
  const double dzz = second_difference4(u[c - 2 * sz], u[c - sz], u[c], u[c + sz], u[c + 2 * sz]);
  return (k.wx * dxx + k.wy * dyy) + k.wz * dzz;
}

// u^{n+1} = 2 u^n - u^{n-1} + (c dt)^2 L4(u^n), given the last term.
MPSFW_HD double leapfrog_value(double u, double u_prev, double increment) {
  return (2.0 * u - u_prev) + increment;
}

// u^{n+1} at cell `c`: reads u^n around the cell and u^{n-1} at the cell only,
// so u^{n+1} may overwrite u^{n-1} in place.
MPSFW_HD double leapfrog_cell(const double* u, const double* u_prev, std::int64_t c,
                              std::int64_t sy, std::int64_t sz, Coefficients k) {
  return leapfrog_value(u[c], u_prev[c], weighted_laplacian(u, c, sy, sz, k));
}

// Initial conditions and the analytic solution they are checked against.

inline double cell_centre(int g, double h) { return (g + 0.5) * h; }

// The standing wave with one full period across each side of a periodic box
// of lengths L [m]: wavenumbers k_d = 2 pi / L_d [1/m].
inline void mode_wavenumbers(const double length[3], double k[3]) {
  const double two_pi = 6.283185307179586476925;
  for (int d = 0; d < 3; ++d) k[d] = two_pi / length[d];
}
// Its angular frequency omega = c |k| [1/s].
inline double mode_frequency(double speed, const double k[3]) {
  return speed * std::sqrt(k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
}
// Its shape amplitude * sin(kx x) sin(ky y) sin(kz z); the exact solution is
// this times cos(omega t).
inline double mode_shape(const double x[3], const double k[3], double amplitude) {
  return amplitude * std::sin(k[0] * x[0]) * std::sin(k[1] * x[1]) * std::sin(k[2] * x[2]);
}

// A Gaussian pulse of width w [m] centred at c: amplitude * exp(-|x-c|^2 / (2 w^2)).
inline double gaussian_pulse(const double x[3], const double c[3], double w, double amplitude) {
  double r2 = 0;
  for (int d = 0; d < 3; ++d) r2 += (x[d] - c[d]) * (x[d] - c[d]);
  return amplitude * std::exp(-r2 / (2.0 * w * w));
}

}  // namespace wave
