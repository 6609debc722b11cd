#include "wave_workload.hpp"

#include <cstdio>
#include <memory>

#include "wave_config.hpp"
#include "wave_state.hpp"

namespace wave {
namespace {

class WaveWorkload final : public mpsfw::Workload {
 public:
  void configure(const mpsfw::Params& params) override {
    config_ = wave_config_from(params);
    params_ = &params;
  }
  const mpsfw::RunConfig& run_config() const override { return config_; }
  mpsfw::Int3 cells_to_split() const override { return config_.cells; }
  double x_face_cost() const override { return mpsfw::kStridedFaceCost; }
  mpsfw::WeakScaling weak_scaling() const override {
    return {{"wave.nx", "wave.ny", "wave.nz"}, ""};
  }
  std::string split_hint() const override {
    return "the 4th-order stencil needs a block at least 2 cells thick along each axis where it "
           "has a neighbour";
  }

  void start(const mpsfw::RunContext& context) override {
    solver_ = std::make_unique<WaveSolver>(config_, params_, context.world, context.device,
                                           context.cuda_aware_mpi);
  }

  std::string banner() const override {
    const mpsfw::CartDecomposition& d = solver_->decomposition();
    const mpsfw::Int3 g = d.rank_grid();
    char line[200];
    std::snprintf(line, sizeof line, "wave %dx%dx%d cells, %s on %d ranks (%dx%dx%d)",
                  config_.cells.x, config_.cells.y, config_.cells.z,
                  mpsfw::steps_text(config_).c_str(), d.size(), g.x, g.y, g.z);
    return line;
  }

  mpsfw::Steppable& stepper() override { return *solver_; }

  mpsfw::RunReport report(const mpsfw::Params& params, const mpsfw::RunContext& context,
                          const std::vector<std::string>& warnings) const override {
    const mpsfw::CartDecomposition& d = solver_->decomposition();
    MPI_Comm comm = d.comm();
    const mpsfw::Int3 n = d.local_cells();
    mpsfw::RunReport r = mpsfw::start_job_report(
        "wave", params, d, context.device, context.host,
        ", block " + std::to_string(n.x) + "x" + std::to_string(n.y) + "x" + std::to_string(n.z),
        warnings);
    mpsfw::report_loop(*solver_, comm, solver_->timers(),
                       static_cast<double>(d.global_cells().product()), &r);
    r.halo_path = solver_->halo_path();
    r.diagnostic_columns = {"step", "time", "sum_u2", "max_abs_u"};
    for (const Diagnostics& g : solver_->diagnostics()) {
      r.diagnostic_rows.push_back({static_cast<double>(g.step), g.time, g.sum_u2, g.max_abs_u});
    }
    return r;
  }

  void stop() override { solver_.reset(); }

 private:
  WaveConfig config_;
  const mpsfw::Params* params_ = nullptr;
  std::unique_ptr<WaveSolver> solver_;
};

}  // namespace

mpsfw::WorkloadSpec wave_spec() {
  return {"wave",
          "3D scalar wave equation, 4th order in space, leapfrog in time (groups /run, /wave)",
          wave_keys,
          [] { return std::make_unique<WaveWorkload>(); },
          wave_template,
          mpsfw::backends_built(WAVE_HAVE_CUDA, WAVE_HAVE_KOKKOS)};
}

}  // namespace wave
