// GridSolver and grid_workload (core/driver): a stencil solver that is its
// model and its kernels. A toy explicit Euler diffusion with a scratch next
// level (7-point, periodic along x and y, walls along z):
//   - on every rank count and rank grid its state equals one block's
//     reference bit for bit after the time loop, and its diagnostics are the
//     reference's sums;
//   - its checkpoint holds the state and not the scratch, and a run resumed
//     from it on all ranks ends where one run of all its steps ends;
//   - a diagnostic that is no longer finite stops every rank naming it;
//   - the framework's diagnostics over a field equal the kernels' sums;
//   - a swap of an undeclared field is refused; the memory need counts every
//     field and the exchanged field's halo buffers;
//   - the workload derives the banner, the weak-scaling keys and the split
//     hint from the model.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "support/mpi_temp_dir.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/driver/grid_solver.hpp>
#include <mpsfw/core/driver/grid_workload.hpp>
#include <mpsfw/core/grid/grid_state.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/host_exec.hpp>

namespace mpsfw {
namespace {

constexpr Int3 kCells{9, 8, 7};
constexpr double kWeight = 0.1;  // alpha dt / h^2

enum ToyField { kU, kNext };

double first_value(Int3 g) { return std::sin(0.7 * g.x + 0.3 * g.y) + 0.01 * g.z * g.z; }

double updated(const double* u, std::int64_t c, std::int64_t sy, std::int64_t sz) {
  const double lap = ((u[c - 1] + u[c + 1]) + (u[c - sy] + u[c + sy])) + (u[c - sz] + u[c + sz]);
  return u[c] + kWeight * (lap - 6.0 * u[c]);
}

// The host's kernels, as a backend part would be.
class ToyKernels final : public GridKernels {
 public:
  explicit ToyKernels(double poison = 0) : poison_(poison) {}
  void update(const GridArrays& a, const Box& in) override {
    const double* u = a.field[kU];
    double* next = a.field[kNext];
    for (int k = in.lo.z; k < in.hi.z; ++k)
      for (int j = in.lo.y; j < in.hi.y; ++j)
        for (int i = in.lo.x; i < in.hi.x; ++i) {
          const std::int64_t c = a.layout.index(i, j, k);
          next[c] =
              updated(u, c, a.layout.neighbour_stride(1), a.layout.neighbour_stride(2)) + poison_;
        }
  }
  std::vector<double> diagnostics(const GridArrays& a) override {
    const Box in = a.layout.interior();
    double sum = 0, max = 0;
    for (int k = in.lo.z; k < in.hi.z; ++k)
      for (int j = in.lo.y; j < in.hi.y; ++j)
        for (int i = in.lo.x; i < in.hi.x; ++i) {
          const double v = a.field[kU][a.layout.index(i, j, k)];
          sum += v;
          max = std::max(max, std::fabs(v));
        }
    return {sum, max};
  }
  void synchronize() override {}

 private:
  double poison_;
};

GridModel toy_model(double poison = 0, Int3 cells = kCells) {
  GridModel m;
  m.group = "toy";
  m.cells = cells;
  m.periodic = {true, true, false};
  m.fields = {exchanged_field("u"), scratch_field("u_next")};
  m.swaps = {{"u", "u_next"}};
  m.diagnostics = {sum_by_kernels("sum_u", 2.0), max_by_kernels("max_abs_u")};
  m.dt = 0.5;
  m.initial = [](Int3 offset, const FieldLayout& layout) {
    std::vector<double> u(static_cast<std::size_t>(layout.size()), 0.0);
    const Box in = layout.interior();
    for (int k = in.lo.z; k < in.hi.z; ++k)
      for (int j = in.lo.y; j < in.hi.y; ++j)
        for (int i = in.lo.x; i < in.hi.x; ++i) {
          const Int3 g{offset.x + i - in.lo.x, offset.y + j - in.lo.y, offset.z + k - in.lo.z};
          u[static_cast<std::size_t>(layout.index(i, j, k))] = first_value(g);
        }
    return std::vector<std::vector<double>>{u};
  };
  m.kernels = [poison](Backend) { return std::make_unique<ToyKernels>(poison); };
  m.cell_keys = {"toy.nx", "toy.ny", "toy.nz"};
  return m;
}

// The interior of a host field of `layout`, x fastest.
std::vector<double> interior_of(const std::vector<double>& f, const FieldLayout& layout) {
  std::vector<double> out;
  const Box in = layout.interior();
  for (int k = in.lo.z; k < in.hi.z; ++k)
    for (int j = in.lo.y; j < in.hi.y; ++j)
      for (int i = in.lo.x; i < in.hi.x; ++i)
        out.push_back(f[static_cast<std::size_t>(layout.index(i, j, k))]);
  return out;
}

// One block of the whole box (flat along z where it has one cell), the
// periodic halo and the zero walls by hand: u after `steps` steps, x fastest
// (interior only).
std::vector<double> reference(long steps, Int3 cells = kCells) {
  const FieldLayout whole(cells, 1, {0, 0, cells.z == 1});
  std::vector<double> u = toy_model(0, cells).initial({0, 0, 0}, whole)[0], next = u;
  const auto wrap = [](int i, int n) { return 1 + ((i - 1) % n + n) % n; };
  const Box in = whole.interior();
  for (long s = 0; s < steps; ++s) {
    for (int k = in.lo.z; k < in.hi.z; ++k)  // periodic x and y; z walls stay 0
      for (int j = 0; j < cells.y + 2; ++j)
        for (int i = 0; i < cells.x + 2; ++i)
          u[static_cast<std::size_t>(whole.index(i, j, k))] =
              u[static_cast<std::size_t>(whole.index(wrap(i, cells.x), wrap(j, cells.y), k))];
    for (int k = in.lo.z; k < in.hi.z; ++k)
      for (int j = in.lo.y; j < in.hi.y; ++j)
        for (int i = in.lo.x; i < in.hi.x; ++i) {
          const std::int64_t c = whole.index(i, j, k);
          next[static_cast<std::size_t>(c)] =
              updated(u.data(), c, whole.neighbour_stride(1), whole.neighbour_stride(2));
        }
    u.swap(next);
  }
  return interior_of(u, whole);
}

RunContext host_context() {
  return {MPI_COMM_WORLD, bind_device(Backend::Host, 0, 1, CudaGate::without_mps()), "", false};
}

RunConfig run_of(long steps, Int3 grid = {}) {
  RunConfig run;
  run.steps = steps;
  run.rank_grid_hint = grid;
  return run;
}

// Cells of this rank's u that differ from the reference's, summed over ranks.
long cells_differing(const GridSolver& solver, const std::vector<double>& whole,
                     Int3 cells = kCells) {
  const std::vector<double> mine = solver.local_field("u");
  const CartDecomposition& d = solver.decomposition();
  const Int3 n = d.local_cells(), o = d.offset();
  long differ = 0;
  std::size_t t = 0;
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j)
      for (int i = 0; i < n.x; ++i, ++t) {
        const double want = whole[static_cast<std::size_t>(
            ((o.z + k) * cells.y + (o.y + j)) * cells.x + (o.x + i))];
        differ += std::memcmp(&want, &mine[t], sizeof want) != 0;
      }
  long total = 0;
  MPI_Allreduce(&differ, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

// The rank grid the runtime would choose, and every rank along x, then z.
std::vector<Int3> rank_grids() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1) return {Int3{}};
  return {Int3{}, Int3{size, 1, 1}, Int3{1, 1, size}};
}

// The toy's kernels, recording the box each update is given.
class BoxRecorder final : public GridKernels {
 public:
  explicit BoxRecorder(std::vector<Box>* boxes) : boxes_(boxes) {}
  void update(const GridArrays& a, const Box& cells) override {
    boxes_->push_back(cells);
    ToyKernels().update(a, cells);
  }
  std::vector<double> diagnostics(const GridArrays& a) override {
    return ToyKernels().diagnostics(a);
  }
  void synchronize() override {}

 private:
  std::vector<Box>* boxes_;
};

// A step updates every interior cell once, in boxes around the exchange: the
// cells away from the halos that travel by MPI while they travel, the rest
// after (on the host every neighbour's halo travels by MPI).
TEST(GridSolver, AStepUpdatesTheInteriorOnceAroundTheExchange) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (const Int3 grid : rank_grids()) {
    std::vector<Box> boxes;
    GridModel model = toy_model();
    model.kernels = [&boxes](Backend) { return std::make_unique<BoxRecorder>(&boxes); };
    GridSolver solver(model, run_of(1, grid), nullptr, host_context());
    run_time_loop(solver, nullptr);
    EXPECT_EQ(cells_differing(solver, reference(1)), 0);
    const FieldLayout layout = grid_layout(model, solver.decomposition().local_cells());
    std::vector<int> hits(static_cast<std::size_t>(layout.size()), 0);
    for (const Box& b : boxes)
      for (int k = b.lo.z; k < b.hi.z; ++k)
        for (int j = b.lo.y; j < b.hi.y; ++j)
          for (int i = b.lo.x; i < b.hi.x; ++i)
            ++hits[static_cast<std::size_t>(layout.index(i, j, k))];
    const Box in = layout.interior();
    long wrong = 0;
    for (int k = 0; k < in.hi.z + layout.h.z; ++k)
      for (int j = 0; j < in.hi.y + layout.h.y; ++j)
        for (int i = 0; i < in.hi.x + layout.h.x; ++i) {
          const bool inside = i >= in.lo.x && i < in.hi.x && j >= in.lo.y && j < in.hi.y &&
                              k >= in.lo.z && k < in.hi.z;
          wrong += hits[static_cast<std::size_t>(layout.index(i, j, k))] != (inside ? 1 : 0);
        }
    EXPECT_EQ(wrong, 0) << "cells updated other than once (interior) or never (halo)";
    if (size > 1) {
      EXPECT_GT(boxes.size(), 1u) << "no overlap of the MPI halos";
    }
  }
}

TEST(GridSolver, AnyRankGridGivesOneBlocksBits) {
  const std::vector<double> whole = reference(6);
  double sum = 0, max = 0;
  for (double v : whole) {
    sum += v;
    max = std::max(max, std::fabs(v));
  }
  for (const Int3 grid : rank_grids()) {
    GridSolver solver(toy_model(), run_of(6, grid), nullptr, host_context());
    run_time_loop(solver, nullptr);
    EXPECT_EQ(cells_differing(solver, whole), 0)
        << "rank grid " << grid.x << "x" << grid.y << "x" << grid.z;
    const std::vector<double>& last = solver.diagnostics().back();
    ASSERT_EQ(last.size(), 4u);
    EXPECT_EQ(last[0], 6);
    EXPECT_EQ(last[1], 3.0);                                  // 6 steps of dt 0.5
    EXPECT_NEAR(last[2], 2.0 * sum, 1e-12 * std::fabs(sum));  // scaled by 2
    EXPECT_EQ(last[3], max);
  }
}

// A 2D grid (one cell along z): no halo planes along z, nothing exchanged
// across it, and neighbour_stride(2) 0, so the 3D stencil's z term is 0:
// every rank grid gives one 2D block's bits.
TEST(GridSolver, A2DGridHasNoHaloAlongItsFlatAxisAndGivesOneBlocksBits) {
  const Int3 cells{9, 8, 1};
  const FieldLayout flat = grid_layout(toy_model(0, cells), cells);
  EXPECT_EQ(flat.h.z, 0);
  EXPECT_EQ(flat.neighbour_stride(2), 0);
  EXPECT_EQ(flat.size(), flat.first + flat.stride_z());  // one plane, not three
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::vector<double> whole = reference(6, cells);
  for (const Int3 grid : {Int3{}, Int3{size, 1, 1}, Int3{1, size, 1}}) {
    GridSolver solver(toy_model(0, cells), run_of(6, grid), nullptr, host_context());
    run_time_loop(solver, nullptr);
    EXPECT_EQ(cells_differing(solver, whole, cells), 0)
        << "rank grid " << grid.x << "x" << grid.y << "x" << grid.z;
  }
}

TEST(GridSolver, ACheckpointHoldsTheStateAndResumesToTheSameBits) {
  const std::string dir = testing_support::make_shared_temp_dir("grid_solver");
  const std::string path = dir + "/ck.h5";
  Params params(input_schema({"toy"}, {}));
  for (const char* o : {"solver=toy", "run.steps=4"}) params.apply_override(o);
  params.finalize();
  {
    GridSolver solver(toy_model(), run_of(4), &params, host_context());
    run_time_loop(solver, nullptr);
    solver.write_checkpoint(path);
  }
  EXPECT_TRUE(has_grid_dataset(path, "/toy/u"));
  EXPECT_FALSE(has_grid_dataset(path, "/toy/u_next")) << "the scratch level was saved";
  RunConfig resumed = run_of(7, rank_grids().back());
  resumed.input_file = path;
  resumed.start_step = 4;
  resumed.start_time = 2.0;
  GridSolver solver(toy_model(), resumed, nullptr, host_context());
  run_time_loop(solver, nullptr);
  EXPECT_EQ(solver.step(), 7);
  EXPECT_EQ(cells_differing(solver, reference(7)), 0);
  EXPECT_EQ(solver.diagnostics().back()[1], 3.5);
  MPI_Barrier(MPI_COMM_WORLD);
  testing_support::remove_shared_temp_dir(dir);
}

// The same update on the framework's host primitives, its diagnostics the
// framework's own over field u.
class ToyKernelsOnHost final : public GridKernelsOn<HostExec> {
 public:
  void update(const GridArrays& a, const Box& cells) override { ToyKernels().update(a, cells); }
};

TEST(GridSolver, TheFrameworksDiagnosticsOverAFieldAreTheKernelsSums) {
  GridModel custom = toy_model(), builtin = toy_model();
  builtin.diagnostics = {sum_of("sum_u", "u", 2.0), max_abs_of("max_abs_u", "u"),
                         sum_of_squares("sum_u2", "u")};
  builtin.kernels = [](Backend) { return std::make_unique<ToyKernelsOnHost>(); };
  GridSolver a(custom, run_of(3), nullptr, host_context());
  GridSolver b(builtin, run_of(3), nullptr, host_context());
  run_time_loop(a, nullptr);
  run_time_loop(b, nullptr);
  const std::vector<double>&ra = a.diagnostics().back(), &rb = b.diagnostics().back();
  ASSERT_EQ(rb.size(), 5u);
  EXPECT_NEAR(rb[2], ra[2], 1e-12 * std::fabs(ra[2]));
  EXPECT_EQ(rb[3], ra[3]);
  double sum2 = 0;
  for (double v : reference(3)) sum2 += v * v;
  EXPECT_NEAR(rb[4], sum2, 1e-12 * sum2);
  EXPECT_EQ(cells_differing(b, reference(3)), 0);
  GridModel wrong = builtin;
  wrong.diagnostics = {sum_of("sum_w", "w")};
  EXPECT_THROW(GridSolver(wrong, run_of(1), nullptr, host_context()), Error);
}

TEST(GridSolver, ADiagnosticNoLongerFiniteStopsEveryRankNamingIt) {
  GridSolver solver(toy_model(std::nan("")), run_of(5), nullptr, host_context());
  solver.advance();
  try {
    solver.diagnose(nullptr);
    ADD_FAILURE() << "a NaN state passed the diagnostics";
  } catch (const AgreedError& e) {
    EXPECT_NE(std::string(e.what()).find("toy: sum_u is no longer finite at step 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(GridSolver, ASwapOfAnUndeclaredFieldIsRefused) {
  GridModel m = toy_model();
  m.swaps = {{"u", "v"}};
  try {
    GridSolver solver(m, run_of(1), nullptr, host_context());
    ADD_FAILURE() << "a swap of an undeclared field was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the step's swap names field 'v', which is not declared"),
              std::string::npos)
        << e.what();
  }
}

// The toy with a derived field: du/dx's central difference (it reads the
// neighbours across x, the periodic axis, so u's halo must be current when
// it is computed), index 2.
class GradientKernels final : public GridKernels {
 public:
  void update(const GridArrays& a, const Box& cells) override { toy_.update(a, cells); }
  std::vector<double> diagnostics(const GridArrays& a) override { return toy_.diagnostics(a); }
  void derive(const GridArrays& a, const Box& in) override {
    const double* u = a.field[kU];
    double* g = a.field[2];
    for (int k = in.lo.z; k < in.hi.z; ++k)
      for (int j = in.lo.y; j < in.hi.y; ++j)
        for (int i = in.lo.x; i < in.hi.x; ++i) {
          const std::int64_t c = a.layout.index(i, j, k);
          g[c] = u[c + 1] - u[c - 1];
        }
  }
  void synchronize() override {}

 private:
  ToyKernels toy_;
};

// A derived field is computed from the state, its halos current, for each
// snapshot, written there beside the state and never in a checkpoint; on any
// rank grid its values are the whole grid's. Kernels that compute none stop
// the run naming derive; a swap that names a derived field is refused.
TEST(GridSolver, ADerivedFieldIsComputedForEachSnapshotFromCurrentHalos) {
  const std::string dir = testing_support::make_shared_temp_dir("grid_solver_derived");
  GridModel model = toy_model();
  model.fields.push_back(derived_field("du_dx"));
  model.kernels = [](Backend) { return std::make_unique<GradientKernels>(); };
  const std::vector<double> whole = reference(3);
  const Int3 n = kCells;
  Params params(input_schema({"toy"}, {}));
  for (const char* o : {"solver=toy", "run.steps=3"}) params.apply_override(o);
  params.finalize();
  for (const Int3 grid : rank_grids()) {
    RunConfig run = run_of(3, grid);
    // A file of its own each time: a file replaced and read again in one
    // process may be taken for the one HDF5 still knows by its inode.
    const std::string out = dir + "/out" + std::to_string(grid.x) + std::to_string(grid.z) + ".h5";
    run.output_file = out;
    GridSolver solver(model, run, &params, host_context());
    run_time_loop(solver, nullptr);
    solver.write_checkpoint(dir + "/ck.h5");
    const CartDecomposition& d = solver.decomposition();
    const FieldLayout layout = grid_layout(model, d.local_cells());
    const std::vector<double> g = read_grid_block(out, "/du_dx/00000003", d, layout, 0);
    const Box in = layout.interior();
    const Int3 o = d.offset();
    long wrong = 0;
    for (int k = in.lo.z; k < in.hi.z; ++k)
      for (int j = in.lo.y; j < in.hi.y; ++j)
        for (int i = in.lo.x; i < in.hi.x; ++i) {
          const int x = o.x + i - in.lo.x, y = o.y + j - in.lo.y, z = o.z + k - in.lo.z;
          const auto at = [&](int xx) {
            return whole[static_cast<std::size_t>((z * n.y + y) * n.x + (xx + n.x) % n.x)];
          };
          const double want = at(x + 1) - at(x - 1);
          wrong += std::memcmp(&want, &g[static_cast<std::size_t>(layout.index(i, j, k))],
                               sizeof want) != 0;
        }
    long total = 0;
    MPI_Allreduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(total, 0) << "rank grid " << grid.x << "x" << grid.y << "x" << grid.z;
    EXPECT_TRUE(has_grid_dataset(out, "/u/00000003"));
    EXPECT_FALSE(has_grid_dataset(dir + "/ck.h5", "/toy/du_dx")) << "a derived field was saved";
    EXPECT_TRUE(has_grid_dataset(dir + "/ck.h5", "/toy/u"));
  }
  GridModel none = model;
  none.kernels = [](Backend) { return std::make_unique<ToyKernels>(); };
  RunConfig run = run_of(1);
  run.output_file = dir + "/none.h5";
  GridSolver solver(none, run, nullptr, host_context());
  try {
    run_time_loop(solver, nullptr);
    ADD_FAILURE() << "kernels without derive() ran a model with a derived field";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("its kernels compute none (derive)"), std::string::npos)
        << e.what();
  }
  GridModel swapped = model;
  swapped.swaps = {{"u", "du_dx"}};
  EXPECT_THROW(GridSolver(swapped, run_of(1), nullptr, host_context()), Error);
  MPI_Barrier(MPI_COMM_WORLD);
  testing_support::remove_shared_temp_dir(dir);
}

TEST(GridSolver, TheMemoryNeedCountsEveryFieldAndTheHaloBuffers) {
  const FieldLayout layout(Int3{4, 3, 2}, 1);
  // Two fields of the padded layout's size; the exchanged one sends and
  // receives one cell deep across faces of 2 (3x2 + 4x2 + 4x3) = 52 cells.
  EXPECT_EQ(grid_memory_need(toy_model(), layout, Backend::Cuda).bytes,
            static_cast<std::int64_t>((2 * layout.size() + 2 * 52) * sizeof(double)));
  EXPECT_EQ(grid_memory_need(toy_model(), layout, Backend::Cuda).space, Backend::Cuda);
}

TEST(GridWorkload, TheBannerTheReportAndTheHintsComeFromTheModel) {
  const WorkloadSpec spec = grid_workload(
      {"toy", "a toy", {}, {"run.steps=3"}, [](const Params&) { return toy_model(); }});
  EXPECT_EQ(spec.input_template(), std::vector<std::string>{"run.steps=3"});
  EXPECT_EQ(spec.backends, std::vector<Backend>{Backend::Host});
  Params params(input_schema({"toy"}, {}));
  for (const char* o : {"solver=toy", "run.steps=3"}) params.apply_override(o);
  params.finalize();
  const std::unique_ptr<Workload> w = spec.create();
  w->configure(params);
  EXPECT_EQ(w->cells_to_split(), kCells);
  EXPECT_EQ(w->weak_scaling().keys, (std::vector<std::string>{"toy.nx", "toy.ny", "toy.nz"}));
  EXPECT_NE(w->split_hint().find("at least 1 cell(s) thick"), std::string::npos) << w->split_hint();
  const RunContext context = host_context();
  w->start(context);
  EXPECT_EQ(w->banner().rfind("toy 9x8x7 cells, 3 steps on ", 0), 0u) << w->banner();
  run_time_loop(w->stepper(), nullptr);
  const RunReport r = w->report(params, context, {});
  EXPECT_EQ(r.diagnostic_columns, (std::vector<std::string>{"step", "time", "sum_u", "max_abs_u"}));
  EXPECT_EQ(r.diagnostic_rows.size(), 2u);  // the first step's and the last's
  w->stop();
}

}  // namespace
}  // namespace mpsfw
