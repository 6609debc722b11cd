// wave_check: the example against what is known exactly. The reference is one
// block holding the whole box, its periodic halo filled by hand (no MPI, no
// halo exchange):
//   (a) the standing wave of a periodic box follows amplitude * cos(omega t),
//       and at a fixed CFL number its error falls at least 3.5x when the grid
//       is refined 2x (leapfrog is second order in time: 4x ideally);
//   (b) the launcher's 4th-order Laplacian is exact to rounding for a quartic
//       in x, y and z, and off by exactly -h^4/90 u'''''' for a sextic (so
//       the check sees an error of that order when there is one);
//   (c) with the CUDA launcher built and a GPU visible, CUDA's fields equal
//       the host's bit for bit;
//   (d) the configuration rejects an unstable dt, naming the key's origin and
//       the limit;
//   (e) the whole solver (mpsfw::GridSolver over wave_model: rank grid,
//       halos, time loop) on
//       all of MPI_COMM_WORLD's ranks gives the reference's bits, periodic
//       and dirichlet, on every backend there is.
// (a)-(d) run on rank 0; run (e) at several rank counts with mpirun. Prints
// what it measured; exits 1 if any check fails.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>
#include <mpsfw/core/parallel/mpi_env.hpp>

#include "wave_config.hpp"
#include "wave_initial.hpp"
#include "wave_model.hpp"
#include "wave_physics.hpp"

namespace {

using mpsfw::Array;
using mpsfw::Backend;
using mpsfw::FieldLayout;
using mpsfw::Int3;

int g_failures = 0;
bool g_print = true;  // rank 0 prints

void expect(bool ok, const std::string& what) {
  if (g_print) std::printf("  %s: %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++g_failures;
}

// Every halo cell (faces, edges, corners) from the interior cell it wraps to.
void fill_periodic_halo(std::vector<double>& f, const FieldLayout& layout) {
  const int h = layout.halo;
  const Int3 n = layout.n;
  const auto wrap = [h](int i, int cells) { return h + ((i - h) % cells + cells) % cells; };
  for (int k = 0; k < n.z + 2 * h; ++k) {
    for (int j = 0; j < n.y + 2 * h; ++j) {
      for (int i = 0; i < n.x + 2 * h; ++i) {
        const int wi = wrap(i, n.x), wj = wrap(j, n.y), wk = wrap(k, n.z);
        if (wi == i && wj == j && wk == k) continue;
        f[static_cast<size_t>(layout.index(i, j, k))] =
            f[static_cast<size_t>(layout.index(wi, wj, wk))];
      }
    }
  }
}

// The reference: `c.steps` steps of one block holding the whole box with
// `space`'s launcher, the halo filled by hand before each step when periodic
// (a Dirichlet halo stays 0). `after_step(step, u)` sees u after every step
// (padded layout, on the host). Returns the last u.
std::vector<double> reference_run(
    const wave::WaveConfig& c, Backend space,
    const std::function<void(long, const std::vector<double>&)>& after_step = {}) {
  const wave::Coefficients k = wave::leapfrog_coefficients(c.speed, c.dt, c.spacing);
  const std::unique_ptr<mpsfw::GridKernels> kernels = wave::kernels_for(space, k);
  const FieldLayout layout(c.cells, 2);
  const wave::InitialState initial = wave::initial_state(c, {0, 0, 0}, layout);
  const size_t size = static_cast<size_t>(layout.size());
  Array<double> a(space, size), b(space, size);
  a.copy_from_host(initial.u.data());
  b.copy_from_host(initial.u_prev.data());
  std::vector<double> host = initial.u;
  for (long s = 1; s <= c.steps; ++s) {
    if (c.boundary == wave::Boundary::Periodic) {
      fill_periodic_halo(host, layout);
      a.copy_from_host(host.data());
    }
    kernels->update({layout, {a.data(), b.data()}}, layout.interior());
    a.swap(b);
    a.copy_to_host(host.data());
    if (after_step) after_step(s, host);
  }
  return host;
}

// (a), (c): the standing wave on a periodic n^3 box of side 1 m, c = 1 m/s.
constexpr double kCfl = 0.4;  // c dt / dx; the stability limit is 0.5

wave::WaveConfig standing_wave(int n, long steps) {
  wave::WaveConfig c;
  c.cells = {n, n, n};
  for (double& h : c.spacing) h = 1.0 / n;
  c.dt = kCfl / n;
  c.steps = steps;
  c.boundary = wave::Boundary::Periodic;
  c.initial = wave::Initial::Mode;
  return c;
}

// Steps to one period of the standing wave: omega = 2 pi sqrt(3) / (1 s).
long steps_for_one_period(int n) {
  return static_cast<long>(std::ceil(1.0 / std::sqrt(3.0) / standing_wave(n, 0).dt));
}

// The largest |u - amplitude cos(omega t) shape| over every step and cell.
double standing_wave_error(int n, long steps) {
  const wave::WaveConfig c = standing_wave(n, steps);
  const FieldLayout layout(c.cells, 2);
  double length[3], k[3];
  for (int d = 0; d < 3; ++d) length[d] = wave::box_length(c, d);
  wave::mode_wavenumbers(length, k);
  const double omega = wave::mode_frequency(c.speed, k);
  const mpsfw::Box in = layout.interior();
  double max_error = 0;
  reference_run(c, Backend::Host, [&](long s, const std::vector<double>& u) {
    const double decay = std::cos(omega * static_cast<double>(s) * c.dt);
    for (int kz = in.lo.z; kz < in.hi.z; ++kz) {
      for (int j = in.lo.y; j < in.hi.y; ++j) {
        for (int i = in.lo.x; i < in.hi.x; ++i) {
          const double x[3] = {wave::cell_centre(i - in.lo.x, c.spacing[0]),
                               wave::cell_centre(j - in.lo.y, c.spacing[1]),
                               wave::cell_centre(kz - in.lo.z, c.spacing[2])};
          const double exact = decay * wave::mode_shape(x, k, c.amplitude);
          const double error = std::fabs(u[static_cast<size_t>(layout.index(i, j, kz))] - exact);
          max_error = std::max(max_error, error);
        }
      }
    }
  });
  return max_error;
}

void check_convergence() {
  std::printf("(a) standing wave on a periodic box, CFL %.2g, one period\n", kCfl);
  const long steps = steps_for_one_period(16);
  const double coarse = standing_wave_error(16, steps);
  const double fine = standing_wave_error(32, 2 * steps);
  std::printf("  16^3, %ld steps: max |u - cos(omega t) u0| = %.4e\n", steps, coarse);
  std::printf("  32^3, %ld steps: max |u - cos(omega t) u0| = %.4e\n", 2 * steps, fine);
  std::printf("  ratio %.3f\n", coarse / fine);
  expect(coarse < 0.05, "16^3 follows amplitude cos(omega t) within 5% of the amplitude");
  expect(coarse / fine >= 3.5, "error falls >= 3.5x when refined 2x at fixed CFL (second order)");
}

// (b): u = p(x) + q(y) + r(z); with u_prev = 2u and weights 1 / (12 h^2),
// leapfrog_value gives (2u - 2u) + L4(u) = L4(u) exactly, so the launcher
// itself computes the Laplacian, through the real layout's strides.
using Poly = std::vector<double>;  // coefficients, constant first

double poly(const Poly& c, double x) {
  double v = 0;
  for (size_t i = c.size(); i-- > 0;) v = v * x + c[i];
  return v;
}
double poly_second(const Poly& c, double x) {
  double v = 0;
  for (size_t i = c.size(); i-- > 2;) v = v * x + static_cast<double>(i * (i - 1)) * c[i];
  return v;
}

struct LaplacianError {
  double max_error = 0;  // max over cells of |L4(u) - exact - expected_offset|
  double tolerance = 0;  // rounding bound
};

// `expected_offset`: the known truncation error (0 for degree <= 5).
LaplacianError laplacian_error(Backend space, const Poly& px, const Poly& py, const Poly& pz,
                               double expected_offset) {
  const double spacing[3] = {0.1, 0.25, 0.5};  // distinct: a swapped stride or weight shows
  const FieldLayout layout({8, 7, 6}, 2);
  const Poly* p[3] = {&px, &py, &pz};
  const size_t size = static_cast<size_t>(layout.size());
  std::vector<double> u(size, 0.0), twice(size, 0.0), exact(size, 0.0);
  double max_u = 0;
  const int h = layout.halo;
  for (int k = 0; k < layout.n.z + 2 * h; ++k) {
    for (int j = 0; j < layout.n.y + 2 * h; ++j) {
      for (int i = 0; i < layout.n.x + 2 * h; ++i) {
        const int g[3] = {i - h, j - h, k - h};
        double v = 0, d2 = 0;
        for (int d = 0; d < 3; ++d) {
          const double x = wave::cell_centre(g[d], spacing[d]);
          v += poly(*p[d], x);
          d2 += poly_second(*p[d], x);
        }
        const size_t at = static_cast<size_t>(layout.index(i, j, k));
        u[at] = v;
        twice[at] = 2.0 * v;
        exact[at] = d2;
        max_u = std::max(max_u, std::fabs(v));
      }
    }
  }
  Array<double> field(space, size), result(space, size);
  field.copy_from_host(u.data());
  result.copy_from_host(twice.data());
  wave::kernels_for(space, wave::laplacian_coefficients(spacing))
      ->update({layout, {field.data(), result.data()}}, layout.interior());
  result.copy_to_host(twice.data());

  LaplacianError e;
  // Rounding: each axis sums terms up to 64 |u| / (12 h^2) in size.
  double scale = 0;
  for (double s : spacing) scale += 64.0 * max_u / (12.0 * s * s);
  e.tolerance = 32 * std::numeric_limits<double>::epsilon() * scale;
  const mpsfw::Box in = layout.interior();
  for (int k = in.lo.z; k < in.hi.z; ++k) {
    for (int j = in.lo.y; j < in.hi.y; ++j) {
      for (int i = in.lo.x; i < in.hi.x; ++i) {
        const size_t at = static_cast<size_t>(layout.index(i, j, k));
        e.max_error = std::max(e.max_error, std::fabs(twice[at] - exact[at] - expected_offset));
      }
    }
  }
  return e;
}

void check_laplacian(Backend space) {
  std::printf("(b) 4th-order Laplacian of polynomials, %s launcher\n", mpsfw::to_string(space));
  const LaplacianError quartic = laplacian_error(space, {1, -2, 3, -0.5, 0.75},
                                                 {0.5, 1, -1, 2, -0.25}, {-1, 0.3, 2, 0.1, 0.5}, 0);
  std::printf("  quartic in x, y, z: max |L4 u - lap u| = %.3e (rounding bound %.3e)\n",
              quartic.max_error, quartic.tolerance);
  expect(quartic.max_error <= quartic.tolerance, "exact to rounding for a quartic");
  // u = x^6: L4 u - u'' = -h^4/90 * 720 = -8 h^4 everywhere (u^(8) = 0).
  const double hx = 0.1;
  const double offset = -8.0 * hx * hx * hx * hx;
  const LaplacianError sextic = laplacian_error(space, {0, 0, 0, 0, 0, 0, 1}, {0}, {0}, offset);
  std::printf("  x^6: max |L4 u - lap u + 8 dx^4| = %.3e (rounding bound %.3e, 8 dx^4 = %.1e)\n",
              sextic.max_error, sextic.tolerance, -offset);
  expect(sextic.max_error <= sextic.tolerance,
         "x^6 is off by exactly the truncation error -dx^4/90 u'''''' (4th order)");
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// (c): the same standing-wave steps on both launchers.
void check_cuda_matches_host(bool cuda) {
  std::printf("(c) CUDA launcher against the host's\n");
  if (!cuda) {
    std::printf("  skipped: %s\n",
                WAVE_HAVE_CUDA ? "no GPU visible" : "built without the CUDA launcher");
    return;
  }
  const wave::WaveConfig c = standing_wave(16, steps_for_one_period(16));
  expect(same_bits(reference_run(c, Backend::Host), reference_run(c, Backend::Cuda)),
         "16^3 after " + std::to_string(c.steps) + " steps: CUDA == host bit for bit");
}

// (d): configuration from parameters as the runtime gives them.
mpsfw::Params wave_params(const std::vector<std::string>& sets) {
  mpsfw::Params p(mpsfw::input_schema({"wave"}, wave::wave_keys()));
  p.apply_override("solver=wave");
  for (const std::string& s : wave::wave_template()) p.apply_override(s);
  for (const std::string& s : sets) p.apply_override(s);
  p.finalize();
  return p;
}

// The InputError's message from configuring with `sets`, or "" if accepted.
std::string rejection(const std::vector<std::string>& sets) {
  try {
    wave::wave_config_from(wave_params(sets));
  } catch (const mpsfw::InputError& e) {
    return e.what();
  }
  return "";
}

void check_config() {
  std::printf("(d) configuration\n");
  expect(rejection({}).empty(), "the input template is accepted");
  // 64 cells of 1/64 m at c = 1 m/s: the limit is dx / 2 = 1/128 s.
  const std::string unstable = rejection({"wave.dt=0.01"});
  std::printf("  wave.dt=0.01: %s\n", unstable.c_str());
  expect(unstable.find("--set wave.dt=0.01") != std::string::npos &&
             unstable.find("0.0078125") != std::string::npos,
         "an unstable dt is rejected, naming its origin and the limit 1/128 s");
  expect(rejection({"wave.dt=0.0078125"}).empty(), "dt at the limit is accepted");
  expect(!rejection({"wave.boundary=dirichlet"}).empty(),
         "the standing wave is rejected on a dirichlet box");
}

// (e): boxes of unequal sides, so that a mixed-up axis shows.
wave::WaveConfig periodic_mode_box() {
  wave::WaveConfig c;
  c.cells = {16, 12, 10};
  c.spacing[0] = 1.0 / 16;
  c.spacing[1] = 1.0 / 12;
  c.spacing[2] = 1.0 / 10;
  c.dt = 0.02;  // the limit is 0.0387 s
  c.steps = 20;
  c.boundary = wave::Boundary::Periodic;
  c.initial = wave::Initial::Mode;
  return c;
}

wave::WaveConfig dirichlet_pulse_box() {
  wave::WaveConfig c;
  c.cells = {14, 11, 9};
  for (double& h : c.spacing) h = 0.1;
  c.dt = 0.04;  // the limit is 0.05 s
  c.steps = 20;
  c.boundary = wave::Boundary::Dirichlet;
  c.initial = wave::Initial::Gaussian;
  c.width = 0.09;
  return c;
}

// The rank grid the runtime would choose, and the ranks all along x, then
// all along z (the runtime avoids cutting x): every axis's exchange is used.
std::vector<Int3> rank_grids(int ranks) {
  if (ranks == 1) return {Int3{}};
  return {Int3{}, Int3{ranks, 1, 1}, Int3{1, 1, ranks}};
}

// Collective: the solver's u after c.steps steps on rank grid `grid` against
// the reference's, cell by cell, on every rank.
void check_solver(const mpsfw::MpiEnv& mpi, wave::WaveConfig c, Int3 grid, Backend space,
                  const std::string& name) {
  for (int d = 0; d < 3; ++d) {
    if (grid[d] > 0 && c.cells[d] / grid[d] < 2) return;  // blocks thinner than the halo
  }
  c.rank_grid_hint = grid;
  const mpsfw::DeviceBinding device =
      mpsfw::bind_device(space, mpi.node_rank(), mpi.node_size(), mpsfw::CudaGate::without_mps());
  const std::vector<double> reference = reference_run(c, Backend::Host);
  const FieldLayout whole(c.cells, 2);

  mpsfw::GridSolver solver(
      wave::wave_model(c), c, nullptr,
      {mpi.world(), device, "", space == Backend::Cuda && mpsfw::mpi_is_cuda_aware()});
  mpsfw::run_time_loop(solver, nullptr);
  const std::vector<double> mine = solver.local_field("u");
  const mpsfw::CartDecomposition& d = solver.decomposition();
  const Int3 n = d.local_cells(), off = d.offset();
  const int h = whole.halo;
  long differ = 0;
  size_t t = 0;
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i, ++t) {
        const double want = reference[static_cast<size_t>(
            whole.index(off.x + i + h, off.y + j + h, off.z + k + h))];
        if (std::memcmp(&want, &mine[t], sizeof(double)) != 0) ++differ;
      }
    }
  }
  long total = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&differ, &total, 1, MPI_LONG, MPI_SUM, mpi.world()));
  const Int3 g = d.rank_grid();
  if (g_print)
    std::printf("  %s, %s, ranks %dx%dx%d, halos: %s\n", name.c_str(), mpsfw::to_string(space), g.x,
                g.y, g.z, solver.halo_path().c_str());
  expect(total == 0, name + " after " + std::to_string(c.steps) +
                         " steps: " + std::to_string(total) + " cells differ from the reference");
}

bool cuda_available() {
  return WAVE_HAVE_CUDA && mpsfw::count_visible_gpus(mpsfw::CudaGate::without_mps()) > 0;
}

}  // namespace

int main(int argc, char** argv) {
  mpsfw::MpiEnv mpi(argc, argv);
  g_print = mpi.rank() == 0;
  try {
    const bool cuda = cuda_available();
    if (mpi.rank() == 0) {
      check_convergence();
      check_laplacian(Backend::Host);
      if (cuda) check_laplacian(Backend::Cuda);
      check_cuda_matches_host(cuda);
      check_config();
    }
    if (g_print)
      std::printf("(e) the whole solver on %d rank(s) against the reference\n", mpi.size());
    std::vector<Backend> backends = {Backend::Host};
    if (cuda) backends.push_back(Backend::Cuda);
    for (Backend space : backends) {
      for (const Int3 grid : rank_grids(mpi.size())) {
        check_solver(mpi, periodic_mode_box(), grid, space, "periodic standing wave 16x12x10");
        check_solver(mpi, dirichlet_pulse_box(), grid, space, "dirichlet pulse 14x11x9");
      }
    }
  } catch (const std::exception& e) {
    mpsfw::MpiEnv::abort_job(std::string("wave_check: error: ") + e.what());
  }
  // Every rank counts (e)'s failures; rank 0 also (a)-(d)'s.
  int failures = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_MAX, mpi.world()));
  if (g_print) {
    if (failures > 0) {
      std::printf("wave_check: %d check(s) FAILED\n", failures);
    } else {
      std::printf("wave_check: all checks passed\n");
    }
  }
  return failures > 0 ? 1 : 0;
}
