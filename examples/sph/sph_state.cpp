#include "sph_state.hpp"

#include <algorithm>
#include <cmath>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/backend_factory.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace sph {

std::unique_ptr<SphStore> store_for(mpsfw::Backend backend) {
  return mpsfw::make_part<SphArrays, SphStore, SPH_HAVE_CUDA, SPH_HAVE_KOKKOS>(backend,
                                                                               "sph's store");
}

mpsfw::ParticleInputFields input_fields(const std::vector<mpsfw::WrittenField>& written) {
  return {written, {"densities"}};
}

SphSolver::SphSolver(const SphConfig& config, const mpsfw::Params* params, MPI_Comm comm,
                     const mpsfw::DeviceBinding& device, bool cuda_aware_mpi)
    : config_(config),
      params_(params),
      decomposition_(comm, link_cells(config), config.rank_grid_hint, {true, true, true}),
      domain_(mpsfw::subdomain_of(decomposition_, config.box)),
      exchange_(decomposition_, domain_, reach(config), config, device, cuda_aware_mpi,
                {"sph", "particle", "particles"}),
      files_("sph", config.box, params,
             {decomposition_.rank_grid(), mpsfw::to_string(device.backend)}, decomposition_.comm()),
      lists_({reach(config), config.skin, 0}, timers_),
      step_(config.start_step) {
  std::string error;
  std::optional<mpsfw::ResumeState> exact;
  try {
    store_ = store_for(device.backend);
    exact = place_particles();
  } catch (const std::exception& e) {
    error = e.what();
  }
  mpsfw::agree_on_error(decomposition_.comm(), error);
  const long mine = store_->owned();
  MPSFW_MPI_CHECK(MPI_Allreduce(&mine, &total_, 1, MPI_LONG, MPI_SUM, decomposition_.comm()));
  // The first lists, densities and accelerations are set-up, not a step: untimed.
  if (exact) {
    lists_.resume(exchange_, *store_, exact->positions, exact->steps_on_lists);
  } else {
    lists_.rebuild(exchange_, *store_, step_);
  }
  pair_passes();
  exchange_.set_peer_wait({config_.peer_wait_seconds, step_});
  timers_ = mpsfw::PhaseTimers();
  lists_.reset_rebuilds();
}

SphSolver::~SphSolver() = default;

std::optional<mpsfw::ResumeState> SphSolver::place_particles() {
  // A checkpoint (or any input holding /sph/positions) starts there.
  std::optional<mpsfw::ResumeState> exact;
  if (files_.assign_from_input(config_.input_file, domain_, *store_,
                               input_fields(store_->written_fields()), &exact)) {
    return exact;
  }
  // A fresh start: the lattice sites this rank owns, with the vortex's
  // velocities (on the host: every backend starts from the same bits).
  const std::vector<mpsfw::WrittenField> fields = store_->written_fields();
  const auto velocity = std::find_if(fields.begin(), fields.end(),
                                     [](const auto& f) { return f.dataset == "velocities"; });
  mpsfw::ParticleRecords mine(store_->record_layout());
  double x[3], v[3];
  for (long id = 0; id < particle_count(config_); ++id) {
    lattice_position(config_, id, x);
    if (!domain_.contains(x)) continue;
    mine.append_at(x, id);
    taylor_green(x[0], x[1], config_.length, config_.speed, v);
    mine.set_reals(mine.size() - 1, velocity->offset, v, 3);
  }
  store_->assign_records(mine);
  return std::nullopt;
}

mpsfw::LoopSetup SphSolver::loop_setup() {
  return {&config_, config_.diag_every, "diagnostics", params_, decomposition_.comm(), &timers_};
}

void SphSolver::pair_passes() {
  mpsfw::PhaseTimers::Scope t(timers_, "pair passes");
  store_->compute_densities(config_.physics);
  exchange_.update_ghost_fields(*store_);  // velocities and densities
  store_->compute_accelerations(config_.physics);
}

void SphSolver::advance() {
  {
    mpsfw::PhaseTimers::Scope t(timers_, "move");
    store_->move(config_.physics);
  }
  lists_.follow_move(exchange_, *store_, step_ + 1, decomposition_.comm(), [&] { pair_passes(); });
  ++step_;
}

double SphSolver::time() const { return config_.time_at(step_, config_.physics.dt); }

Diagnostics SphSolver::measure() const {
  const LocalSums local = store_->sums(config_.physics);
  double kinetic = 0, max_speed = 0, density_error = 0;
  long not_finite = 0;
  MPI_Comm comm = decomposition_.comm();
  MPSFW_MPI_CHECK(MPI_Allreduce(&local.kinetic, &kinetic, 1, MPI_DOUBLE, MPI_SUM, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(&local.max_speed, &max_speed, 1, MPI_DOUBLE, MPI_MAX, comm));
  MPSFW_MPI_CHECK(
      MPI_Allreduce(&local.density_error, &density_error, 1, MPI_DOUBLE, MPI_MAX, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(&local.not_finite, &not_finite, 1, MPI_LONG, MPI_SUM, comm));
  if (not_finite > 0 || !std::isfinite(kinetic) || !std::isfinite(max_speed)) {
    throw mpsfw::AgreedError("sph: positions or velocities are no longer finite at step " +
                             std::to_string(step_) + " (" + std::to_string(not_finite) +
                             " particles): the run diverged; take a smaller sph.dt");
  }
  const double t = time();
  return {step_,
          t,
          kinetic / static_cast<double>(total_),
          0.25 * config_.speed * config_.speed *
              taylor_green_decay(t, config_.length, config_.physics.nu),
          density_error,
          max_speed};
}

void SphSolver::begin(std::FILE* out) {
  if (out) {
    std::fprintf(out, "%10s %12s %14s %14s %12s %10s\n", "step", "time", "kinetic/N",
                 "Taylor-Green", "max|drho|", "max|v|");
  }
  diagnose(out);
}

void SphSolver::diagnose(std::FILE* out) {
  diagnostics_.push_back(measure());
  const Diagnostics& g = diagnostics_.back();
  if (out) {
    std::fprintf(out, "%10ld %12.6g %14.8f %14.8f %12.4g %10.5g\n", g.step, g.time, g.kinetic,
                 g.kinetic_exact, g.density_error, g.max_speed);
    std::fflush(out);
  }
}

void SphSolver::open_output(const std::string& path) {
  files_.open_output(path, *store_, step_, time());
}

void SphSolver::write_output() { files_.write_output(*store_, step_, time()); }

void SphSolver::close_output() { files_.close_output(); }

void SphSolver::write_checkpoint(const std::string& path) {
  files_.write_checkpoint(path, *store_, lists_, step_, time());
}

void SphSolver::settle() {
  mpsfw::PhaseTimers::Scope t(timers_, "device sync");
  store_->synchronize();
}

}  // namespace sph
