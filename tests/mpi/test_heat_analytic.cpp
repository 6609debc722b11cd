// The sine initial mode decays like the analytic solution exp(-alpha |k|^2 t),
// and the error falls at second order as the grid is refined (dt follows h^2,
// so the time error is second order in h too).
#include <gtest/gtest.h>

#include <cmath>

#include "support/heat_runs.hpp"

namespace mpsfw {
namespace {

using testing_support::heat_config;
using testing_support::run_and_gather;
using testing_support::world_rank;

// Max-norm error at t_end, relative to the analytic amplitude at t_end, for n^3
// cells in a unit cube (Dirichlet walls at 0), alpha = 1.
double sine_error(int n) {
  const double h = 1.0 / (n + 1), t_end = 0.01;
  const long steps = static_cast<long>(std::ceil(t_end / (0.1 * h * h)));
  const std::string hs = std::to_string(h);
  char spacing[64], dt[64];
  std::snprintf(spacing, sizeof spacing, "%.17g", h);
  std::snprintf(dt, sizeof dt, "%.17g", t_end / static_cast<double>(steps));
  const heat::HeatConfig c = heat_config(
      {"heat.nx=" + std::to_string(n), "heat.ny=" + std::to_string(n),
       "heat.nz=" + std::to_string(n), std::string("heat.dx=") + spacing,
       std::string("heat.dy=") + spacing, std::string("heat.dz=") + spacing, "heat.diffusivity=1",
       std::string("heat.dt=") + dt, "run.steps=" + std::to_string(steps)});
  const std::vector<double> u = run_and_gather(c, MPI_COMM_WORLD, Backend::Auto);
  double error = 0;
  if (world_rank() == 0) {
    const double k = heat::sine_wavenumber(1.0, heat::Boundary::Dirichlet);
    const double kv[3] = {k, k, k};
    const double decay = heat::sine_decay(kv, 1.0, t_end);
    size_t t = 0;
    for (int kz = 0; kz < n; ++kz)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const double exact =
              heat::sine_mode((i + 1) * h, (j + 1) * h, (kz + 1) * h, kv, 1.0) * decay;
          error = std::max(error, std::fabs(u[t++] - exact));
        }
    error /= decay;
  }
  MPI_Bcast(&error, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return error;
}

TEST(HeatAnalytic, SineModeConvergesAtSecondOrder) {
  const double e16 = sine_error(16), e32 = sine_error(32), e64 = sine_error(64);
  if (world_rank() == 0) {
    std::printf(
        "sine-mode relative max error: n=16 %.3e, n=32 %.3e, n=64 %.3e; "
        "orders %.2f, %.2f\n",
        e16, e32, e64, std::log2(e16 / e32), std::log2(e32 / e64));
  }
  EXPECT_LT(e16, 2e-3);  // the solution is close to the analytic one at all
  EXPECT_GT(std::log2(e16 / e32), 1.8);
  EXPECT_GT(std::log2(e32 / e64), 1.8);
  EXPECT_LT(std::log2(e32 / e64), 2.2);
}

}  // namespace
}  // namespace mpsfw
