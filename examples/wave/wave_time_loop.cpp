#include "wave_time_loop.hpp"

#include <array>
#include <chrono>
#include <cstddef>

#include <mpsfw/core/collective.hpp>
#include <mpsfw/core/mpi_check.hpp>
#include <mpsfw/core/peer_memory.hpp>
#include <mpsfw/core/progress.hpp>

#include "wave_initial.hpp"

namespace wave {
namespace {

// A stencil two cells wide along each axis reads no edge or corner cells.
constexpr mpsfw::HaloShape kHalo{2, false};

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

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

WaveSolver::WaveSolver(const WaveConfig& config, MPI_Comm comm, const mpsfw::DeviceBinding& device,
                       bool cuda_aware_mpi)
    : config_(config),
      backend_(device.backend),
      decomposition_(comm, config.cells, config.rank_grid_hint, periodic_dims(config.boundary),
                     mpsfw::kStridedFaceCost),
      layout_(decomposition_.local_cells(), kHalo.width),
      coefficients_(leapfrog_coefficients(config.speed, config.dt, config.spacing)) {
  std::string error;
  mpsfw::DeviceLocation where;
  try {
    kernels_ = kernels_for(backend_);
    a_ = mpsfw::Array<double>(backend_, static_cast<std::size_t>(layout_.size()));
    b_ = mpsfw::Array<double>(backend_, static_cast<std::size_t>(layout_.size()));
    const InitialState initial = initial_state(config_, decomposition_.offset(), layout_);
    a_.copy_from_host(initial.u.data());
    b_.copy_from_host(initial.u_prev.data());
    // One field, u, in either buffer: start() names the one holding u^n.
    halos_ = std::make_unique<mpsfw::FieldHalos>(decomposition_, layout_, kHalo, backend_,
                                                 cuda_aware_mpi);
    halos_->add_field<double>({a_.data(), b_.data()});
    halos_->set_timers(&timers_);
    where = mpsfw::device_location(device);
  } catch (const std::exception& e) {
    error = e.what();
  }
  // A failure on some ranks only (out of memory, a block too thin for the
  // halo) must stop every rank before the collective connect().
  mpsfw::agree_on_error(decomposition_.comm(), error);
  halos_->connect(config_.halo, where, config_.halo_sync);
  diagnostics_.push_back(measure());
}

WaveSolver::~WaveSolver() = default;

void WaveSolver::step_once() {
  halos_->start(a_.data());  // times its own phases (halo post, pack, pull)
  halos_->finish();          // halo wait, unpack
  {
    mpsfw::PhaseTimers::Scope t(timers_, "update");
    kernels_.update(a_.data(), b_.data(), layout_, coefficients_);
  }
  halos_->finish_step();
  a_.swap(b_);
  ++step_;
}

Diagnostics WaveSolver::measure() const {
  const LocalDiagnostics local = kernels_.diagnostics(a_.data(), layout_);
  double sum_u2 = 0, max_abs_u = 0;
  MPI_Comm comm = decomposition_.comm();
  MPSFW_MPI_CHECK(MPI_Allreduce(&local.sum_u2, &sum_u2, 1, MPI_DOUBLE, MPI_SUM, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(&local.max_abs_u, &max_abs_u, 1, MPI_DOUBLE, MPI_MAX, comm));
  const double cell_volume = config_.spacing[0] * config_.spacing[1] * config_.spacing[2];
  return {step_, static_cast<double>(step_) * config_.dt, sum_u2 * cell_volume, max_abs_u};
}

std::vector<double> WaveSolver::interior_on_host(const mpsfw::Array<double>& field) const {
  std::vector<double> padded(field.size());
  field.copy_to_host(padded.data());
  const mpsfw::Box in = layout_.interior();
  std::vector<double> block(static_cast<std::size_t>(in.cells()));
  std::size_t t = 0;
  for (int kz = in.lo.z; kz < in.hi.z; ++kz) {
    for (int j = in.lo.y; j < in.hi.y; ++j) {
      for (int i = in.lo.x; i < in.hi.x; ++i) {
        block[t++] = padded[static_cast<std::size_t>(layout_.index(i, j, kz))];
      }
    }
  }
  return block;
}

void WaveSolver::snapshot(mpsfw::FieldOutput& output) {
  mpsfw::PhaseTimers::Scope t(timers_, "output");
  // u and u_prev together: a snapshot is a complete leapfrog state.
  const std::vector<double> u = interior_on_host(a_);
  const std::vector<double> u_prev = interior_on_host(b_);
  output.write(step_, static_cast<double>(step_) * config_.dt, {u.data(), u_prev.data()});
}

void WaveSolver::run(std::FILE* progress) {
  if (config_.output_file.empty()) {
    time_loop(progress, nullptr);
    return;
  }
  mpsfw::FieldOutput output(config_.output_file, decomposition_, geometry_of(config_), "wave",
                            mpsfw::OutputMode::Auto, {"u", "u_prev"});
  snapshot(output);
  time_loop(progress, &output);
  output.commit();
}

void WaveSolver::time_loop(std::FILE* progress, mpsfw::FieldOutput* output) {
  const auto t0 = std::chrono::steady_clock::now();
  mpsfw::ProgressLine progress_line(decomposition_.rank() == 0 ? progress : nullptr, config_.steps,
                                    config_.progress_seconds);
  const long last = step_ + config_.steps;
  while (step_ < last) {
    step_once();
    if (step_ == last || (config_.diag_every > 0 && step_ % config_.diag_every == 0)) {
      mpsfw::PhaseTimers::Scope t(timers_, "diagnostics");
      diagnostics_.push_back(measure());
    }
    if (output != nullptr &&
        (step_ == last || (config_.output_every > 0 && step_ % config_.output_every == 0))) {
      snapshot(*output);
    }
    progress_line.update(config_.steps - (last - step_));
  }
  if (backend_ == mpsfw::Backend::Cuda) {
    // Launches return at once: the loop's time ends when the device is done.
    mpsfw::PhaseTimers::Scope t(timers_, "device sync");
    kernels_.synchronize();
  }
  halos_->quiesce();  // no same-GPU neighbour reads A or B after this
  loop_seconds_ = seconds_since(t0);
}

}  // namespace wave
