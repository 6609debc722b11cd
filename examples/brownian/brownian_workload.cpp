#include "brownian_workload.hpp"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "brownian_config.hpp"
#include "brownian_state.hpp"
#include "brownian_store.hpp"
#include <mpsfw/core/driver/report.hpp>
#include <mpsfw/core/parallel/string_gather.hpp>
#include <mpsfw/core/particles/particle_input.hpp>

namespace brownian {
namespace {

class BrownianWorkload final : public mpsfw::Workload {
 public:
  void configure(const mpsfw::Params& params) override {
    config_ = brownian_config_from(params);
    params_ = &params;
  }
  const mpsfw::RunConfig& run_config() const override { return config_; }
  // A dataset of /brownian that nothing reads (a misspelt name) is warned of.
  std::vector<std::string> input_warnings() const override {
    return mpsfw::unread_particle_datasets(config_.input_file, "brownian",
                                           {store_for(mpsfw::Backend::Host)->written_fields(), {}});
  }
  mpsfw::Int3 cells_to_split() const override { return link_cells(config_); }
  std::string split_hint() const override {
    return "a rank needs at least one link cell of brownian.sigma + brownian.skin along each axis";
  }

  void start(const mpsfw::RunContext& context) override {
    solver_ = std::make_unique<BrownianSolver>(config_, params_, context.world, context.device,
                                               context.cuda_aware_mpi);
  }

  std::string banner() const override {
    const mpsfw::CartDecomposition& d = solver_->decomposition();
    const mpsfw::Int3 g = d.rank_grid();
    char line[200];
    std::snprintf(line, sizeof line, "brownian %ld particles, %s on %d ranks (%dx%dx%d)",
                  solver_->total_particles(), mpsfw::steps_text(config_).c_str(), d.size(), g.x,
                  g.y, g.z);
    return line;
  }

  mpsfw::Steppable& stepper() override { return *solver_; }

  mpsfw::RunReport report(const mpsfw::Params& params, const mpsfw::RunContext& context,
                          const std::vector<std::string>& warnings) const override {
    const mpsfw::CartDecomposition& d = solver_->decomposition();
    MPI_Comm comm = d.comm();
    mpsfw::RunReport r =
        mpsfw::start_job_report("brownian", params, d, context.device, context.host, "", warnings);
    mpsfw::report_loop(*solver_, comm, solver_->timers(),
                       static_cast<double>(solver_->total_particles()), &r);
    r.throughput_unit = "particle-steps/s";
    r.halo_path = solver_->ghost_path();
    r.diagnostic_columns = {"step", "time", "potential_per_particle", "max_force"};
    for (const Diagnostics& g : solver_->diagnostics()) {
      r.diagnostic_rows.push_back({static_cast<double>(g.step), g.time, g.potential, g.max_force});
    }
    return r;
  }

  void stop() override { solver_.reset(); }

 private:
  BrownianConfig config_;
  const mpsfw::Params* params_ = nullptr;
  std::unique_ptr<BrownianSolver> solver_;
};

}  // namespace

mpsfw::WorkloadSpec brownian_spec() {
  return {"brownian",
          "Brownian dynamics of soft spheres, overdamped Langevin in a periodic box "
          "(groups /run, /brownian)",
          brownian_keys, [] { return std::make_unique<BrownianWorkload>(); }, brownian_template,
          // The host store, and the CUDA one where it was built.
          mpsfw::backends_built(BROWNIAN_HAVE_CUDA, BROWNIAN_HAVE_KOKKOS)};
}

}  // namespace brownian
