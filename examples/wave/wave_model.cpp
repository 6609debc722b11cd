#include "wave_model.hpp"

#include <utility>
#include <vector>

#include <mpsfw/core/device/backend_factory.hpp>
#include <mpsfw/core/driver/grid_workload.hpp>
#include <mpsfw/core/input/grid_keys.hpp>

#include "wave_initial.hpp"

namespace wave {

template <class Exec>
class WaveKernels;  // wave_kernels.cpp

std::unique_ptr<mpsfw::GridKernels> kernels_for(mpsfw::Backend backend, const Coefficients& k) {
  return mpsfw::make_part<WaveKernels, mpsfw::GridKernels, WAVE_HAVE_CUDA, WAVE_HAVE_KOKKOS>(
      backend, "wave's kernels", k);
}

mpsfw::GridModel wave_model(const WaveConfig& c) {
  mpsfw::GridModel m;
  m.group = "wave";
  m.cells = c.cells;
  const bool periodic = c.boundary == Boundary::Periodic;
  m.periodic = {periodic, periodic, periodic};
  m.halo_width = 2;  // the 4th-order stencil: two cells along each axis, no edges or corners
  for (int d = 0; d < 3; ++d) {
    m.geometry.spacing[static_cast<std::size_t>(d)] = c.spacing[d];
    m.geometry.origin[static_cast<std::size_t>(d)] = cell_centre(0, c.spacing[d]);
  }
  m.dt = c.dt;
  m.fields = {mpsfw::exchanged_field("u"), mpsfw::state_field("u_prev")};
  m.swaps = {{"u", "u_prev"}};
  const double cell_volume = c.spacing[0] * c.spacing[1] * c.spacing[2];
  m.diagnostics = {mpsfw::sum_of_squares("sum_u2", "u", cell_volume),
                   mpsfw::max_abs_of("max_abs_u", "u")};
  m.initial = [c](mpsfw::Int3 offset, const mpsfw::FieldLayout& layout) {
    InitialState s = initial_state(c, offset, layout);
    return std::vector<std::vector<double>>{std::move(s.u), std::move(s.u_prev)};
  };
  m.kernels = [k = leapfrog_coefficients(c.speed, c.dt, c.spacing)](mpsfw::Backend b) {
    return kernels_for(b, k);
  };
  m.cell_keys = mpsfw::cell_key_names("wave");
  return m;
}

mpsfw::WorkloadSpec wave_spec() {
  return mpsfw::grid_workload(
      {"wave", "3D scalar wave equation, 4th order in space, leapfrog in time (groups /run, /wave)",
       wave_keys(), wave_template(),
       [](const mpsfw::Params& p) { return wave_model(wave_config_from(p)); },
       mpsfw::backends_built(WAVE_HAVE_CUDA, WAVE_HAVE_KOKKOS)});
}

}  // namespace wave
