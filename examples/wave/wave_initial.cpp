#include "wave_initial.hpp"

#include <cmath>
#include <cstddef>

#include "wave_physics.hpp"

namespace wave {

InitialState initial_state(const WaveConfig& c, mpsfw::Int3 offset,
                           const mpsfw::FieldLayout& layout) {
  const std::size_t size = static_cast<std::size_t>(layout.size());
  InitialState s{std::vector<double>(size, 0.0), std::vector<double>(size, 0.0)};

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

  const mpsfw::Box in = layout.interior();
  for (int kz = in.lo.z; kz < in.hi.z; ++kz) {
    for (int j = in.lo.y; j < in.hi.y; ++j) {
      for (int i = in.lo.x; i < in.hi.x; ++i) {
        const double x[3] = {cell_centre(offset.x + i - in.lo.x, c.spacing[0]),
                             cell_centre(offset.y + j - in.lo.y, c.spacing[1]),
                             cell_centre(offset.z + kz - in.lo.z, c.spacing[2])};
        const double u = c.initial == Initial::Mode
                             ? mode_shape(x, k, c.amplitude)
                             : gaussian_pulse(x, centre, c.width, c.amplitude);
        const std::size_t at = static_cast<std::size_t>(layout.index(i, j, kz));
        s.u[at] = u;
        s.u_prev[at] = u * back;
      }
    }
  }
  return s;
}

}  // namespace wave
