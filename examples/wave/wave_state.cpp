#include "wave_state.hpp"

#include <array>
#include <cmath>
#include <cstddef>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/backend_factory.hpp>
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/grid/grid_state.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

#include "wave_initial.hpp"

namespace wave {
namespace {

// A stencil two cells wide along each axis: halos of two cells, no edge or
// corner cells read.
constexpr int kHaloWidth = 2;
constexpr bool kCorners = false;

std::array<bool, 3> periodic_dims(Boundary b) {
  const bool p = b == Boundary::Periodic;
  return {p, p, p};
}

mpsfw::GridGeometry geometry_of(const WaveConfig& c) {
  mpsfw::GridGeometry g;
  for (int d = 0; d < 3; ++d) {
    g.spacing[static_cast<std::size_t>(d)] = c.spacing[d];
    g.origin[static_cast<std::size_t>(d)] = cell_centre(0, c.spacing[d]);
  }
  return g;
}

}  // namespace

std::unique_ptr<Kernels> kernels_for(mpsfw::Backend backend) {
  return mpsfw::make_part<ExecKernels, Kernels, WAVE_HAVE_CUDA, WAVE_HAVE_KOKKOS>(
      backend, "wave's launchers");
}

WaveSolver::WaveSolver(const WaveConfig& config, const mpsfw::Params* params, MPI_Comm comm,
                       const mpsfw::DeviceBinding& device, bool cuda_aware_mpi)
    : config_(config),
      params_(params),
      backend_(device.backend),
      decomposition_(comm, config.cells, config.rank_grid_hint, periodic_dims(config.boundary),
                     mpsfw::kStridedFaceCost),
      layout_(decomposition_.local_cells(), kHaloWidth),
      coefficients_(leapfrog_coefficients(config.speed, config.dt, config.spacing)),
      fields_(decomposition_, layout_, "wave") {
  std::string error;
  try {
    kernels_ = kernels_for(backend_);
    a_ = mpsfw::Array<double>(backend_, static_cast<std::size_t>(layout_.size()));
    b_ = mpsfw::Array<double>(backend_, static_cast<std::size_t>(layout_.size()));
    // The state, declared once: halos, snapshots, checkpoints and restart follow.
    fields_.add("u", &a_, mpsfw::GridFields::Halo::Exchanged);
    fields_.add("u_prev", &b_);
    // A checkpoint (or an input holding /wave/u and /wave/u_prev) starts there.
    if (!fields_.restore(config_.input_file)) {
      const InitialState initial = initial_state(config_, decomposition_.offset(), layout_);
      a_.copy_from_host(initial.u.data());
      b_.copy_from_host(initial.u_prev.data());
    }
  } catch (const std::exception& e) {
    error = e.what();
  }
  // A failure on some ranks only (out of memory) must stop every rank before
  // the collective connect.
  mpsfw::agree_on_error(decomposition_.comm(), error);
  fields_.connect_halos({backend_, cuda_aware_mpi, config_.halo, mpsfw::device_location(device),
                         config_.halo_sync, kCorners, &timers_});
  step_ = config_.start_step;
  diagnostics_.push_back(measure());
}

WaveSolver::~WaveSolver() = default;

mpsfw::LoopSetup WaveSolver::loop_setup() {
  return {&config_, config_.diag_every, "diagnostics", params_, decomposition_.comm(), &timers_};
}

void WaveSolver::advance() {
  fields_.start_halos();     // times its own phases (halo post, pack, pull)
  fields_.halos().finish();  // halo wait, unpack
  {
    mpsfw::PhaseTimers::Scope t(timers_, "update");
    kernels_->update(a_.data(), b_.data(), layout_, coefficients_);
  }
  fields_.halos().finish_step();
  a_.swap(b_);
  ++step_;
}

Diagnostics WaveSolver::measure() const {
  const LocalDiagnostics local = kernels_->diagnostics(a_.data(), layout_);
  double sum_u2 = 0, max_abs_u = 0;
  MPI_Comm comm = decomposition_.comm();
  MPSFW_MPI_CHECK(MPI_Allreduce(&local.sum_u2, &sum_u2, 1, MPI_DOUBLE, MPI_SUM, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(&local.max_abs_u, &max_abs_u, 1, MPI_DOUBLE, MPI_MAX, comm));
  if (!std::isfinite(sum_u2) || !std::isfinite(max_abs_u)) {
    throw mpsfw::AgreedError("wave: u is no longer finite at step " + std::to_string(step_) +
                             ": the run diverged; check wave.dt and the initial values");
  }
  const double cell_volume = config_.spacing[0] * config_.spacing[1] * config_.spacing[2];
  return {step_, time(), sum_u2 * cell_volume, max_abs_u};
}

std::vector<double> WaveSolver::local_u() const { return mpsfw::interior_on_host(a_, layout_); }

void WaveSolver::diagnose(std::FILE*) { diagnostics_.push_back(measure()); }

void WaveSolver::open_output(const std::string& path) {
  fields_.open_output(path, geometry_of(config_), "wave", step_, time());
}

void WaveSolver::write_output() { fields_.write_output(step_, time()); }

void WaveSolver::close_output() { fields_.close_output(); }

void WaveSolver::write_checkpoint(const std::string& path) {
  fields_.write_checkpoint(path, *params_, step_, time());
}

void WaveSolver::settle() {
  if (backend_ != mpsfw::Backend::Host) {
    // Launches return at once: the loop's time ends when the device is done.
    mpsfw::PhaseTimers::Scope t(timers_, "device sync");
    kernels_->synchronize();
  }
  fields_.halos().quiesce();  // no same-GPU neighbour reads A or B after this
}

}  // namespace wave
