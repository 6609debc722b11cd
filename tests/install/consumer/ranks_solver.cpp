// A third workload next to the built-in ones, registered from outside mpsfw:
// "ranks" splits a grid of /ranks/n^3 cells and sums, over all ranks, the
// cells each owns (which must be n^3). It proves that installed headers,
// libraries and the runtime are enough to write a solver.
#include <mpi.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/core/driver/workload.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/runtime/solver_main.hpp>
#include <mpsfw/solvers/builtin_workloads.hpp>
#include <mpsfw/solvers/heat/heat_config.hpp>  // includes params.hpp: mpsfw's, not ours

namespace {

// Its state: each step counts the cells again (collective).
class RanksState final : public mpsfw::Steppable {
 public:
  RanksState(const mpsfw::RunConfig& run, const mpsfw::CartDecomposition& d, long expected)
      : run_(run), d_(d), expected_(expected), step_(run.start_step) {}
  mpsfw::LoopSetup loop_setup() override {
    return {&run_, 0, "diagnostics", nullptr, d_.comm(), &timers_};
  }
  long step() const override { return step_; }
  void advance() override {
    long mine = static_cast<long>(d_.local_cells().product());
    MPI_Allreduce(&mine, &total_, 1, MPI_LONG, MPI_SUM, d_.comm());
    ++step_;
  }
  void diagnose(std::FILE* out) override {
    if (out) std::fprintf(out, "ranks: %ld cells on %d ranks\n", total_, d_.size());
    check();
  }
  void check() override {
    if (total_ != expected_) throw mpsfw::AgreedError("ranks: cells lost");
  }
  void open_output(const std::string&) override { refuse("run.output_file"); }
  void write_output() override {}
  void close_output() override {}
  void write_checkpoint(const std::string&) override { refuse("run.checkpoint_file"); }

 private:
  [[noreturn]] static void refuse(const std::string& key) {
    throw mpsfw::AgreedError("ranks: this workload writes nothing; leave " + key + " unset");
  }
  const mpsfw::RunConfig& run_;
  const mpsfw::CartDecomposition& d_;
  long expected_, total_ = 0, step_;
  mpsfw::PhaseTimers timers_;
};

class RanksWorkload final : public mpsfw::Workload {
 public:
  void configure(const mpsfw::Params& params) override {
    run_ = mpsfw::run_config_from(params);
    n_ = static_cast<int>(params.integer("ranks.n"));
  }
  const mpsfw::RunConfig& run_config() const override { return run_; }
  mpsfw::Int3 cells_to_split() const override { return {n_, n_, n_}; }
  void start(const mpsfw::RunContext& context) override {
    decomposition_ = std::make_unique<mpsfw::CartDecomposition>(
        context.world, cells_to_split(), run_.rank_grid_hint,
        std::array<bool, 3>{false, false, false});
    state_ = std::make_unique<RanksState>(run_, *decomposition_, static_cast<long>(n_) * n_ * n_);
  }
  std::string banner() const override { return "ranks " + std::to_string(n_) + "^3 cells"; }
  mpsfw::Steppable& stepper() override { return *state_; }
  mpsfw::RunReport report(const mpsfw::Params& params, const mpsfw::RunContext& context,
                          const std::vector<std::string>& warnings) const override {
    mpsfw::RunReport r = mpsfw::start_report("ranks", params, context.device.backend, warnings);
    r.ranks = decomposition_->size();
    r.rank_grid = decomposition_->rank_grid();
    r.global_cells = cells_to_split();
    return r;
  }
  void stop() override {
    state_.reset();
    decomposition_.reset();
  }

 private:
  mpsfw::RunConfig run_;
  int n_ = 0;
  std::unique_ptr<mpsfw::CartDecomposition> decomposition_;
  std::unique_ptr<RanksState> state_;
};

}  // namespace

int main(int argc, char** argv) {
  mpsfw::WorkloadRegistry workloads = mpsfw::builtin_workloads();
  workloads.add({"ranks", "counts the cells of a split grid (group /ranks)",
                 [] {
                   return std::vector<mpsfw::ParamSpec>{
                       mpsfw::integer_param("ranks", "n", true, "", 1, 1024, "cells a side")};
                 },
                 [] { return std::make_unique<RanksWorkload>(); }});
  return mpsfw::solver_main(argc, argv, workloads, "ranks_solver");
}
