// allen_cahn_solver: the Allen-Cahn example behind mpsfw's solver command line
// (allen_cahn_solver IN.h5 [--set key=value ...] [--backend host|cuda|kokkos]):
// its keys (group /ac), the grid model mpsfw steps, and main.
#include <cmath>
#include <vector>

#include "allen_cahn_kernels.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>
#include <mpsfw/core/device/backend_factory.hpp>
#include <mpsfw/core/driver/grid_workload.hpp>
#include <mpsfw/core/grid/grid_state.hpp>
#include <mpsfw/core/input/grid_keys.hpp>
#include <mpsfw/runtime/solver_main.hpp>

namespace allen_cahn {

std::vector<mpsfw::ParamSpec> keys() {
  using mpsfw::real_param;
  return mpsfw::cell_keys(
      "ac", {real_param("ac", "h", false, "1", 0, true, "cell spacing, m"),
             real_param("ac", "epsilon", false, "1", 0, true, "interface width eps, m"),
             real_param("ac", "mobility", false, "1", 0, true, "M, 1/s"),
             real_param("ac", "dt", true, "", 0, true, "time step, s"),
             real_param("ac", "mean", false, "0", -1, false, "the initial phi's mean", 1),
             real_param("ac", "noise", false, "0.1", 0, false, "amplitude of its noise", 1)});
}

// A number in [-1, 1) from the global cell g (the same field on any rank count).
double noise_at(mpsfw::Int3 g) {
  const double s = 43758.5453 * std::sin(12.9898 * g.x + 78.233 * g.y + 37.719 * g.z);
  return 2.0 * (s - std::floor(s)) - 1.0;
}

mpsfw::GridModel model_of(const mpsfw::Params& p) {
  const mpsfw::Int3 n = mpsfw::cells_of(p, "ac");
  const double h = p.real("ac.h"), eps = p.real("ac.epsilon"), dt = p.real("ac.dt");
  const double dt_m = dt * p.real("ac.mobility"), w = dt_m * eps * eps / (h * h);
  const double limit = dt / (2 * (n.z > 1 ? 3 : 2) * w + 2 * dt_m);
  if (dt > limit) {
    throw mpsfw::InputError(p.value("ac.dt").origin + ": ac.dt = " + mpsfw::short_number(dt) +
                            " is unstable; the largest stable dt is " + mpsfw::short_number(limit) +
                            " = 1 / (M (2 eps^2 d / h^2 + 2))");
  }
  mpsfw::GridModel m;
  m.group = "ac";
  m.cells = n;
  m.periodic = {true, true, true};
  m.geometry.spacing = {h, h, h};
  m.dt = dt;
  m.fields = {mpsfw::exchanged_field("phi"), mpsfw::scratch_field("phi_next")};
  m.swaps = {{"phi", "phi_next"}};
  m.diagnostics = {mpsfw::sum_of("phi_integral", "phi", h * h * (n.z > 1 ? h : 1)),
                   mpsfw::max_abs_of("max_abs_phi", "phi")};
  m.initial = [mean = p.real("ac.mean"), noise = p.real("ac.noise")](
                  mpsfw::Int3 offset, const mpsfw::FieldLayout& layout) {
    return std::vector<std::vector<double>>{
        mpsfw::block_of(layout, offset, [&](mpsfw::Int3 g) { return mean + noise * noise_at(g); })};
  };
  m.kernels = [k = Coefficients{w, dt_m}](mpsfw::Backend b) {
    return mpsfw::make_part<Kernels, mpsfw::GridKernels, AC_HAVE_CUDA, AC_HAVE_KOKKOS>(
        b, "allen_cahn's kernels", k);
  };
  m.cell_keys = mpsfw::cell_key_names("ac");
  return m;
}

}  // namespace allen_cahn

int main(int argc, char** argv) {
  return mpsfw::solver_main(
      argc, argv,
      mpsfw::grid_workload(
          {"allen_cahn",
           "Allen-Cahn phase field, explicit Euler, periodic 2D or 3D (groups /ac)",
           allen_cahn::keys(),
           {"run.steps=100", "ac.nx=64", "ac.ny=64", "ac.nz=1", "ac.dt=0.05"},
           allen_cahn::model_of,
           mpsfw::backends_built(AC_HAVE_CUDA, AC_HAVE_KOKKOS)}),
      "allen_cahn_solver");
}
