#pragma once
// A stencil solver of one's own, with the framework owning everything but its
// physics. The solver describes its grid once (GridModel: cells, periodic
// axes, halo width, its fields with their roles, the swaps that end a step,
// its diagnostics, its initial values) and supplies its kernels (GridKernels:
// the interior update and the block's diagnostics, written once over the
// backends' primitives and built per backend with MPSFW_BACKEND_PART).
// GridSolver then steps it on the time loop, in the framework's order:
//   start the exchanged fields' halos -> update the cells away from the
//   halos that travel by MPI -> finish the halos -> update the shell -> finish
//   the step's exchange (ordering with same-GPU neighbours) -> the swaps
// with the diagnostics reduced over ranks and guarded (one not finite stops
// every rank), snapshots, checkpoints and restart of the state fields
// (GridFields), the memory preflight and the device's settle.
// grid_workload.hpp makes a Workload of it: banner, report, memory needs.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "time_loop.hpp"
#include "workload.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/device/timers.hpp>
#include <mpsfw/core/grid/grid_fields.hpp>
#include <mpsfw/core/grid/grid_loops.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/io/field_output.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw {

// A diagnostic: the sum or the largest of the ranks' shares, times `scale`
// (a cell volume). Each rank's share is the kernels' own (Of::Kernels), or
// the framework's over one field's interior cells: the sum of its values or
// of their squares, the largest |value| (sum_of, sum_of_squares,
// max_abs_of). A sum over a field also guards it: a value not finite makes
// the sum not finite, which stops the run.
struct GridDiagnostic {
  enum class Reduce { Sum, Max };
  enum class Of { Kernels, Value, Square, Abs };
  std::string name;
  Reduce reduce = Reduce::Sum;
  double scale = 1;
  std::string field;  // for every Of but Kernels
  Of of = Of::Kernels;
};
GridDiagnostic sum_of(std::string name, std::string field, double scale = 1);
GridDiagnostic sum_of_squares(std::string name, std::string field, double scale = 1);
GridDiagnostic max_abs_of(std::string name, std::string field);
// The kernels' own shares (GridKernels::diagnostics computes them).
GridDiagnostic sum_by_kernels(std::string name, double scale = 1);
GridDiagnostic max_by_kernels(std::string name);

// The fields as a step sees them: the memory each declared field is in now
// (declaration order: the kernels name them by index), the block's layout,
// and the diagnostics the framework computes over fields (by field index).
struct GridArrays {
  struct Reduction {
    int field = -1;  // -1: the kernels' own
    GridDiagnostic::Of of = GridDiagnostic::Of::Kernels;
  };
  FieldLayout layout;
  std::vector<double*> field;
  std::vector<Reduction> reductions;
};

// A grid solver's work on the bound backend.
class GridKernels {
 public:
  virtual ~GridKernels() = default;
  // The step's new values of `cells`, a box of the interior: the framework
  // updates the cells whose stencil reads no halo that travels by MPI while
  // those halos travel, then the rest of the interior, box by box (the whole
  // interior at once where no halo does). The halos a box's stencil reads are
  // current. On a GPU it returns at once.
  virtual void update(const GridArrays& arrays, const Box& cells) = 0;
  // This rank's share of each diagnostic (GridModel::diagnostics' order)
  // over its interior; waits for its result. GridKernelsOn computes those
  // over fields; kernels with diagnostics of their own override it.
  virtual std::vector<double> diagnostics(const GridArrays& arrays) = 0;
  // The derived fields' values over `cells` (the interior) from the state,
  // the exchanged fields' halos current; before each snapshot. Models with
  // derived fields override it.
  virtual void derive(const GridArrays& arrays, const Box& cells);
  // Waits for everything launched so far.
  virtual void synchronize() = 0;
};

// Kernels written over a backend's primitives (Exec: HostExec, CudaExec,
// KokkosExec) hold them as `exec`, wait on them, and compute the
// diagnostics over fields.
template <class Exec>
class GridKernelsOn : public GridKernels {
 public:
  void synchronize() override { exec.synchronize(); }
  std::vector<double> diagnostics(const GridArrays& a) override {
    using Of = GridDiagnostic::Of;
    std::vector<double> out;
    const Box in = a.layout.interior();
    for (const GridArrays::Reduction& r : a.reductions) {
      if (r.of == Of::Kernels) {
        throw Error("a diagnostic of the kernels' own, but the kernels compute none");
      }
      const double* f = a.field[static_cast<std::size_t>(r.field)];
      if (r.of == Of::Value) {
        out.push_back(sum_over_cells(
            exec, a.layout, in, MPSFW_LAMBDA(std::int64_t c) { return f[c]; }));
      } else if (r.of == Of::Square) {
        out.push_back(sum_over_cells(
            exec, a.layout, in, MPSFW_LAMBDA(std::int64_t c) { return f[c] * f[c]; }));
      } else {
        out.push_back(max_over_cells(
            exec, a.layout, in, MPSFW_LAMBDA(std::int64_t c) { return std::fabs(f[c]); }));
      }
    }
    return out;
  }

 protected:
  Exec exec;
};

// A field and its role, one line each:
//   exchanged_field("u")   state whose halo is exchanged each step
//   state_field("u_prev")  state read at its own cell only (no halo exchanged)
//   scratch_field("next")  an array state is computed into and swapped with:
//                          never written, saved or required
//   derived_field("e")     computed from the state by the kernels' derive()
//                          for each snapshot (the exchanged halos current),
//                          written there only
// State is what snapshots, checkpoints and a restart hold.
struct GridFieldSpec {
  std::string name;
  GridFields::Role role = GridFields::Role::State;
  GridFields::Halo halo = GridFields::Halo::None;
};
GridFieldSpec exchanged_field(std::string name);
GridFieldSpec state_field(std::string name);
GridFieldSpec scratch_field(std::string name);
GridFieldSpec derived_field(std::string name);

struct GridModel {
  std::string group;  // the input group ("wave"): datasets /<group>/<field>
  // One cell along an axis makes it flat: no halo, no exchange, and the
  // kernels' neighbour_stride 0 there (a 2D grid: cells.z = 1).
  Int3 cells;
  std::array<bool, 3> periodic{};
  int halo_width = 1;
  bool corners = false;   // edges and corners exchanged too (27-point stencils)
  GridGeometry geometry;  // cell spacing and origin, for the snapshots
  double dt = 0;          // the time a step advances
  std::vector<GridFieldSpec> fields;
  // Fields whose arrays swap contents after each step, by name.
  std::vector<std::pair<std::string, std::string>> swaps;
  std::vector<GridDiagnostic> diagnostics;
  // The state fields' first values (declaration order, others skipped) for
  // the block of `layout.n` cells whose first cell is global cell `offset`,
  // on the host, laid out as `layout` (halo cells 0: a wall's value;
  // periodic halos are filled by the first exchange). Not called when the
  // input holds the state (a checkpoint).
  std::function<std::vector<std::vector<double>>(Int3 offset, const FieldLayout& layout)> initial;
  // The kernels on a bound backend (make_part).
  std::function<std::unique_ptr<GridKernels>(Backend)> kernels;
  // The input keys of cells along x, y, z: a weak-scaling study multiplies
  // them (empty: the workload gives no weak scaling).
  std::vector<std::string> cell_keys;
};

// The layout of a block of `cells` of `model`: its halo width, and flat
// (no halo, no exchange) along every axis where the whole grid has one cell
// (a 2D grid's z).
FieldLayout grid_layout(const GridModel& model, Int3 cells);

// What a rank with `layout` allocates for `model` in `memory`: every field,
// and a send and a receive buffer per face of each exchanged field.
MemoryNeed grid_memory_need(const GridModel& model, const FieldLayout& layout, Backend memory);

class GridSolver final : public Steppable {
 public:
  // Collective over context.world: splits the grid, checks the memory,
  // allocates the fields in the bound device's memory, sets the state from
  // the input where it holds every state field's dataset (a checkpoint) or
  // from model.initial, connects the halos. A failure on any rank throws
  // AgreedError on every rank. `params` (the input a checkpoint repeats;
  // nullptr: a run without checkpoints) outlives it.
  GridSolver(GridModel model, const RunConfig& run, const Params* params,
             const RunContext& context);
  ~GridSolver();
  GridSolver(const GridSolver&) = delete;
  GridSolver& operator=(const GridSolver&) = delete;

  LoopSetup loop_setup() override;
  long step() const override { return step_; }
  void advance() override;
  void diagnose(std::FILE* out) override;
  void check() override { measure(); }
  void open_output(const std::string& path) override;
  void write_output() override;
  void close_output() override;
  void write_checkpoint(const std::string& path) override;
  void settle() override;

  const GridModel& model() const { return model_; }
  const CartDecomposition& decomposition() const { return decomposition_; }
  const PhaseTimers& timers() const { return timers_; }
  std::string halo_path() const { return fields_.halos().path(); }
  // Every diagnose(): step, time, then the model's diagnostics.
  const std::vector<std::vector<double>>& diagnostics() const { return diagnostics_; }
  // This rank's interior cells of field `name`, x fastest, on the host.
  std::vector<double> local_field(const std::string& name) const;

 private:
  // The fields as the kernels see them now (after the last swaps).
  const GridArrays& arrays();
  // Collective: the derived fields from the state, for a snapshot.
  void derive();
  std::vector<double> measure();  // collective
  double time() const { return run_.time_at(step_, model_.dt); }
  // The index of field `name`; Error naming `user` where none is declared.
  int index_of(const std::string& name, const std::string& user) const;

  GridModel model_;
  RunConfig run_;
  const Params* params_;
  Backend backend_;
  CartDecomposition decomposition_;
  FieldLayout layout_;
  std::unique_ptr<GridKernels> kernels_;
  std::vector<Array<double>> arrays_;  // one per field, declaration order
  std::vector<std::pair<int, int>> swaps_;
  bool derived_ = false;  // the model declares derived fields
  GridArrays current_;    // arrays(): the layout, the reductions, a pointer a field
  // Declared after the arrays: destroyed (its halos too) before them.
  GridFields fields_;
  PhaseTimers timers_;
  std::vector<std::vector<double>> diagnostics_;
  long step_ = 0;
};

}  // namespace mpsfw
