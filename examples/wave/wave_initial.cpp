#include "wave_initial.hpp"

#include <cmath>

#include <mpsfw/core/grid/grid_state.hpp>

#include "wave_physics.hpp"

namespace wave {

InitialState initial_state(const WaveConfig& c, mpsfw::Int3 offset,
                           const mpsfw::FieldLayout& layout) {
  double length[3], k[3], centre[3];
  for (int d = 0; d < 3; ++d) {
    length[d] = box_length(c, d);
    centre[d] = 0.5 * length[d];
  }
  mode_wavenumbers(length, k);
  // The standing wave one step back in time, u(x, -dt) = u(x, 0) cos(omega dt):
  // the two levels then start on the exact solution (up to the scheme's own
  // error) instead of launching a second, spurious wave. The pulse starts at
  // rest: u^{-1} = u^0.
  const double back =
      c.initial == Initial::Mode ? std::cos(mode_frequency(c.speed, k) * c.dt) : 1.0;
  const auto u = [&](mpsfw::Int3 g) {
    const double x[3] = {cell_centre(g.x, c.spacing[0]), cell_centre(g.y, c.spacing[1]),
                         cell_centre(g.z, c.spacing[2])};
    return c.initial == Initial::Mode ? mode_shape(x, k, c.amplitude)
                                      : gaussian_pulse(x, centre, c.width, c.amplitude);
  };
  return {mpsfw::block_of(layout, offset, u),
          mpsfw::block_of(layout, offset, [&](mpsfw::Int3 g) { return u(g) * back; })};
}

}  // namespace wave
