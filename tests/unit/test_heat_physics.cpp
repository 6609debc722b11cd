// The shared per-cell physics: stability limit, and the discrete sine mode
// being an eigenvector of one FTCS step (so the update really is the 7-point
// Laplacian with the documented coefficients).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <mpsfw/core/mesh/field_layout.hpp>
#include <mpsfw/solvers/heat/heat_physics.hpp>

namespace mpsfw::heat {
namespace {

TEST(HeatPhysics, StableDtIsTheFtcsLimit) {
  const double dt = max_stable_dt(2.0, 0.1, 0.2, 0.4);
  const Coefficients k = coefficients(2.0, dt, 0.1, 0.2, 0.4);
  EXPECT_NEAR(k.cx + k.cy + k.cz, 0.5, 1e-15);
  EXPECT_NEAR(dt, 1.0 / (2 * 2.0 * (100.0 + 25.0 + 6.25)), 1e-15);
}

TEST(HeatPhysics, UniformFieldStaysUniform) {
  const FieldLayout layout({3, 3, 3});
  std::vector<double> u(static_cast<size_t>(layout.size()), 7.25);
  const Coefficients k = coefficients(1.0, 0.1, 1.0, 1.0, 1.0);
  EXPECT_EQ(updated_cell(u.data(), layout.index(2, 2, 2), layout.stride_y(), layout.stride_z(), k),
            7.25);
}

TEST(HeatPhysics, SineModeDecaysByTheDiscreteEigenvalueFactor) {
  const int n = 9;
  const double h = 0.1;
  const FieldLayout layout({n, n, n});
  const double length = domain_length(n, h, Boundary::Dirichlet);
  const double kw = sine_wavenumber(length, Boundary::Dirichlet);
  const double kv[3] = {kw, kw, kw};
  std::vector<double> u(static_cast<size_t>(layout.size()), 0.0);  // walls at 0
  for (int k = 1; k <= n; ++k)
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) {
        u[static_cast<size_t>(layout.index(i, j, k))] = sine_mode(
            coordinate(i - 1, h, Boundary::Dirichlet), coordinate(j - 1, h, Boundary::Dirichlet),
            coordinate(k - 1, h, Boundary::Dirichlet), kv, 1.0);
      }
  const double alpha = 0.5, dt = 0.8 * max_stable_dt(alpha, h, h, h);
  const Coefficients c = coefficients(alpha, dt, h, h, h);
  // One step multiplies the mode by 1 - 4 (cx+cy+cz) sin^2(k h / 2).
  const double s = std::sin(kw * h / 2);
  const double factor = 1.0 - 4.0 * (c.cx + c.cy + c.cz) * s * s;
  for (int k = 1; k <= n; ++k)
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) {
        const auto at = layout.index(i, j, k);
        EXPECT_NEAR(updated_cell(u.data(), at, layout.stride_y(), layout.stride_z(), c),
                    factor * u[static_cast<size_t>(at)], 1e-14);
      }
}

TEST(HeatPhysics, GaussianPeaksAtItsCentre) {
  const double c[3] = {0.5, 0.5, 0.5};
  EXPECT_DOUBLE_EQ(gaussian_bump(0.5, 0.5, 0.5, c, 0.1, 3.0), 3.0);
  EXPECT_NEAR(gaussian_bump(0.6, 0.5, 0.5, c, 0.1, 1.0), std::exp(-0.5), 1e-12);
}

}  // namespace
}  // namespace mpsfw::heat
