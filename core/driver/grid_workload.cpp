#include "grid_workload.hpp"

#include <cstdio>
#include <memory>
#include <utility>

namespace mpsfw {
namespace {

std::string cells_text(Int3 n) {
  return std::to_string(n.x) + "x" + std::to_string(n.y) + "x" + std::to_string(n.z);
}

class GridWorkload final : public Workload {
 public:
  explicit GridWorkload(std::function<GridModel(const Params&)> model)
      : model_of_(std::move(model)) {}

  void configure(const Params& params) override {
    model_ = model_of_(params);
    run_ = run_config_from(params);
    params_ = &params;
  }
  const RunConfig& run_config() const override { return run_; }
  Int3 cells_to_split() const override { return model_.cells; }
  double x_face_cost() const override { return kStridedFaceCost; }
  WeakScaling weak_scaling() const override {
    if (model_.cell_keys.size() == 3) return {model_.cell_keys, ""};
    return Workload::weak_scaling();
  }
  std::string split_hint() const override {
    return "the stencil needs a block at least " + std::to_string(model_.halo_width) +
           " cell(s) thick along each axis where it has a neighbour";
  }
  std::vector<MemoryNeed> memory_needs(const CartDecomposition& block,
                                       Backend memory) const override {
    return {grid_memory_need(model_, grid_layout(model_, block.local_cells()), memory)};
  }

  void start(const RunContext& context) override {
    solver_ = std::make_unique<GridSolver>(model_, run_, params_, context);
  }

  std::string banner() const override {
    const CartDecomposition& d = solver_->decomposition();
    return model_.group + " " + cells_text(model_.cells) + " cells, " + steps_text(run_) + " on " +
           std::to_string(d.size()) + " ranks (" + cells_text(d.rank_grid()) + ")";
  }

  Steppable& stepper() override { return *solver_; }

  RunReport report(const Params& params, const RunContext& context,
                   const std::vector<std::string>& warnings) const override {
    const CartDecomposition& d = solver_->decomposition();
    RunReport r = start_job_report(model_.group, params, d, context.device, context.host,
                                   ", block " + cells_text(d.local_cells()), warnings);
    report_loop(*solver_, d.comm(), solver_->timers(),
                static_cast<double>(d.global_cells().product()), &r);
    r.halo_path = solver_->halo_path();
    r.diagnostic_columns = {"step", "time"};
    for (const GridDiagnostic& g : model_.diagnostics) r.diagnostic_columns.push_back(g.name);
    r.diagnostic_rows = solver_->diagnostics();
    return r;
  }

  void stop() override { solver_.reset(); }

 private:
  std::function<GridModel(const Params&)> model_of_;
  GridModel model_;
  RunConfig run_;
  const Params* params_ = nullptr;
  std::unique_ptr<GridSolver> solver_;
};

}  // namespace

WorkloadSpec grid_workload(GridSolverSpec spec) {
  auto model = spec.model;
  return {spec.name,
          spec.summary,
          [keys = spec.keys] { return keys; },
          [model] { return std::make_unique<GridWorkload>(model); },
          [lines = spec.input_template] { return lines; },
          spec.backends};
}

}  // namespace mpsfw
