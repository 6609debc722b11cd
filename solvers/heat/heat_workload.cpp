#include "heat_workload.hpp"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "core/checkpoint.hpp"
#include "heat_config.hpp"
#include "heat_report.hpp"
#include "heat_solver.hpp"

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
  // The snapshots (under their resumed name), their XDMF file and the
  // checkpoint, each checked before the run and against the others.
  std::vector<std::pair<std::string, std::string>> output_files() const override {
    std::vector<std::pair<std::string, std::string>> files;
    if (!config_.output_file.empty()) {
      const std::string h5 = resumed_output_path(config_.output_file, config_.start_step);
      files.push_back({h5, "run.output_file"});
      files.push_back(
          {std::filesystem::path(h5).replace_extension(".xmf").string(), "run.output_file"});
    }
    files.push_back({config_.checkpoint_file, "run.checkpoint_file"});
    return files;
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
  void run(std::FILE* progress) override { solver_->run(progress); }
  int stop_signal() const override { return solver_->stop_signal(); }
  long end_step() const override { return solver_->step(); }
  std::string last_checkpoint() const override { return solver_->last_checkpoint(); }
  RunReport report(const Params& params, const RunContext& context,
                   const std::vector<std::string>& warnings) const override {
    return make_report(*solver_, params, context.device, context.host, warnings);
  }
  void stop() override { solver_.reset(); }
  std::vector<std::string> closing_lines() const override {
    if (config_.output_file.empty()) return {};
    return {"field snapshots written to " +
            resumed_output_path(config_.output_file, config_.start_step)};
  }

 private:
  HeatConfig config_;
  const Params* params_ = nullptr;
  std::unique_ptr<HeatSolver> solver_;
};

}  // namespace

WorkloadSpec workload_spec() {
  return {"heat", "3D heat equation, explicit FTCS on a cell grid (groups /run, /heat)", heat_keys,
          [] { return std::make_unique<HeatWorkload>(); }, heat_template};
}

}  // namespace mpsfw::heat
