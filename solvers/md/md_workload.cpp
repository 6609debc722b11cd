#include "md_workload.hpp"

#include <cstdio>
#include <memory>
#include <string>

#include "md_config.hpp"
#include "md_dataset_input.hpp"
#include "md_report.hpp"
#include "md_solver.hpp"
#include <mpsfw/core/particles/subdomain.hpp>

namespace mpsfw::md {
namespace {

class MdWorkload final : public Workload {
 public:
  void configure(const Params& params) override {
    config_ = md_config_from(params);
    params_ = &params;
  }
  const RunConfig& run_config() const override { return config_; }
  std::vector<std::string> input_warnings() const override {
    if (config_.initial != Initial::Dataset) return {};
    return unread_input_datasets(config_);
  }
  Int3 cells_to_split() const override { return link_cells(config_); }
  std::string split_hint() const override {
    return "an MD rank needs at least one link cell of md.cutoff + md.skin along each dimension";
  }
  // The estimate the solver's preflight makes, with the host store's bytes
  // per atom (no device is touched before the run).
  std::vector<MemoryNeed> memory_needs(const CartDecomposition& block,
                                       Backend memory) const override {
    return md_memory_needs(config_, subdomain_of(block, config_.box), input_atom_count(config_),
                           *make_md_store(Backend::Host, config_.pair), memory);
  }
  // A lattice fills the box evenly: its atoms go as the link cells. A
  // dataset's (or a checkpoint's) are counted in the block's sub-box.
  double work_of(const CartDecomposition& block) const override {
    if (config_.initial != Initial::Dataset) return Workload::work_of(block);
    return static_cast<double>(dataset_atoms(config_, subdomain_of(block, config_.box)).size());
  }
  WeakScaling weak_scaling() const override {
    if (config_.initial != Initial::Fcc) {
      return {{},
              "weak scaling multiplies md.cells_x/y/z, which only md.initial = fcc reads "
              "(a dataset's atoms are what they are)"};
    }
    return {{"md.cells_x", "md.cells_y", "md.cells_z"}, ""};
  }
  void start(const RunContext& context) override {
    solver_ =
        std::make_unique<MdSolver>(config_, context.world, context.device, context.cuda_aware_mpi);
    solver_->set_params(params_);
  }
  std::string banner() const override {
    const CartDecomposition& d = solver_->decomposition();
    const Int3 g = d.rank_grid();
    const std::string steps = steps_text(config_);
    char line[200];
    std::snprintf(line, sizeof line, "md %ld atoms, %s on %d ranks (%dx%dx%d)",
                  solver_->total_atoms(), steps.c_str(), d.size(), g.x, g.y, g.z);
    return line;
  }
  Steppable& stepper() override { return *solver_; }
  RunReport report(const Params& params, const RunContext& context,
                   const std::vector<std::string>& warnings) const override {
    return make_report(*solver_, params, context.device, context.host, warnings);
  }
  void stop() override { solver_.reset(); }

 private:
  MdConfig config_;
  const Params* params_ = nullptr;
  std::unique_ptr<MdSolver> solver_;
};

}  // namespace

WorkloadSpec workload_spec() {
  return {"md",
          "Lennard-Jones molecular dynamics, velocity Verlet with neighbour lists "
          "(groups /run, /md)",
          md_keys,
          [] { return std::make_unique<MdWorkload>(); },
          md_template,
          backends_built(true, true)};
}

}  // namespace mpsfw::md
