#pragma once
// Allen-Cahn phase field on a periodic box, 2D (nz = 1) or 3D:
//   dphi/dt = M (eps^2 lap(phi) - (phi^3 - phi))
// 7-point Laplacian, explicit Euler into a scratch level swapped with phi;
// the kernels written once over the framework's grid loops.
#include <cmath>
#include <mpsfw/core/driver/grid_solver.hpp>
#include <mpsfw/core/grid/grid_loops.hpp>
#include <vector>

namespace allen_cahn {

struct Coefficients {
  double wx = 0, wy = 0, wz = 0;  // dt M eps^2 / h^2 per axis
  double dt_m = 0;                // dt M
};

enum Field { kPhi, kPhiNext };  // the model's declaration order

// phi at the next step at cell c (y, z strides sy, sz); the terms in one fixed
// order, so every backend and rank count give the same bits.
MPSFW_HD double next_phi(const double* phi, std::int64_t c, std::int64_t sy, std::int64_t sz,
                         Coefficients k) {
  const double p = phi[c];
  const double lap = (k.wx * ((phi[c - 1] - 2.0 * p) + phi[c + 1]) +
                      k.wy * ((phi[c - sy] - 2.0 * p) + phi[c + sy])) +
                     k.wz * ((phi[c - sz] - 2.0 * p) + phi[c + sz]);
  return p + (lap - k.dt_m * ((p * p - 1.0) * p));
}

template <class Exec>
class Kernels final : public mpsfw::GridKernelsOn<Exec> {
 public:
  explicit Kernels(const Coefficients& k) : k_(k) {}
  void update(const mpsfw::GridArrays& a) override {
    const double* phi = a.field[kPhi];
    double* next = a.field[kPhiNext];
    const std::int64_t sy = a.layout.neighbour_stride(1), sz = a.layout.neighbour_stride(2);
    const Coefficients k = k_;
    mpsfw::for_each_cell(
        exec, a.layout, a.layout.interior(),
        MPSFW_LAMBDA(std::int64_t c, int, int, int) { next[c] = next_phi(phi, c, sy, sz, k); });
  }

 private:
  using mpsfw::GridKernelsOn<Exec>::exec;
  Coefficients k_;
};

}  // namespace allen_cahn
