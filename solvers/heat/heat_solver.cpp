#include "heat_solver.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "heat_initial.hpp"
#include <mpsfw/core/comm/halo_regions.hpp>
#include <mpsfw/core/device/memory_preflight.hpp>
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/grid/grid_state.hpp>
#include <mpsfw/core/grid/overlap_boxes.hpp>
#include <mpsfw/core/input/checkpoint.hpp>
#include <mpsfw/core/io/field_output.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw::heat {
namespace {

std::array<bool, 3> periodic_dims(Boundary b) {
  const bool p = b == Boundary::Periodic;
  return {p, p, p};
}

GridGeometry geometry_of(const HeatConfig& c) {
  GridGeometry g;
  for (int d = 0; d < 3; ++d) {
    g.spacing[static_cast<size_t>(d)] = c.spacing[d];
    g.origin[static_cast<size_t>(d)] = coordinate(0, c.spacing[d], c.boundary);
  }
  return g;
}

}  // namespace

MemoryNeed heat_memory_need(const FieldLayout& layout, Backend memory) {
  // Two fields and one message buffer each way per face.
  std::int64_t face_cells = 0;
  for (int f = 0; f < kFaces; ++f) face_cells += send_region(layout, face_offset(f)).cells();
  return {memory, (2 * layout.size() + 2 * face_cells) * std::int64_t{sizeof(double)},
          "heat's fields and halo buffers"};
}

HeatSolver::HeatSolver(const HeatConfig& config, MPI_Comm comm, const DeviceBinding& device,
                       bool cuda_aware_mpi)
    : config_(config),
      device_(device),
      decomposition_(comm, config.cells, config.rank_grid_hint, periodic_dims(config.boundary),
                     kStridedFaceCost),
      layout_(decomposition_.local_cells()),
      finite_(decomposition_.comm()),
      coefficients_(coefficients(config.diffusivity, config.dt, config.spacing[0],
                                 config.spacing[1], config.spacing[2])) {
  // Refused before anything is allocated when the ranks sharing the memory
  // cannot have it.
  const MemoryNeed need = heat_memory_need(layout_, device.memory);
  preflight_memory(decomposition_.comm(), need.space, gpu_identity(device), need.bytes, need.what);
  std::string error;
  DeviceLocation where;
  try {
    kernels_ = make_heat_kernels(device.backend);
    u_ = Array<double>(device.memory, static_cast<size_t>(layout_.size()));
    next_ = Array<double>(device.memory, static_cast<size_t>(layout_.size()));
    halo_ = std::make_unique<FieldHalos>(decomposition_, layout_, HaloShape{}, device.memory,
                                         cuda_aware_mpi);
    halo_->add_field<double>({u_.data(), next_.data()});
    halo_->set_timers(&timers_);
    where = device_location(device);
    const std::vector<double> initial = initial_block(config_, decomposition_, layout_);
    // Both buffers start equal so the Dirichlet walls in the halo stay fixed;
    // a checkpoint also holds the step before, for the first max_change.
    const std::vector<double> previous = previous_block(config_, decomposition_, layout_);
    u_.copy_from_host(initial.data());
    next_.copy_from_host(previous.empty() ? initial.data() : previous.data());
  } catch (const std::exception& e) {
    error = e.what();
  }
  // A failure on some ranks only (a bad value in their part of u0, out of
  // memory) must stop every rank before the first collective below.
  agree_on_error(decomposition_.comm(), error);
  // The first step reads u_, the fields' buffer 0.
  halo_->connect(config_.halo, where, config_.halo_sync, HaloDelivery::Push);
  halo_->set_peer_wait({config_.peer_wait_seconds, config_.start_step});
  const HaloRoutes& routes = halo_->routes();
  late_faces_ = routes.mpi;
  // A rank that only wraps onto itself (periodic, one rank across) waits for
  // nobody and keeps the whole block in the update's own blocks (pushed last).
  boundary_first_ = kernels_->has_boundary_first() && routes.direct_to_others && routes.mpi == 0;
  inner_ = inner_box(layout_, routes.direct);
  step_ = config_.start_step;
  diagnostics_.push_back(measure(step_));
  // After measure(), the last reader of the step before in next: settling
  // the updates may write next's interior, which the first step overwrites
  // before anything reads it again (checkpoints, output and diagnostics all
  // come after a step).
  prepare_updates();
}

// Settles the boxes update_around_exchange updates before the timed loop
// (some with pushes: settling those too costs little, once).
void HeatSolver::prepare_updates() {
  if (boundary_first_) return;  // every box has pushes
  kernels_->prepare_update(u_.data(), next_.data(), layout_, inner_box(layout_, late_faces_),
                           coefficients_);
  const ShellBoxes shell = shell_boxes(layout_, late_faces_);
  for (int b = 0; b < shell.count; ++b) {
    kernels_->prepare_update(u_.data(), next_.data(), layout_, shell.box[b], coefficients_);
  }
}

HeatSolver::~HeatSolver() = default;

std::string HeatSolver::update_design() const { return kernels_->update_design(); }

LoopSetup HeatSolver::loop_setup() {
  return {&config_, config_.diag_every, "diagnostics", params_, decomposition_.comm(), &timers_};
}

void HeatSolver::advance() {
  const HaloPushes& pushes = halo_->pushes(0, next_.data());
  if (boundary_first_) {
    PhaseTimers::Scope t(timers_, "update");
    kernels_->update_boundary_first(u_.data(), next_.data(), layout_, inner_, coefficients_, pushes,
                                    halo_->step_handshake());
  } else {
    update_around_exchange(pushes);
  }
  // Halo sync with same-GPU neighbours: the host barrier without MPS; under
  // MPS the handshake kernel, unless the boundary-first launch ran it.
  halo_->finish_step(boundary_first_ ? Handshake::RunByCaller : Handshake::Enqueue);
  u_.swap(next_);
  ++step_;
}

void HeatSolver::update_around_exchange(const HaloPushes& pushes) {
  halo_->start(u_.data());  // times its own phases (halo post, pack)
  // Same-GPU neighbours' halos are written by the step's last update, once
  // every halo of u is current.
  static const HaloPushes none;
  {
    PhaseTimers::Scope t(timers_, "inner update");
    kernels_->update(u_.data(), next_.data(), layout_, inner_box(layout_, late_faces_),
                     coefficients_, late_faces_ == 0 ? pushes : none);
  }
  halo_->finish();  // halo wait, halo unpack
  if (late_faces_ != 0) {
    PhaseTimers::Scope t(timers_, "shell update");
    const ShellBoxes shell = shell_boxes(layout_, late_faces_);
    for (int b = 0; b < shell.count; ++b) {
      kernels_->update(u_.data(), next_.data(), layout_, shell.box[b], coefficients_,
                       b + 1 == shell.count ? pushes : none);
    }
  }
}

Diagnostics HeatSolver::measure(long step) const {
  const LocalDiagnostics local = kernels_->diagnostics(u_.data(), next_.data(), layout_);
  double total = 0, max_change = 0;
  MPI_Comm comm = decomposition_.comm();
  MPSFW_MPI_CHECK(MPI_Allreduce(&local.total, &total, 1, MPI_DOUBLE, MPI_SUM, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(&local.max_change, &max_change, 1, MPI_DOUBLE, MPI_MAX, comm));
  if (!std::isfinite(total) || !std::isfinite(max_change)) stop_non_finite(step, local);
  const double cell_volume = config_.spacing[0] * config_.spacing[1] * config_.spacing[2];
  return {step, config_.time_at(step, config_.dt), total * cell_volume, max_change};
}

// Every rank saw the same non-finite sums: name the first rank whose own
// part is not finite, and stop them all with one message.
void HeatSolver::stop_non_finite(long step, const LocalDiagnostics& local) const {
  const bool mine_bad = !std::isfinite(local.total) || !std::isfinite(local.max_change);
  int me = mine_bad ? decomposition_.rank() : decomposition_.size(), first = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, decomposition_.comm()));
  throw AgreedError("heat: the field is no longer finite at step " + std::to_string(step) +
                    " (first on rank " + std::to_string(first) +
                    "): the run diverged; check heat.dt, the initial values and the amplitude");
}

void HeatSolver::write_checkpoint(const std::string& path) {
  if (params_ == nullptr) throw Error("heat: a checkpoint needs the run's parameters");
  write_grid_checkpoint(path, *params_, step_, config_.time_at(step_, config_.dt),
                        {"heat.initial=dataset"}, decomposition_,
                        {{"/heat/u0", [&] { return interior_on_host(u_, layout_); }},
                         {"/heat/u_previous", [&] { return interior_on_host(next_, layout_); }}});
}

void HeatSolver::diagnose(std::FILE*) { diagnostics_.push_back(measure(step_)); }

void HeatSolver::check() {
  const LocalDiagnostics local = kernels_->diagnostics(u_.data(), next_.data(), layout_);
  const bool finite = std::isfinite(local.total) && std::isfinite(local.max_change);
  if (!finite_.all_finite(finite)) stop_non_finite(step_, local);
}

void HeatSolver::open_output(const std::string& path) {
  output_ = std::make_unique<FieldOutput>(path, decomposition_, geometry_of(config_), "heat");
  write_output();
}

void HeatSolver::write_output() {
  const std::vector<double> block = local_interior();
  output_->write(step_, config_.time_at(step_, config_.dt), block.data());
}

void HeatSolver::close_output() {
  output_->commit();
  output_.reset();
}

void HeatSolver::settle() {
  if (device_.backend != Backend::Host) {
    PhaseTimers::Scope t(timers_, "device sync");
    kernels_->synchronize();
  }
  halo_->quiesce();  // no same-GPU neighbour reads our fields after this
}

std::vector<double> HeatSolver::local_interior() const { return interior_on_host(u_, layout_); }

std::vector<double> HeatSolver::gather_global() const {
  return gather_grid(decomposition_, local_interior());
}

}  // namespace mpsfw::heat
