#include "md_solver.hpp"

#include <algorithm>
#include <cmath>

#include "md_dataset_input.hpp"
#include "md_initial.hpp"
#include "md_output.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/memory_preflight.hpp>
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/input/checkpoint.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw::md {

MdSolver::MdSolver(const MdConfig& config, MPI_Comm comm, const DeviceBinding& device,
                   bool cuda_aware_mpi)
    : config_(config),
      decomposition_(comm, link_cells(config), config.rank_grid_hint, {true, true, true}),
      domain_(subdomain_of(decomposition_, config.box)),
      comm_(decomposition_, domain_, ghost_width(config), config, device, cuda_aware_mpi,
            {"MD", "atom", "atoms"}),
      backend_(device.backend),
      lists_({ghost_width(config), config.skin, config.rebuild_every}, timers_),
      step_(config.start_step) {
  // Errors on one rank (a bad dataset, out of device memory) stop every rank
  // together; the caller reports the agreed message once.
  std::string error;
  std::vector<AtomRecord> atoms;
  long atoms_in_box = 0;
  try {
    store_ = make_md_store(device.backend, config_.pair);
    atoms_in_box = input_atom_count(config_);
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree_on_error(decomposition_.comm(), error);
  preflight(device, atoms_in_box);
  // A checkpoint of this very layout resumes exactly (particle_resume.hpp).
  std::optional<ResumeState> exact;
  try {
    if (config_.initial == Initial::Dataset) {
      exact = md_resume_state(config_, decomposition_.rank(), decomposition_.size(),
                              {decomposition_.rank_grid(), to_string(device.backend)});
      atoms = exact ? atoms_of(exact->records) : dataset_atoms(config_, domain_);
    }
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree_on_error(decomposition_.comm(), error);
  // Collective (momentum and temperature sums): only after every rank is ready.
  if (config_.initial == Initial::Fcc) atoms = fcc_atoms(config_, domain_, decomposition_.comm());
  try {
    store_->assign(atoms);
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree_on_error(decomposition_.comm(), error);
  long mine = store_->owned();
  MPSFW_MPI_CHECK(MPI_Allreduce(&mine, &total_atoms_, 1, MPI_LONG, MPI_SUM, decomposition_.comm()));
  // The first lists and forces are set-up, not a step: untimed.
  if (exact) {
    lists_.resume(comm_, *store_, exact->positions, exact->steps_on_lists);
  } else {
    lists_.rebuild(comm_, *store_, step_);
  }
  store_->compute_forces();
  comm_.set_peer_wait({config_.peer_wait_seconds, step_});
  timers_ = PhaseTimers();
  lists_.reset_rebuilds();
}

long input_atom_count(const MdConfig& config) {
  return config.initial == Initial::Dataset ? dataset_atom_count(config.input_file)
                                            : fcc_atom_count(config);
}

std::vector<MemoryNeed> md_memory_needs(const MdConfig& config, const Subdomain& domain,
                                        long atoms_in_box, const MdStore& store, Backend memory) {
  std::vector<MemoryNeed> needs;
  // A dataset is read whole by every rank (AtomRecord plus the separation
  // check's cell list) before each keeps its own atoms.
  if (config.initial == Initial::Dataset) {
    const double bytes = static_cast<double>(atoms_in_box) * (sizeof(AtomRecord) + 2 * 8.0);
    needs.push_back({Backend::Host, static_cast<std::int64_t>(bytes),
                     "reading " + config.input_file + " (every rank holds all " +
                         std::to_string(atoms_in_box) + " atoms once)"});
  }
  // Owned atoms and ghosts at the box's mean density (a tenth more for
  // fluctuation); list rows sized for the longest list, about 1.3 times the
  // mean number within cutoff + skin (256k atoms in in.lj: 345 MiB estimated,
  // 354 MiB peak RSS over an empty run).
  const double volume = config.box[0] * config.box[1] * config.box[2];
  const double density = static_cast<double>(atoms_in_box) / volume, g = ghost_width(config);
  double own = 1, widened = 1;
  for (int d = 0; d < 3; ++d) {
    own *= domain.hi[d] - domain.lo[d];
    widened *= domain.hi[d] - domain.lo[d] + 2 * g;
  }
  const double owned = 1.1 * density * own, ghosts = 1.1 * density * (widened - own);
  const double neighbours = 1.3 * density * 4.0 / 3.0 * 3.141592653589793 * g * g * g;
  const double bytes = store.bytes_for(owned, ghosts, neighbours);
  needs.push_back({memory, static_cast<std::int64_t>(std::min(bytes, 9.0e18)),
                   "MD's atoms, neighbour lists and ghosts"});
  return needs;
}

void MdSolver::preflight(const DeviceBinding& device, long atoms_in_box) const {
  for (const MemoryNeed& need :
       md_memory_needs(config_, domain_, atoms_in_box, *store_, device.backend)) {
    preflight_memory(decomposition_.comm(), need.space, gpu_identity(device), need.bytes,
                     need.what);
  }
}

double MdSolver::time_now() const { return config_.time_at(step_, config_.dt); }

MdSolver::~MdSolver() = default;

LoopSetup MdSolver::loop_setup() {
  return {&config_, config_.diag_every, "thermo", params_, decomposition_.comm(), &timers_};
}

void MdSolver::write_checkpoint(const std::string& path) {
  if (params_ == nullptr) throw Error("MD: a checkpoint needs the run's parameters");
  const ResumeRows mine = {records_of(store_->download()), store_->download_build_positions(),
                           store_->max_displacement(), lists_.steps_on_lists()};
  md::write_checkpoint(path, *params_, config_, step_, time_now(), mine,
                       {decomposition_.rank_grid(), to_string(backend_)}, decomposition_.comm());
}

std::vector<AtomRecord> MdSolver::local_atoms() const {
  std::vector<AtomRecord> atoms = store_->download();
  for (AtomRecord& a : atoms) {
    for (int d = 0; d < 3; ++d) a.x[d] = wrapped(a.x[d], config_.box[d]);
  }
  return atoms;
}

void MdSolver::advance() {
  const double dt = config_.dt;
  {
    PhaseTimers::Scope t(timers_, "integrate");
    store_->kick_drift(0.5 * dt, dt, config_.mass);
  }
  lists_.follow_move(comm_, *store_, step_ + 1, decomposition_.comm(), [&] {  // the step being made
    PhaseTimers::Scope t(timers_, "force");
    store_->compute_forces();
  });
  {
    PhaseTimers::Scope t(timers_, "integrate");
    store_->kick(0.5 * dt, config_.mass);
  }
  ++step_;
  const bool thermostat_on = config_.thermostat == Thermostat::Rescale &&
                             (config_.thermostat_until == 0 || step_ <= config_.thermostat_until);
  if (thermostat_on && step_ % config_.thermostat_every == 0) {
    PhaseTimers::Scope t(timers_, "thermostat");
    // Velocity rescaling: T -> target exactly (crude, for equilibration only).
    const double now = measure().temperature;
    if (now > 0) store_->scale_velocities(std::sqrt(config_.target_temperature / now));
  }
}

Thermo MdSolver::measure() {
  const MotionSums m = store_->motion(config_.mass);
  const ForceSums f = store_->pair_sums();
  double local[7] = {m.kinetic,
                     f.potential,
                     f.virial,
                     m.momentum[0],
                     m.momentum[1],
                     m.momentum[2],
                     static_cast<double>(store_->owned())};
  double sum[7];
  MPSFW_MPI_CHECK(MPI_Allreduce(local, sum, 7, MPI_DOUBLE, MPI_SUM, decomposition_.comm()));
  // Every rank sees the same sum: all stop together if an atom went missing.
  if (sum[6] != static_cast<double>(total_atoms_)) {
    throw Error("MD: the ranks hold " + std::to_string(static_cast<long>(sum[6])) +
                " atoms at step " + std::to_string(step_) + ", not " +
                std::to_string(total_atoms_));
  }
  // Sums every rank shares: all stop together, at every rank count alike.
  for (int q = 0; q < 3; ++q) {
    if (!std::isfinite(sum[q])) {
      const char* what[3] = {"kinetic energy", "potential energy", "virial"};
      throw AgreedError(non_finite_message(what[q]));
    }
  }
  Thermo t;
  const double n = static_cast<double>(total_atoms_);
  const double volume = config_.box[0] * config_.box[1] * config_.box[2];
  t.step = step_;
  t.time = time_now();
  t.temperature = temperature_of(sum[0], total_atoms_);
  t.kinetic = sum[0] / n;
  t.potential = sum[1] / n;
  t.total = t.kinetic + t.potential;
  // Virial pressure: P = (N T + sum_pairs r . F / 3) / V.
  t.pressure = (n * t.temperature + sum[2] / 3) / volume;
  for (int d = 0; d < 3; ++d) t.momentum[d] = sum[3 + d];
  return t;
}

// Cheaper than measure() (no pair pass): a non-finite force reaches the
// velocities at the next kick, so the kinetic energy shows it.
void MdSolver::check_motion_finite() {
  const double kinetic = store_->motion(config_.mass).kinetic;
  double sum = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&kinetic, &sum, 1, MPI_DOUBLE, MPI_SUM, decomposition_.comm()));
  if (!std::isfinite(sum)) throw AgreedError(non_finite_message("kinetic energy"));
}

std::string MdSolver::non_finite_message(const std::string& quantity) const {
  return "MD: the " + quantity + " is no longer finite at step " + std::to_string(step_) +
         ": the run blew up (atoms too close, or md.dt too large)";
}

void MdSolver::print_thermo_header(std::FILE* out) {
  std::fprintf(out, "%10s %12s %12s %14s %14s %14s %12s\n", "step", "time", "temperature",
               "potential", "kinetic", "total", "pressure");
}

void MdSolver::print_thermo(std::FILE* out, const Thermo& t) {
  std::fprintf(out, "%10ld %12.6g %12.6f %14.8f %14.8f %14.8f %12.6f\n", t.step, t.time,
               t.temperature, t.potential, t.kinetic, t.total, t.pressure);
  std::fflush(out);
}

void MdSolver::begin(std::FILE* out) {
  if (out) print_thermo_header(out);
  PhaseTimers::Scope t(timers_, "thermo");
  diagnose(out);
}

void MdSolver::diagnose(std::FILE* out) {
  thermo_.push_back(measure());
  if (out) print_thermo(out, thermo_.back());
}

void MdSolver::open_output(const std::string& path) {
  trajectory_ = std::make_unique<MdTrajectory>(path, config_, decomposition_.comm());
  write_output();
}

void MdSolver::write_output() { trajectory_->write_frame(step_, time_now(), local_atoms()); }

void MdSolver::close_output() {
  trajectory_->close();
  trajectory_.reset();
}

}  // namespace mpsfw::md
