#include "heat_initial.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/h5_io.hpp"

namespace mpsfw::heat {

namespace {

// This rank's block of dataset /heat/<name> ([nz][ny][nx]) placed inside the
// halo, which holds the wall value.
std::vector<double> dataset_block(const HeatConfig& c, const CartDecomposition& d,
                                  const FieldLayout& layout, const std::string& name) {
  std::vector<double> u(static_cast<size_t>(layout.size()), c.boundary_value);
  const Int3 n = layout.n, off = d.offset();
  {
    std::vector<double> block(static_cast<size_t>(n.product()));
    h5::Handle f = h5::open_file_readonly(c.input_file);
    h5::Handle g = h5::open_group(f.get(), "heat");
    h5::read_block(g.get(), name,
                   {static_cast<std::uint64_t>(off.z), static_cast<std::uint64_t>(off.y),
                    static_cast<std::uint64_t>(off.x)},
                   {static_cast<std::uint64_t>(n.z), static_cast<std::uint64_t>(n.y),
                    static_cast<std::uint64_t>(n.x)},
                   block.data());
    size_t t = 0;
    for (int k = 1; k <= n.z; ++k)
      for (int j = 1; j <= n.y; ++j)
        for (int i = 1; i <= n.x; ++i) {
          const double v = block[t++];
          if (!std::isfinite(v)) {
            throw InputError(c.input_file + ": dataset /heat/" + name +
                             ": expected finite values, got " + std::to_string(v) + " at [" +
                             std::to_string(off.z + k - 1) + "][" + std::to_string(off.y + j - 1) +
                             "][" + std::to_string(off.x + i - 1) + "] ([z][y][x])");
          }
          u[static_cast<size_t>(layout.index(i, j, k))] = v;
        }
  }
  return u;
}

}  // namespace

std::vector<double> previous_block(const HeatConfig& c, const CartDecomposition& d,
                                   const FieldLayout& layout) {
  if (c.initial != Initial::Dataset) return {};
  {
    h5::Handle f = h5::open_file_readonly(c.input_file);
    h5::Handle g = h5::open_group(f.get(), "heat");
    if (!h5::has_dataset(g.get(), "u_previous")) return {};
  }
  return dataset_block(c, d, layout, "u_previous");
}

std::vector<double> initial_block(const HeatConfig& c, const CartDecomposition& d,
                                  const FieldLayout& layout) {
  if (c.initial == Initial::Dataset) return dataset_block(c, d, layout, "u0");
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
