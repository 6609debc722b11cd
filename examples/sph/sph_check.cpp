// sph_check: the SPH example's physics, checked on its own (no MPI
// communication), and two runs' particle files compared.
//   sph_check                          the physics checks
//   sph_check compare A.h5 B.h5 TOL    positions (box lengths) and velocities
//                                      of A and B, matched by id, within TOL
//                                      (0: the same bits)
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sph_config.hpp"
#include "sph_physics.hpp"
#include "sph_state.hpp"
#include "sph_store.hpp"
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/particles/particle_compare.hpp>

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
  if (!ok) ++failures;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// The kernel integrates to 1 over its support, and its slope is W's derivative.
void check_kernel() {
  const double h = 0.7;
  const int steps = 200000;
  const double dr = 2 * h / steps;
  double integral = 0, worst_slope = 0;
  for (int k = 0; k < steps; ++k) {
    const double r = (k + 0.5) * dr;
    integral += 4 * sph::kPi * r * r * sph::kernel(r, h) * dr;
    const double e = 1e-6 * h;
    const double numeric = (sph::kernel(r + e, h) - sph::kernel(r - e, h)) / (2 * e);
    if (r > e && r < 2 * h - e) {
      worst_slope = std::max(worst_slope, std::fabs(numeric - sph::kernel_slope(r, h)) /
                                              std::fabs(sph::kernel_slope(h, h)));
    }
  }
  expect(std::fabs(integral - 1) < 1e-8, "the kernel integrates to 1 (" + num(integral) + ")");
  expect(worst_slope < 1e-6,
         "kernel_slope is W'(r) (worst relative difference " + num(worst_slope) + ")");
  expect(sph::kernel(2 * h, h) == 0 && sph::kernel_slope(2 * h, h) == 0,
         "the kernel and its slope vanish at 2h");
}

// The pair's accelerations are opposite (momentum is conserved pair by pair),
// and the viscous part slows the pair's approach.
void check_pair() {
  sph::Physics p;
  p.h = 0.05;
  p.mass = 1e-4;
  p.nu = 0.1;
  const double dx[3] = {0.03, -0.02, 0.01}, dv[3] = {-0.5, 0.2, 0.1};
  const double minus_dx[3] = {-dx[0], -dx[1], -dx[2]}, minus_dv[3] = {-dv[0], -dv[1], -dv[2]};
  const double r2 = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2];
  const double rho_i = 1.01, rho_j = 0.98;
  const double p_i = sph::pressure(rho_i, p), p_j = sph::pressure(rho_j, p);
  double ij[3], ji[3];
  const bool near = sph::acceleration_term(dx, r2, dv, rho_i, p_i, rho_j, p_j, p, ij) &&
                    sph::acceleration_term(minus_dx, r2, minus_dv, rho_j, p_j, rho_i, p_i, p, ji);
  double worst = 0;
  for (int d = 0; d < 3; ++d) worst = std::max(worst, std::fabs(ij[d] + ji[d]));
  expect(near && worst == 0, "a pair's accelerations are opposite (worst sum " + num(worst) + ")");
  sph::Physics viscous = p;
  viscous.c0 = 0;  // no pressure: the viscous part alone
  const double still[3] = {0, 0, 0};
  double drag[3], none[3];
  sph::acceleration_term(dx, r2, dv, rho_i, 0, rho_j, 0, viscous, drag);
  sph::acceleration_term(dx, r2, still, rho_i, 0, rho_j, 0, viscous, none);
  double along = 0;
  for (int d = 0; d < 3; ++d) along += drag[d] * dv[d];
  expect(along < 0 && none[0] == 0 && none[1] == 0 && none[2] == 0,
         "viscosity opposes the relative velocity and vanishes without one");
}

// The lattice's mass makes its summed density rho0; the vortex starts with
// kinetic energy U^2 / 4 per unit mass, which decays as exp(-4 nu k^2 t).
void check_lattice() {
  const double spacing = 1.0 / 32, h = 1.3 * spacing, rho0 = 2;
  const double m = sph::lattice_mass(spacing, h, rho0);
  double rho = 0;
  const int reach = 3;
  for (int i = -reach; i <= reach; ++i) {
    for (int j = -reach; j <= reach; ++j) {
      for (int k = -reach; k <= reach; ++k)
        rho += m * sph::kernel(spacing * std::sqrt(double(i * i + j * j + k * k)), h);
    }
  }
  expect(std::fabs(rho / rho0 - 1) < 1e-14, "the lattice's summed density is rho0");
  const int n = 16;
  double kinetic = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double v[3];
      sph::taylor_green((i + 0.5) / n, (j + 0.5) / n, 1, 2, v);
      kinetic += 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / (n * n);
    }
  }
  expect(std::fabs(kinetic - 1) < 1e-12, "the lattice's vortex holds U^2 / 4 per unit mass");
  const double k = 2 * sph::kPi;
  expect(std::fabs(sph::taylor_green_decay(0.5, 1, 0.01) - std::exp(-2 * 0.01 * k * k)) < 1e-15,
         "the vortex's energy decays as exp(-4 nu k^2 t)");
}

int compare(const std::string& a_path, const std::string& b_path, double tolerance) {
  std::vector<std::string> warnings;
  mpsfw::Params params(mpsfw::input_schema({"sph"}, sph::sph_keys()));
  params.read_file(a_path, &warnings);
  params.finalize();
  const sph::SphConfig c = sph::sph_config_from(params);
  const auto store = sph::store_for(mpsfw::Backend::Host);
  const mpsfw::ParticleDifference diff =
      mpsfw::compare_particle_files(a_path, b_path, "sph", store->record_layout(),
                                    sph::input_fields(store->written_fields()), c.box);
  if (!diff.same_ids) {
    std::printf("FAIL: %s and %s hold different particles (%ld and %ld)\n", a_path.c_str(),
                b_path.c_str(), diff.particles[0], diff.particles[1]);
    return 1;
  }
  bool ok = true;
  for (const mpsfw::FieldDifference& f : diff.fields) {
    if (f.dataset == "densities") continue;  // recomputed from the positions
    const bool within = tolerance == 0 ? f.differing == 0 : f.largest <= tolerance;
    ok = ok && within;
    std::printf("%s %s: %ld of %ld values differ, largest difference %.3g%s (bound %.3g)\n",
                within ? "ok" : "FAIL", f.dataset.c_str(), f.differing, f.values, f.largest,
                f.dataset == "positions" ? " box lengths" : "", tolerance);
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  try {
    if (argc == 5 && std::string(argv[1]) == "compare") {
      rc = compare(argv[2], argv[3], std::atof(argv[4]));
    } else if (argc == 1) {
      check_kernel();
      check_pair();
      check_lattice();
      rc = failures > 0 ? 1 : 0;
    } else {
      std::fprintf(stderr, "usage: sph_check [compare A.h5 B.h5 TOLERANCE]\n");
      rc = 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sph_check: %s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
