// The workload seam: registering solvers, finding them by the input's
// `solver` name (with an error that lists the known ones), the whole input
// schema a workload gets (solver, shared /run, its own keys), and the
// solvers this build compiled in.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/driver/workload.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/solvers/builtin_workloads.hpp>

namespace mpsfw {
namespace {

// A workload that only configures: enough for the registry.
class ToyWorkload final : public Workload {
 public:
  void configure(const Params& params) override { run_ = run_config_from(params); }
  const RunConfig& run_config() const override { return run_; }
  Int3 cells_to_split() const override { return {1, 1, 1}; }
  void start(const RunContext&) override {}
  std::string banner() const override { return "toy"; }
  Steppable& stepper() override { throw Error("toy: nothing to step"); }
  RunReport report(const Params&, const RunContext&,
                   const std::vector<std::string>&) const override {
    return {};
  }
  void stop() override {}

 private:
  RunConfig run_;
};

WorkloadSpec toy(const std::string& name) {
  return {
      name,
      "a toy",
      [] { return std::vector<ParamSpec>{integer_param("toy", "n", true, "", 1, 10, "cells")}; },
      [] { return std::make_unique<ToyWorkload>(); },
      {}};
}

bool has_key(const std::vector<ParamSpec>& schema, const std::string& name) {
  return std::any_of(schema.begin(), schema.end(),
                     [&](const ParamSpec& s) { return s.name() == name; });
}

TEST(WorkloadRegistry, FindsWhatWasAdded) {
  WorkloadRegistry r;
  r.add(toy("alpha"));
  r.add(toy("beta"));
  EXPECT_EQ(r.names(), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(r.find("beta", "test").name, "beta");
}

TEST(WorkloadRegistry, UnknownNameListsTheKnownOnes) {
  WorkloadRegistry r;
  r.add(toy("alpha"));
  r.add(toy("beta"));
  try {
    r.find("gamma", "in.h5: attribute /solver");
    FAIL() << "no error for an unknown solver";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("in.h5: attribute /solver"), std::string::npos) << m;
    EXPECT_NE(m.find("alpha|beta"), std::string::npos) << m;
    EXPECT_NE(m.find("\"gamma\""), std::string::npos) << m;
  }
}

TEST(WorkloadRegistry, RefusesDuplicatesAndIncompleteSpecs) {
  WorkloadRegistry r;
  r.add(toy("alpha"));
  EXPECT_THROW(r.add(toy("alpha")), Error);
  WorkloadSpec nameless = toy("");
  EXPECT_THROW(r.add(nameless), Error);
  WorkloadSpec no_create = toy("gamma");
  no_create.create = nullptr;
  EXPECT_THROW(r.add(no_create), Error);
}

TEST(WorkloadRegistry, SchemaIsSolverThenSharedRunThenOwnKeys) {
  WorkloadRegistry r;
  r.add(toy("alpha"));
  r.add(toy("beta"));
  const std::vector<ParamSpec> schema = r.schema_of("alpha");
  ASSERT_FALSE(schema.empty());
  EXPECT_EQ(schema[0].name(), "solver");
  EXPECT_EQ(schema[0].choices, (std::vector<std::string>{"alpha", "beta"}));
  for (const ParamSpec& s : run_schema()) EXPECT_TRUE(has_key(schema, s.name())) << s.name();
  EXPECT_TRUE(has_key(schema, "toy.n"));
}

TEST(WorkloadRegistry, ConfiguresFromTheSharedRunKeys) {
  WorkloadRegistry r;
  r.add(toy("alpha"));
  Params p(r.schema_of("alpha"));
  for (const char* o : {"solver=alpha", "toy.n=3", "run.steps=7", "run.px=2", "run.backend=host",
                        "step=4", "run.output_file=o.h5", "run.timeline_file=t.json"}) {
    p.apply_override(o);
  }
  p.finalize();
  std::unique_ptr<Workload> w = r.find("alpha", "test").create();
  w->configure(p);
  EXPECT_EQ(w->run_config().steps, 7);
  EXPECT_EQ(w->run_config().rank_grid_hint.x, 2);
  EXPECT_EQ(w->run_config().backend, Backend::Host);
  // Where the run writes: the output under its resumed name (step 4) and its
  // XDMF file, the checkpoint and the timeline (all from /run keys).
  const auto files = w->output_files();
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0],
            (std::pair<std::string, std::string>{"o.from00000004.h5", "run.output_file"}));
  EXPECT_EQ(files[1],
            (std::pair<std::string, std::string>{"o.from00000004.xmf", "run.output_file"}));
  EXPECT_EQ(files[2].second, "run.checkpoint_file");
  EXPECT_EQ(files[3], (std::pair<std::string, std::string>{"t.json", "run.timeline_file"}));
  EXPECT_EQ(
      w->closing_lines(),
      (std::vector<std::string>{"output written to o.from00000004.h5 (and o.from00000004.xmf)"}));
}

TEST(WorkloadRegistry, AWorkloadIsRefusedABackendItHasNot) {
  WorkloadSpec host_only = toy("alpha");
  host_only.backends = {Backend::Host};
  EXPECT_NO_THROW(check_backend(host_only, Backend::Host, "--backend host"));
  EXPECT_NO_THROW(check_backend(host_only, Backend::Auto, "default"));
  try {
    check_backend(host_only, Backend::Kokkos, "--backend kokkos");
    FAIL() << "kokkos was accepted by a host-only workload";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--backend kokkos: the alpha workload has no kokkos backend (it has host)");
  }
  // auto takes the host where the workload has no CUDA kernels, else stays auto.
  EXPECT_EQ(backend_to_bind(host_only, Backend::Auto), Backend::Host);
  WorkloadSpec every = toy("beta");
  every.backends = backends_built(true, true);
  EXPECT_EQ(backend_to_bind(every, Backend::Auto), Backend::Auto);
  EXPECT_EQ(backend_to_bind(every, Backend::Kokkos), Backend::Kokkos);
  // A workload that names no backends has the host's only: a GPU backend is
  // refused before the device is bound, not after.
  EXPECT_THROW(check_backend(toy("gamma"), Backend::Cuda, "--backend cuda"), InputError);
  EXPECT_EQ(backend_to_bind(toy("gamma"), Backend::Auto), Backend::Host);
}

TEST(BuiltinWorkloads, HeatAndMdAreRegisteredWithTheirKeys) {
  const WorkloadRegistry r = builtin_workloads();
  const std::vector<std::string> names = r.names();
  EXPECT_NE(std::find(names.begin(), names.end(), "heat"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "md"), names.end());
  EXPECT_TRUE(has_key(r.schema_of("heat"), "heat.nx"));
  EXPECT_TRUE(has_key(r.schema_of("heat"), "run.diag_every"));
  EXPECT_TRUE(has_key(r.schema_of("md"), "md.cutoff"));
  EXPECT_TRUE(has_key(r.schema_of("md"), "run.checkpoint_file"));
  EXPECT_TRUE(has_key(r.schema_of("heat"), "run.checkpoint_file"));
  EXPECT_FALSE(has_key(r.schema_of("md"), "heat.nx"));
}

}  // namespace
}  // namespace mpsfw
