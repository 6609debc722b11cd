#include "heat_workload.hpp"

#include <cstdio>
#include <memory>
#include <string>

#include "heat_config.hpp"
#include "heat_report.hpp"
#include "heat_solver.hpp"
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw::heat {
namespace {

class HeatWorkload final : public Workload {
 public:
  void configure(const Params& params) override {
    config_ = heat_config_from(params);
    params_ = &params;
  }
  const RunConfig& run_config() const override { return config_; }
  Int3 cells_to_split() const override { return config_.cells; }
  double x_face_cost() const override { return kStridedFaceCost; }
  WeakScaling weak_scaling() const override {
    if (config_.initial == Initial::Dataset) {
      return {{},
              "weak scaling multiplies heat.nx/ny/nz, which heat.initial = dataset cannot grow "
              "(the grid is the dataset's /heat/u0)"};
    }
    return {{"heat.nx", "heat.ny", "heat.nz"}, ""};
  }
  std::vector<MemoryNeed> memory_needs(const CartDecomposition& block,
                                       Backend memory) const override {
    return {heat_memory_need(FieldLayout(block.local_cells()), memory)};
  }
  void start(const RunContext& context) override {
    solver_ = std::make_unique<HeatSolver>(config_, context.world, context.device,
                                           context.cuda_aware_mpi);
    solver_->set_params(params_);
  }
  std::string banner() const override {
    const CartDecomposition& d = solver_->decomposition();
    const Int3 g = d.rank_grid();
    const std::string steps = steps_text(config_);
    char line[200];
    std::snprintf(line, sizeof line, "heat %dx%dx%d cells, %s on %d ranks (%dx%dx%d)",
                  config_.cells.x, config_.cells.y, config_.cells.z, steps.c_str(), d.size(), g.x,
                  g.y, g.z);
    return line;
  }
  Steppable& stepper() override { return *solver_; }
  RunReport report(const Params& params, const RunContext& context,
                   const std::vector<std::string>& warnings) const override {
    return make_report(*solver_, params, context.device, context.host, warnings);
  }
  void stop() override { solver_.reset(); }

 private:
  HeatConfig config_;
  const Params* params_ = nullptr;
  std::unique_ptr<HeatSolver> solver_;
};

}  // namespace

WorkloadSpec workload_spec() {
  return {"heat",        "3D heat equation, explicit FTCS on a cell grid (groups /run, /heat)",
          heat_keys,     [] { return std::make_unique<HeatWorkload>(); },
          heat_template, backends_built(true, true)};
}

}  // namespace mpsfw::heat
