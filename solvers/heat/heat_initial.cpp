#include "heat_initial.hpp"

#include <cmath>
#include <string>

#include <mpsfw/core/grid/grid_state.hpp>

namespace mpsfw::heat {

std::vector<double> previous_block(const HeatConfig& c, const CartDecomposition& d,
                                   const FieldLayout& layout) {
  if (c.initial != Initial::Dataset || !has_grid_dataset(c.input_file, "/heat/u_previous")) {
    return {};
  }
  return read_grid_block(c.input_file, "/heat/u_previous", d, layout, c.boundary_value);
}

std::vector<double> initial_block(const HeatConfig& c, const CartDecomposition& d,
                                  const FieldLayout& layout) {
  if (c.initial == Initial::Dataset) {
    return read_grid_block(c.input_file, "/heat/u0", d, layout, c.boundary_value);
  }
  std::vector<double> u(static_cast<size_t>(layout.size()), c.boundary_value);
  const Int3 n = layout.n, off = d.offset();

  double length[3], wavenumber[3], centre[3];
  for (int dim = 0; dim < 3; ++dim) {
    length[dim] = domain_length(c.cells[dim], c.spacing[dim], c.boundary);
    wavenumber[dim] = sine_wavenumber(length[dim], c.boundary);
    centre[dim] = 0.5 * length[dim];
  }
  for (int k = 1; k <= n.z; ++k) {
    const double z = coordinate(off.z + k - 1, c.spacing[2], c.boundary);
    for (int j = 1; j <= n.y; ++j) {
      const double y = coordinate(off.y + j - 1, c.spacing[1], c.boundary);
      for (int i = 1; i <= n.x; ++i) {
        const double x = coordinate(off.x + i - 1, c.spacing[0], c.boundary);
        u[static_cast<size_t>(layout.index(i, j, k))] =
            c.initial == Initial::Sine
                ? sine_mode(x, y, z, wavenumber, c.amplitude)
                : gaussian_bump(x, y, z, centre, c.gaussian_width, c.amplitude);
      }
    }
  }
  return u;
}

}  // namespace mpsfw::heat
