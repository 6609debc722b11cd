#include "sph_workload.hpp"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "sph_config.hpp"
#include "sph_state.hpp"
#include "sph_store.hpp"
#include <mpsfw/core/driver/report.hpp>
#include <mpsfw/core/particles/particle_input.hpp>

namespace sph {
namespace {

class SphWorkload final : public mpsfw::Workload {
 public:
  void configure(const mpsfw::Params& params) override {
    config_ = sph_config_from(params);
    params_ = &params;
  }
  const mpsfw::RunConfig& run_config() const override { return config_; }
  // A dataset of /sph that nothing reads (a misspelt name) is warned of.
  std::vector<std::string> input_warnings() const override {
    return mpsfw::unread_particle_datasets(
        config_.input_file, "sph", input_fields(store_for(mpsfw::Backend::Host)->written_fields()));
  }
  mpsfw::Int3 cells_to_split() const override { return link_cells(config_); }
  std::string split_hint() const override {
    return "a rank needs at least one link cell of 2 sph.h + sph.skin spacings along each axis";
  }

  void start(const mpsfw::RunContext& context) override {
    solver_ = std::make_unique<SphSolver>(config_, params_, context.world, context.device,
                                          context.cuda_aware_mpi);
  }

  std::string banner() const override {
    const mpsfw::CartDecomposition& d = solver_->decomposition();
    const mpsfw::Int3 g = d.rank_grid();
    char line[200];
    std::snprintf(line, sizeof line, "sph %ld particles, %s on %d ranks (%dx%dx%d)",
                  solver_->total_particles(), mpsfw::steps_text(config_).c_str(), d.size(), g.x,
                  g.y, g.z);
    return line;
  }

  mpsfw::Steppable& stepper() override { return *solver_; }

  mpsfw::RunReport report(const mpsfw::Params& params, const mpsfw::RunContext& context,
                          const std::vector<std::string>& warnings) const override {
    const mpsfw::CartDecomposition& d = solver_->decomposition();
    mpsfw::RunReport r =
        mpsfw::start_job_report("sph", params, d, context.device, context.host, "", warnings);
    mpsfw::report_loop(*solver_, d.comm(), solver_->timers(),
                       static_cast<double>(solver_->total_particles()), &r);
    r.throughput_unit = "particle-steps/s";
    r.halo_path = solver_->ghost_path();
    r.diagnostic_columns = {"step",          "time",          "kinetic_per_particle",
                            "kinetic_exact", "density_error", "max_speed"};
    for (const Diagnostics& g : solver_->diagnostics()) {
      r.diagnostic_rows.push_back({static_cast<double>(g.step), g.time, g.kinetic, g.kinetic_exact,
                                   g.density_error, g.max_speed});
    }
    return r;
  }

  void stop() override { solver_.reset(); }

 private:
  SphConfig config_;
  const mpsfw::Params* params_ = nullptr;
  std::unique_ptr<SphSolver> solver_;
};

}  // namespace

mpsfw::WorkloadSpec sph_spec() {
  return {"sph",
          "weakly compressible SPH, a Taylor-Green vortex in a periodic box (groups /run, /sph)",
          sph_keys, [] { return std::make_unique<SphWorkload>(); }, sph_template,
          // The host store, and the CUDA and Kokkos ones where they were built.
          mpsfw::backends_built(SPH_HAVE_CUDA, SPH_HAVE_KOKKOS)};
}

}  // namespace sph
