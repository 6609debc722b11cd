#pragma once
// Physics of the explicit 3D heat equation, shared by every backend.
//
//   du/dt = alpha * (d2u/dx2 + d2u/dy2 + d2u/dz2)
//
// discretised with the 7-point Laplacian and forward Euler (FTCS):
//
//   u'(i,j,k) = u + cx (u[i-1] - 2u + u[i+1]) + cy (...) + cz (...),
//   cx = alpha dt / dx^2 (dimensionless), likewise cy, cz.
//
// alpha: diffusivity [m^2/s]; dt [s]; dx, dy, dz: cell spacing [m].
// Grid points: with Dirichlet boundaries the n points of a dimension sit at
// x = (g+1) dx, g = 0..n-1, inside a domain of length L = (n+1) dx whose walls
// (x = 0 and x = L) hold the boundary value; with periodic boundaries they sit
// at x = g dx and L = n dx.
#include <cmath>
#include <cstdint>

#include <mpsfw/core/base/hd.hpp>

namespace mpsfw::heat {

struct Coefficients {
  double cx = 0, cy = 0, cz = 0;  // alpha dt / h^2 per dimension
};

inline Coefficients coefficients(double alpha, double dt, double dx, double dy, double dz) {
  return {alpha * dt / (dx * dx), alpha * dt / (dy * dy), alpha * dt / (dz * dz)};
}

// Largest dt for which FTCS is stable: cx + cy + cz <= 1/2.
inline double max_stable_dt(double alpha, double dx, double dy, double dz) {
  return 1.0 / (2.0 * alpha * (1.0 / (dx * dx) + 1.0 / (dy * dy) + 1.0 / (dz * dz)));
}

// One cell's new value from its own value and its six neighbours. The sum is
// written out in one fixed order so every backend and every decomposition
// produce the same bits (builds disable FMA contraction).
MPSFW_HD double updated_value(double uc, double xm, double xp, double ym, double yp, double zm,
                              double zp, Coefficients k) {
  const double lap_x = (xm - 2.0 * uc) + xp;
  const double lap_y = (ym - 2.0 * uc) + yp;
  const double lap_z = (zm - 2.0 * uc) + zp;
  return uc + ((k.cx * lap_x + k.cy * lap_y) + k.cz * lap_z);
}

// The same, reading cell `c` of a field with y and z strides sy, sz.
MPSFW_HD double updated_cell(const double* u, std::int64_t c, std::int64_t sy, std::int64_t sz,
                             Coefficients k) {
  return updated_value(u[c], u[c - 1], u[c + 1], u[c - sy], u[c + sy], u[c - sz], u[c + sz], k);
}

enum class Boundary { Dirichlet, Periodic };

// Coordinate of global grid index g and the domain length, per the header comment.
inline double coordinate(int g, double h, Boundary b) {
  return b == Boundary::Dirichlet ? (g + 1) * h : g * h;
}
inline double domain_length(int n, double h, Boundary b) {
  return b == Boundary::Dirichlet ? (n + 1) * h : n * h;
}

// The slowest sine mode that fits the boundaries: zero on Dirichlet walls,
// one full period across a periodic domain. Its wavenumber per dimension:
inline double sine_wavenumber(double length, Boundary b) {
  const double pi = 3.14159265358979323846;
  return (b == Boundary::Dirichlet ? pi : 2.0 * pi) / length;
}

// Initial sine mode: amplitude * sin(kx x) sin(ky y) sin(kz z).
inline double sine_mode(double x, double y, double z, const double k[3], double amplitude) {
  return amplitude * std::sin(k[0] * x) * std::sin(k[1] * y) * std::sin(k[2] * z);
}

// Exact solution of the continuous equation for the sine mode: it decays as
// exp(-alpha |k|^2 t).
inline double sine_decay(const double k[3], double alpha, double t) {
  return std::exp(-alpha * (k[0] * k[0] + k[1] * k[1] + k[2] * k[2]) * t);
}

// Initial Gaussian bump of width w [m] centred at c: amplitude * exp(-|r-c|^2 / (2 w^2)).
inline double gaussian_bump(double x, double y, double z, const double c[3], double w,
                            double amplitude) {
  const double r2 = (x - c[0]) * (x - c[0]) + (y - c[1]) * (y - c[1]) + (z - c[2]) * (z - c[2]);
  return amplitude * std::exp(-r2 / (2.0 * w * w));
}

}  // namespace mpsfw::heat
