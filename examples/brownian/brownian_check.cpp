// brownian_check: the example's physics against what it must be, and two
// runs' particles against each other.
//   brownian_check               the physics (exit 1 on a failure):
//     - the pair force is -dU/dr (central differences) and both vanish at sigma;
//     - the noise is standard normal (mean, variance, fourth moment of 3e5
//       draws) and a function of (seed, id, step, component) alone;
//     - the lattice start lies inside the box, every site once.
//   brownian_check compare A.h5 B.h5 TOL
//     two checkpoints (or inputs) of the same particles: the same ids, and
//     every position within TOL box lengths of the other's (periodic).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "brownian_config.hpp"
#include "brownian_physics.hpp"
#include "brownian_store.hpp"
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/particles/particle_compare.hpp>

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

void check_pair() {
  brownian::Physics p;
  p.sigma = 1.2;
  p.epsilon = 2.5;
  double worst = 0;
  for (double r = 0.05; r < p.sigma - 0.01; r += 0.01) {
    const double h = 1e-6;
    const double dudr = (brownian::soft_pair((r + h) * (r + h), p).energy -
                         brownian::soft_pair((r - h) * (r - h), p).energy) /
                        (2 * h);
    const double force = brownian::soft_pair(r * r, p).f_over_r * r;  // -U'(r)
    worst = std::max(worst, std::fabs(force + dudr) / (2 * p.epsilon / p.sigma));
  }
  expect(worst < 1e-8, "pair force = -dU/dr within 1e-8 of its peak (worst " + num(worst) + ")");
  const brownian::PairTerm at = brownian::soft_pair(p.sigma * p.sigma, p);
  const double near = p.sigma * (1 - 1e-9);
  const brownian::PairTerm below = brownian::soft_pair(near * near, p);
  expect(at.energy == 0 && at.f_over_r == 0 && below.energy < 1e-15 && below.f_over_r < 1e-8,
         "energy and force vanish at r = sigma and are continuous there");
}

void check_noise() {
  const long draws = 300000;
  double m1 = 0, m2 = 0, m4 = 0;
  for (long k = 0; k < draws; ++k) {
    const double xi = brownian::gaussian(7, k / 3, 11 + k % 5, static_cast<int>(k % 3));
    m1 += xi;
    m2 += xi * xi;
    m4 += xi * xi * xi * xi;
  }
  m1 /= draws;
  m2 /= draws;
  m4 /= draws;
  // Standard errors: 1/sqrt(N) = 0.0018 for the mean, sqrt(2/N) = 0.0026 for
  // the variance, sqrt(96/N) = 0.018 for the fourth moment; 5 of them.
  expect(std::fabs(m1) < 0.01, "noise mean " + num(m1) + " within 0.01 of 0");
  expect(std::fabs(m2 - 1) < 0.013, "noise variance " + num(m2) + " within 0.013 of 1");
  expect(std::fabs(m4 - 3) < 0.09, "noise fourth moment " + num(m4) + " within 0.09 of 3");
  const double a = brownian::gaussian(1, 42, 9, 2), b = brownian::gaussian(1, 42, 9, 2);
  expect(a == b && a != brownian::gaussian(2, 42, 9, 2) && a != brownian::gaussian(1, 43, 9, 2) &&
             a != brownian::gaussian(1, 42, 10, 2) && a != brownian::gaussian(1, 42, 9, 1),
         "noise is a function of (seed, id, step, component), each of them changing it");
}

void check_lattice() {
  const int n = 5;
  const double a = 1.1;
  std::vector<int> seen(n * n * n, 0);
  bool inside = true;
  for (long id = 0; id < n * n * n; ++id) {
    int cell = 0;
    for (int d = 2; d >= 0; --d) {
      const double x = brownian::lattice_position(id, n, a, d, 3);
      inside = inside && x >= 0 && x < n * a;
      cell = cell * n + static_cast<int>(std::floor(x / a));
    }
    ++seen[cell];
  }
  expect(inside && std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }),
         "the jittered lattice lies in the box, one particle per lattice cell");
}

int compare(const std::string& a_path, const std::string& b_path, double tolerance) {
  std::vector<std::string> warnings;
  mpsfw::Params params(mpsfw::input_schema({"brownian"}, brownian::brownian_keys()));
  params.read_file(a_path, &warnings);
  params.finalize();
  const brownian::BrownianConfig c = brownian::brownian_config_from(params);
  const auto store = brownian::store_for(mpsfw::Backend::Host);
  const mpsfw::ParticleDifference diff = mpsfw::compare_particle_files(
      a_path, b_path, "brownian", store->record_layout(), {store->written_fields(), {}}, c.box);
  if (!diff.same_ids) {
    std::printf("FAIL: %s and %s hold different particles (%ld and %ld)\n", a_path.c_str(),
                b_path.c_str(), diff.particles[0], diff.particles[1]);
    return 1;
  }
  const mpsfw::FieldDifference& x = diff.fields.front();  // the positions
  const bool ok = x.largest <= tolerance;
  std::printf("%s: %ld particles, largest position difference %.3g box lengths (bound %.3g)\n",
              ok ? "ok" : "FAIL", diff.particles[0], x.largest, tolerance);
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
      check_pair();
      check_noise();
      check_lattice();
      rc = failures > 0 ? 1 : 0;
    } else {
      std::fprintf(stderr, "usage: brownian_check [compare A.h5 B.h5 TOLERANCE]\n");
      rc = 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "brownian_check: %s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
