#include "heat_solver.hpp"

#include <chrono>
#include <string>

#include "core/box_copy.hpp"
#include "core/collective.hpp"
#include "core/field_output.hpp"
#include "core/mpi_check.hpp"
#include "core/peer_memory.hpp"
#include "core/progress.hpp"
#include "heat_initial.hpp"

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

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

HeatSolver::HeatSolver(const HeatConfig& config, MPI_Comm comm, const DeviceBinding& device,
                       bool cuda_aware_mpi)
    : config_(config),
      device_(device),
      decomposition_(comm, config.cells, config.rank_grid_hint, periodic_dims(config.boundary),
                     kStridedFaceCost),
      layout_(decomposition_.local_cells()),
      coefficients_(coefficients(config.diffusivity, config.dt, config.spacing[0],
                                 config.spacing[1], config.spacing[2])) {
  std::string error, gpu;
  try {
    kernels_ = make_heat_kernels(device.backend);
    u_ = Array<double>(device.backend, static_cast<size_t>(layout_.size()));
    next_ = Array<double>(device.backend, static_cast<size_t>(layout_.size()));
    halo_ = std::make_unique<HaloExchange>(decomposition_, layout_, device.backend, cuda_aware_mpi);
    halo_->set_timers(&timers_);
    gpu = gpu_identity(device);
    const std::vector<double> initial = initial_block(config_, decomposition_, layout_);
    // Both buffers start equal so the Dirichlet walls in the halo stay fixed.
    u_.copy_from_host(initial.data());
    next_.copy_from_host(initial.data());
  } catch (const std::exception& e) {
    error = e.what();
  }
  // A failure on some ranks only (a bad value in their part of u0, out of
  // memory) must stop every rank before the first collective below.
  agree_on_error(decomposition_.comm(), error);
  halo_->connect_same_gpu_peers(config_.halo, config_.halo_sync, gpu, {u_.data(), next_.data()});
  const HaloPlan& plan = halo_->plan();
  late_faces_ = plan.mpi;
  boundary_first_ = plan.boundary_first;
  inner_ = inner_box(layout_, plan.pushed);
  diagnostics_.push_back(measure(0));
}

HeatSolver::~HeatSolver() = default;

void HeatSolver::step_once() {
  const HaloPushes& pushes = halo_->pushes(next_.data());
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
  halo_->finish(u_.data());  // halo wait, halo unpack
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
  const double cell_volume = config_.spacing[0] * config_.spacing[1] * config_.spacing[2];
  return {step, step * config_.dt, total * cell_volume, max_change};
}

void HeatSolver::run(std::FILE* progress) {
  std::unique_ptr<FieldOutput> output;
  const auto snapshot = [&] {
    PhaseTimers::Scope t(timers_, "output");
    const std::vector<double> block = local_interior();
    output->write(step_, step_ * config_.dt, block.data());
  };
  if (!config_.output_file.empty()) {
    output = std::make_unique<FieldOutput>(config_.output_file, decomposition_,
                                           geometry_of(config_), "heat");
    snapshot();
  }

  const auto t0 = std::chrono::steady_clock::now();
  ProgressLine progress_line(decomposition_.rank() == 0 ? progress : nullptr, config_.steps,
                             config_.progress_seconds);
  const long last = step_ + config_.steps;
  while (step_ < last) {
    step_once();
    if (step_ == last || (config_.diag_every > 0 && step_ % config_.diag_every == 0)) {
      PhaseTimers::Scope t(timers_, "diagnostics");
      diagnostics_.push_back(measure(step_));
    }
    if (output &&
        (step_ == last || (config_.output_every > 0 && step_ % config_.output_every == 0))) {
      snapshot();
    }
    progress_line.update(config_.steps - (last - step_));
  }
  if (device_.backend == Backend::Cuda) {
    PhaseTimers::Scope t(timers_, "device sync");
    kernels_->synchronize();
  }
  halo_->quiesce();  // no same-GPU neighbour reads our fields after this
  loop_seconds_ = seconds_since(t0);
  if (output) output->commit();
}

std::vector<double> HeatSolver::local_interior() const {
  const Box interior = layout_.interior();
  std::vector<double> host(static_cast<size_t>(interior.cells()));
  if (u_.space() == Backend::Host) {
    pack_box(Backend::Host, u_.data(), layout_, interior, host.data());
  } else {
    Array<double> packed(u_.space(), host.size());
    pack_box(u_.space(), u_.data(), layout_, interior, packed.data());
    packed.copy_to_host(host.data());
  }
  return host;
}

std::vector<double> HeatSolver::gather_global() const {
  MPI_Comm comm = decomposition_.comm();
  const std::vector<double> mine = local_interior();
  const int ranks = decomposition_.size();
  const int me = decomposition_.rank();
  // Each rank's offset and size, then the blocks themselves.
  const Int3 off = decomposition_.offset(), n = decomposition_.local_cells();
  const int geometry[6] = {off.x, off.y, off.z, n.x, n.y, n.z};
  std::vector<int> all_geometry(me == 0 ? 6 * static_cast<size_t>(ranks) : 0);
  MPSFW_MPI_CHECK(MPI_Gather(geometry, 6, MPI_INT, all_geometry.data(), 6, MPI_INT, 0, comm));
  std::vector<int> counts(static_cast<size_t>(ranks)), displs(static_cast<size_t>(ranks));
  std::vector<double> blocks;
  if (me == 0) {
    int total = 0;
    for (int r = 0; r < ranks; ++r) {
      const int* g = &all_geometry[6 * static_cast<size_t>(r)];
      counts[static_cast<size_t>(r)] = g[3] * g[4] * g[5];
      displs[static_cast<size_t>(r)] = total;
      total += counts[static_cast<size_t>(r)];
    }
    blocks.resize(static_cast<size_t>(total));
  }
  MPSFW_MPI_CHECK(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, blocks.data(),
                              counts.data(), displs.data(), MPI_DOUBLE, 0, comm));
  if (me != 0) return {};
  const Int3 global = decomposition_.global_cells();
  std::vector<double> field(static_cast<size_t>(global.product()));
  for (int r = 0; r < ranks; ++r) {
    const int* g = &all_geometry[6 * static_cast<size_t>(r)];
    size_t t = static_cast<size_t>(displs[static_cast<size_t>(r)]);
    for (int k = 0; k < g[5]; ++k)
      for (int j = 0; j < g[4]; ++j)
        for (int i = 0; i < g[3]; ++i) {
          const std::int64_t gi = g[0] + i, gj = g[1] + j, gk = g[2] + k;
          field[static_cast<size_t>((gk * global.y + gj) * global.x + gi)] = blocks[t++];
        }
  }
  return field;
}

}  // namespace mpsfw::heat
