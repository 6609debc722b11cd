#pragma once
// Allen-Cahn, dphi/dt = M (eps^2 lap(phi) - (phi^3 - phi)), periodic, 2D or
// 3D: 7-point Laplacian, explicit Euler into a scratch level, written once.
#include <cmath>
#include <vector>

#include <mpsfw/core/driver/grid_solver.hpp>
#include <mpsfw/core/grid/grid_loops.hpp>

namespace allen_cahn {

struct Coefficients {
  double w = 0, dt_m = 0;  // dt M eps^2 / h^2, dt M
};

enum Field { kPhi, kPhiNext };  // the model's declaration order

// phi's next value at cell c (neighbour strides sy, sz: 0 along a flat axis),
// the terms in one fixed order: the same bits on every backend and rank count.
MPSFW_HD double next_phi(const double* phi, std::int64_t c, std::int64_t sy, std::int64_t sz,
                         Coefficients k) {
  const double p = phi[c];
  const double lap =
      (((phi[c - 1] - 2.0 * p) + phi[c + 1]) + ((phi[c - sy] - 2.0 * p) + phi[c + sy])) +
      ((phi[c - sz] - 2.0 * p) + phi[c + sz]);
  return p + (k.w * lap - k.dt_m * ((p * p - 1.0) * p));
}

template <class Exec>
class Kernels final : public mpsfw::GridKernelsOn<Exec> {
 public:
  explicit Kernels(const Coefficients& k) : k_(k) {}
  void update(const mpsfw::GridArrays& a, const mpsfw::Box& cells) override {
    const double* phi = a.field[kPhi];
    double* next = a.field[kPhiNext];
    const std::int64_t sy = a.layout.neighbour_stride(1), sz = a.layout.neighbour_stride(2);
    const Coefficients k = k_;
    mpsfw::for_each_cell(
        exec, a.layout, cells,
        MPSFW_LAMBDA(std::int64_t c, int, int, int) { next[c] = next_phi(phi, c, sy, sz, k); });
  }

 private:
  using mpsfw::GridKernelsOn<Exec>::exec;
  Coefficients k_;
};

}  // namespace allen_cahn
