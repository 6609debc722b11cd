#include "md_initial.hpp"

#include <cmath>
#include <cstdint>

#include "md_physics.hpp"
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw::md {
namespace {

// SplitMix64: a counter-based generator, so atom `id`'s numbers do not depend
// on which rank draws them or in what order.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double uniform_open(std::uint64_t bits) {  // in (0, 1)
  return (static_cast<double>(bits >> 11) + 0.5) / 9007199254740992.0;
}

// Three standard normal numbers for atom `id` (Box-Muller).
void normals(std::uint64_t seed, std::int64_t id, double out[3]) {
  const std::uint64_t base = mix(seed ^ mix(static_cast<std::uint64_t>(id)));
  double u[4];
  for (int k = 0; k < 4; ++k) u[k] = uniform_open(mix(base + static_cast<std::uint64_t>(k)));
  const double two_pi = 6.283185307179586;
  const double r0 = std::sqrt(-2 * std::log(u[0])), r1 = std::sqrt(-2 * std::log(u[2]));
  out[0] = r0 * std::cos(two_pi * u[1]);
  out[1] = r0 * std::sin(two_pi * u[1]);
  out[2] = r1 * std::cos(two_pi * u[3]);
}

}  // namespace

long fcc_atom_count(const MdConfig& c) {
  return 4L * c.unit_cells.x * c.unit_cells.y * c.unit_cells.z;
}

double temperature_of(double kinetic, long atoms) {
  const double dof = 3.0 * static_cast<double>(atoms) - 3.0;
  return dof > 0 ? 2 * kinetic / dof : 0;
}

std::vector<AtomRecord> fcc_atoms(const MdConfig& c, const Subdomain& domain, MPI_Comm comm) {
  // Basis of the cubic FCC cell, shifted by a quarter cell so that no atom
  // sits on a subdomain face.
  const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  const double a[3] = {c.box[0] / c.unit_cells.x, c.box[1] / c.unit_cells.y,
                       c.box[2] / c.unit_cells.z};
  std::vector<AtomRecord> atoms;
  for (int k = 0; k < c.unit_cells.z; ++k) {
    for (int j = 0; j < c.unit_cells.y; ++j) {
      for (int i = 0; i < c.unit_cells.x; ++i) {
        const int cell[3] = {i, j, k};
        for (int b = 0; b < 4; ++b) {
          AtomRecord r{};
          for (int d = 0; d < 3; ++d) r.x[d] = (cell[d] + basis[b][d] + 0.25) * a[d];
          if (!domain.contains(r.x)) continue;
          r.id = ((static_cast<std::int64_t>(k) * c.unit_cells.y + j) * c.unit_cells.x + i) * 4 + b;
          normals(static_cast<std::uint64_t>(c.seed), r.id, r.v);
          atoms.push_back(r);
        }
      }
    }
  }
  // Zero total momentum, then exactly the asked temperature.
  double local[4] = {0, 0, 0, static_cast<double>(atoms.size())}, total[4];
  for (const AtomRecord& r : atoms) {
    for (int d = 0; d < 3; ++d) local[d] += r.v[d];
  }
  MPSFW_MPI_CHECK(MPI_Allreduce(local, total, 4, MPI_DOUBLE, MPI_SUM, comm));
  const long n = static_cast<long>(total[3]);
  double kinetic = 0;
  for (AtomRecord& r : atoms) {
    for (int d = 0; d < 3; ++d) r.v[d] -= total[d] / static_cast<double>(n);
    kinetic += kinetic_energy(r.v[0], r.v[1], r.v[2], c.mass);
  }
  double kinetic_total = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&kinetic, &kinetic_total, 1, MPI_DOUBLE, MPI_SUM, comm));
  const double now = temperature_of(kinetic_total, n);
  const double scale = now > 0 ? std::sqrt(c.temperature / now) : 0;
  for (AtomRecord& r : atoms) {
    for (int d = 0; d < 3; ++d) r.v[d] *= scale;
  }
  return atoms;
}

}  // namespace mpsfw::md
