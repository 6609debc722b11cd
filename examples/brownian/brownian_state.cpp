#include "brownian_state.hpp"

#include <cmath>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/backend_factory.hpp>
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace brownian {

std::unique_ptr<BrownianStore> store_for(mpsfw::Backend backend) {
  return mpsfw::make_part<BrownianArrays, BrownianStore, BROWNIAN_HAVE_CUDA, BROWNIAN_HAVE_KOKKOS>(
      backend, "brownian's store");
}
BrownianSolver::BrownianSolver(const BrownianConfig& config, const mpsfw::Params* params,
                               MPI_Comm comm, const mpsfw::DeviceBinding& device,
                               bool cuda_aware_mpi)
    : config_(config),
      params_(params),
      backend_(device.backend),
      decomposition_(comm, link_cells(config), config.rank_grid_hint, {true, true, true}),
      domain_(mpsfw::subdomain_of(decomposition_, config.box)),
      exchange_(decomposition_, domain_, reach(config), config, device, cuda_aware_mpi,
                {"brownian", "particle", "particles"}),
      files_("brownian", config.box, params,
             {decomposition_.rank_grid(), mpsfw::to_string(device.backend)}, decomposition_.comm()),
      lists_({reach(config), config.skin, 0}, timers_),
      step_(config.start_step) {
  std::string error;
  std::optional<mpsfw::ResumeState> exact;
  try {
    store_ = store_for(backend_);
    exact = place_particles();
  } catch (const std::exception& e) {
    error = e.what();
  }
  mpsfw::agree_on_error(decomposition_.comm(), error);
  const long mine = store_->owned();
  MPSFW_MPI_CHECK(MPI_Allreduce(&mine, &total_, 1, MPI_LONG, MPI_SUM, decomposition_.comm()));
  // The first lists and forces are set-up, not a step: untimed.
  if (exact) {
    lists_.resume(exchange_, *store_, exact->positions, exact->steps_on_lists);
  } else {
    lists_.rebuild(exchange_, *store_, step_);
  }
  store_->compute_forces(config_.physics);
  exchange_.set_peer_wait({config_.peer_wait_seconds, step_});
  timers_ = mpsfw::PhaseTimers();
  lists_.reset_rebuilds();
}

BrownianSolver::~BrownianSolver() = default;

std::optional<mpsfw::ResumeState> BrownianSolver::place_particles() {
  // A checkpoint (or any input holding /brownian/positions) starts there.
  std::optional<mpsfw::ResumeState> exact;
  if (files_.assign_from_input(config_.input_file, domain_, *store_, {store_->written_fields(), {}},
                               &exact)) {
    return exact;
  }
  // A fresh start: the lattice sites whose jittered position this rank owns.
  mpsfw::ParticleRecords mine(store_->record_layout());
  double x[3];
  for (long id = 0; id < particle_count(config_); ++id) {
    for (int d = 0; d < 3; ++d)
      x[d] = lattice_position(id, config_.n, config_.spacing, d, config_.physics.seed);
    if (domain_.contains(x)) mine.append_at(x, id);
  }
  store_->assign_records(mine);
  return std::nullopt;
}

mpsfw::LoopSetup BrownianSolver::loop_setup() {
  return {&config_, config_.diag_every, "diagnostics", params_, decomposition_.comm(), &timers_};
}

void BrownianSolver::advance() {
  {
    mpsfw::PhaseTimers::Scope t(timers_, "move");
    store_->move(config_.physics, step_ + 1);  // the step being made
  }
  lists_.follow_move(exchange_, *store_, step_ + 1, decomposition_.comm(), [&] {
    mpsfw::PhaseTimers::Scope t(timers_, "force");
    store_->compute_forces(config_.physics);
  });
  ++step_;
}

double BrownianSolver::time() const { return config_.time_at(step_, config_.physics.dt); }

Diagnostics BrownianSolver::measure() const {
  const LocalSums local = store_->sums(config_.physics);
  double potential = 0, max_force = 0;
  long not_finite = 0;
  MPI_Comm comm = decomposition_.comm();
  MPSFW_MPI_CHECK(MPI_Allreduce(&local.potential, &potential, 1, MPI_DOUBLE, MPI_SUM, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(&local.max_force, &max_force, 1, MPI_DOUBLE, MPI_MAX, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(&local.not_finite, &not_finite, 1, MPI_LONG, MPI_SUM, comm));
  if (not_finite > 0 || !std::isfinite(potential) || !std::isfinite(max_force)) {
    throw mpsfw::AgreedError("brownian: positions or forces are no longer finite at step " +
                             std::to_string(step_) + " (" + std::to_string(not_finite) +
                             " particles): the run diverged; take a smaller brownian.dt");
  }
  return {step_, time(), potential / static_cast<double>(total_), max_force};
}

void BrownianSolver::begin(std::FILE* out) {
  if (out) std::fprintf(out, "%10s %14s %16s %14s\n", "step", "time", "potential/N", "max|F|");
  diagnose(out);
}

void BrownianSolver::diagnose(std::FILE* out) {
  diagnostics_.push_back(measure());
  const Diagnostics& g = diagnostics_.back();
  if (out) {
    std::fprintf(out, "%10ld %14.6g %16.10f %14.6g\n", g.step, g.time, g.potential, g.max_force);
    std::fflush(out);
  }
}

void BrownianSolver::open_output(const std::string& path) {
  files_.open_output(path, *store_, step_, time());
}

void BrownianSolver::write_output() { files_.write_output(*store_, step_, time()); }

void BrownianSolver::close_output() { files_.close_output(); }

void BrownianSolver::write_checkpoint(const std::string& path) {
  files_.write_checkpoint(path, *store_, lists_, step_, time());
}

void BrownianSolver::settle() {
  mpsfw::PhaseTimers::Scope t(timers_, "device sync");
  store_->synchronize();
}

}  // namespace brownian
