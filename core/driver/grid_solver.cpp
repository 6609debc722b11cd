#include "grid_solver.hpp"

#include <array>
#include <cmath>
#include <utility>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/memory_preflight.hpp>
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/grid/grid_state.hpp>
#include <mpsfw/core/grid/overlap_boxes.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {

GridDiagnostic sum_of(std::string name, std::string field, double scale) {
  return {std::move(name), GridDiagnostic::Reduce::Sum, scale, std::move(field),
          GridDiagnostic::Of::Value};
}

GridDiagnostic sum_of_squares(std::string name, std::string field, double scale) {
  return {std::move(name), GridDiagnostic::Reduce::Sum, scale, std::move(field),
          GridDiagnostic::Of::Square};
}

GridDiagnostic max_abs_of(std::string name, std::string field) {
  return {std::move(name), GridDiagnostic::Reduce::Max, 1, std::move(field),
          GridDiagnostic::Of::Abs};
}

GridDiagnostic sum_by_kernels(std::string name, double scale) {
  return {std::move(name), GridDiagnostic::Reduce::Sum, scale, "", GridDiagnostic::Of::Kernels};
}

GridDiagnostic max_by_kernels(std::string name) {
  return {std::move(name), GridDiagnostic::Reduce::Max, 1, "", GridDiagnostic::Of::Kernels};
}

GridFieldSpec exchanged_field(std::string name) {
  return {std::move(name), GridFields::Role::State, GridFields::Halo::Exchanged};
}
GridFieldSpec state_field(std::string name) { return {std::move(name)}; }
GridFieldSpec scratch_field(std::string name) {
  return {std::move(name), GridFields::Role::Scratch};
}
GridFieldSpec derived_field(std::string name) {
  return {std::move(name), GridFields::Role::Derived};
}

void GridKernels::derive(const GridArrays&, const Box&) {
  throw Error("the model declares derived fields, but its kernels compute none (derive)");
}

FieldLayout grid_layout(const GridModel& model, Int3 cells) {
  const Int3 g = model.cells;
  return FieldLayout(cells, model.halo_width, {g.x == 1, g.y == 1, g.z == 1});
}

namespace {

// The periodic axes that exchange: a flat axis wraps onto the cell itself.
std::array<bool, 3> exchanged_axes(const GridModel& m) {
  return {m.periodic[0] && m.cells.x > 1, m.periodic[1] && m.cells.y > 1,
          m.periodic[2] && m.cells.z > 1};
}

}  // namespace

MemoryNeed grid_memory_need(const GridModel& model, const FieldLayout& layout, Backend memory) {
  const Int3 n = layout.n;
  const std::int64_t area[3] = {std::int64_t{n.y} * n.z, std::int64_t{n.x} * n.z,
                                std::int64_t{n.x} * n.y};
  std::int64_t faces = 0;
  for (int d = 0; d < 3; ++d) faces += layout.flat(d) ? 0 : 2 * area[d];
  std::int64_t exchanged = 0;
  for (const GridFieldSpec& f : model.fields) exchanged += f.halo == GridFields::Halo::Exchanged;
  const std::int64_t doubles = static_cast<std::int64_t>(model.fields.size()) * layout.size() +
                               2 * exchanged * faces * layout.halo;
  return {memory, doubles * std::int64_t{sizeof(double)},
          model.group + "'s fields and halo buffers"};
}

GridSolver::GridSolver(GridModel model, const RunConfig& run, const Params* params,
                       const RunContext& context)
    : model_(std::move(model)),
      run_(run),
      params_(params),
      backend_(context.device.backend),
      decomposition_(context.world, model_.cells, run.rank_grid_hint, exchanged_axes(model_),
                     kStridedFaceCost),
      layout_(grid_layout(model_, decomposition_.local_cells())),
      fields_(decomposition_, layout_, model_.group) {
  const DeviceBinding& device = context.device;
  // Refused before anything is allocated when the ranks sharing the memory
  // cannot have it.
  const MemoryNeed need = grid_memory_need(model_, layout_, device.memory);
  preflight_memory(decomposition_.comm(), need.space, gpu_identity(device), need.bytes, need.what);
  using Role = GridFields::Role;
  for (const auto& [a, b] : model_.swaps) {
    swaps_.emplace_back(index_of(a, "the step's swap"), index_of(b, "the step's swap"));
    for (const int f : {swaps_.back().first, swaps_.back().second}) {
      if (model_.fields[static_cast<std::size_t>(f)].role == Role::Derived) {
        throw Error(model_.group + ": the step's swap names derived field '" +
                    model_.fields[static_cast<std::size_t>(f)].name +
                    "' (derived fields are computed for snapshots, never stepped)");
      }
    }
  }
  for (const GridFieldSpec& f : model_.fields) derived_ = derived_ || f.role == Role::Derived;
  current_.layout = layout_;
  current_.field.resize(model_.fields.size());
  for (const GridDiagnostic& g : model_.diagnostics) {
    current_.reductions.push_back(
        {g.of == GridDiagnostic::Of::Kernels ? -1 : index_of(g.field, "diagnostic " + g.name),
         g.of});
  }
  std::string error;
  try {
    kernels_ = model_.kernels(backend_);
    const std::size_t size = static_cast<std::size_t>(layout_.size());
    for (std::size_t f = 0; f < model_.fields.size(); ++f)
      arrays_.emplace_back(device.memory, size);
    for (std::size_t f = 0; f < model_.fields.size(); ++f) {
      const GridFieldSpec& spec = model_.fields[f];
      if (spec.role == Role::Scratch) {
        fields_.add_scratch(spec.name, &arrays_[f]);
      } else if (spec.role == Role::Derived) {
        fields_.add_derived(spec.name, &arrays_[f]);
      } else {
        fields_.add(spec.name, &arrays_[f], spec.halo);
      }
    }
    const std::vector<double> zeros(size, 0.0);
    for (Array<double>& a : arrays_) a.copy_from_host(zeros.data());
    // A checkpoint (or an input holding every state field) starts there.
    if (!fields_.restore(run_.input_file)) {
      const std::vector<std::vector<double>> initial =
          model_.initial(decomposition_.offset(), layout_);
      std::size_t next = 0;
      for (std::size_t f = 0; f < model_.fields.size(); ++f) {
        if (model_.fields[f].role != Role::State) continue;
        if (next >= initial.size() || initial[next].size() != size) {
          throw Error(model_.group +
                      ": the initial values hold no block of the layout's size "
                      "for field '" +
                      model_.fields[f].name + "'");
        }
        arrays_[f].copy_from_host(initial[next++].data());
      }
    }
  } catch (const std::exception& e) {
    error = e.what();
  }
  // A failure on some ranks only (out of memory) must stop every rank before
  // the collective connect.
  agree_on_error(decomposition_.comm(), error);
  fields_.connect_halos({device.memory, context.cuda_aware_mpi, run_.halo, device_location(device),
                         run_.halo_sync, model_.corners, &timers_});
  step_ = run_.start_step;
  diagnostics_.push_back(measure());
}

GridSolver::~GridSolver() = default;

int GridSolver::index_of(const std::string& name, const std::string& user) const {
  for (std::size_t f = 0; f < model_.fields.size(); ++f) {
    if (model_.fields[f].name == name) return static_cast<int>(f);
  }
  throw Error(model_.group + ": " + user + " names field '" + name + "', which is not declared");
}

const GridArrays& GridSolver::arrays() {
  for (std::size_t f = 0; f < arrays_.size(); ++f) current_.field[f] = arrays_[f].data();
  return current_;
}

LoopSetup GridSolver::loop_setup() {
  return {&run_, run_.diag_every, "diagnostics", params_, decomposition_.comm(), &timers_};
}

void GridSolver::advance() {
  fields_.start_halos();  // times its own phases (halo post, pack, pull)
  // The faces whose halos travel by MPI arrive at finish(); the rest (pulled
  // device to device, or none) are current once start() returns.
  const FaceMask late = fields_.halos().routes().mpi;
  {
    PhaseTimers::Scope t(timers_, "update");
    kernels_->update(arrays(), inner_box(layout_, late));
  }
  fields_.halos().finish();  // halo wait, unpack
  if (late != 0) {
    PhaseTimers::Scope t(timers_, "shell update");
    const ShellBoxes shell = shell_boxes(layout_, late);
    for (int b = 0; b < shell.count; ++b) kernels_->update(arrays(), shell.box[b]);
  }
  fields_.halos().finish_step();
  for (const auto& [a, b] : swaps_) arrays_[a].swap(arrays_[b]);
  ++step_;
}

std::vector<double> GridSolver::measure() {
  const std::vector<double> local = kernels_->diagnostics(arrays());
  const std::size_t n = model_.diagnostics.size();
  if (local.size() != n) {
    throw Error(model_.group + ": the kernels gave " + std::to_string(local.size()) +
                " diagnostics, the model declares " + std::to_string(n));
  }
  std::vector<double> sums(n, 0.0), maxes(n, 0.0), global_sums(n), global_maxes(n);
  for (std::size_t d = 0; d < n; ++d) {
    (model_.diagnostics[d].reduce == GridDiagnostic::Reduce::Sum ? sums : maxes)[d] = local[d];
  }
  MPI_Comm comm = decomposition_.comm();
  const int count = static_cast<int>(n);
  MPSFW_MPI_CHECK(MPI_Allreduce(sums.data(), global_sums.data(), count, MPI_DOUBLE, MPI_SUM, comm));
  MPSFW_MPI_CHECK(
      MPI_Allreduce(maxes.data(), global_maxes.data(), count, MPI_DOUBLE, MPI_MAX, comm));
  std::vector<double> row = {static_cast<double>(step_), time()};
  for (std::size_t d = 0; d < n; ++d) {
    const GridDiagnostic& g = model_.diagnostics[d];
    const double value =
        (g.reduce == GridDiagnostic::Reduce::Sum ? global_sums : global_maxes)[d] * g.scale;
    if (!std::isfinite(value)) {
      throw AgreedError(model_.group + ": " + g.name + " is no longer finite at step " +
                        std::to_string(step_) +
                        ": the run diverged; check the time step and the initial values");
    }
    row.push_back(value);
  }
  return row;
}

void GridSolver::diagnose(std::FILE*) { diagnostics_.push_back(measure()); }

std::vector<double> GridSolver::local_field(const std::string& name) const {
  return interior_on_host(arrays_[static_cast<std::size_t>(index_of(name, "local_field"))],
                          layout_);
}

void GridSolver::derive() {
  if (!derived_) return;
  fields_.exchange_halos();
  kernels_->derive(arrays(), layout_.interior());
}

void GridSolver::open_output(const std::string& path) {
  derive();
  fields_.open_output(path, model_.geometry, model_.group, step_, time());
}

void GridSolver::write_output() {
  derive();
  fields_.write_output(step_, time());
}

void GridSolver::close_output() { fields_.close_output(); }

void GridSolver::write_checkpoint(const std::string& path) {
  if (params_ == nullptr) throw Error(model_.group + ": a checkpoint needs the run's input");
  fields_.write_checkpoint(path, *params_, step_, time());
}

void GridSolver::settle() {
  if (backend_ != Backend::Host) {
    // Launches return at once: the loop's time ends when the device is done.
    PhaseTimers::Scope t(timers_, "device sync");
    kernels_->synchronize();
  }
  fields_.halos().quiesce();  // no same-GPU neighbour reads a field after this
}

}  // namespace mpsfw
