// Params: typed reading of attributes (as C and h5py write them), --set
// overrides, defaults and the error texts that name file, path and expectation.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/nearest_names.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/io/h5_io.hpp>

namespace mpsfw {
namespace {

std::vector<ParamSpec> schema() {
  ParamSpec n;
  n.group = "grid";
  n.key = "n";
  n.type = ParamType::Integer;
  n.required = true;
  n.min = 1;
  n.max = 100;
  n.meaning = "cells";
  ParamSpec dt;
  dt.group = "grid";
  dt.key = "dt";
  dt.type = ParamType::Real;
  dt.fallback = "0.5";
  dt.min = 0;
  dt.min_exclusive = true;
  ParamSpec kind;
  kind.key = "kind";
  kind.type = ParamType::Text;
  kind.fallback = "a";
  kind.choices = {"a", "b"};
  return {n, dt, kind};
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

class ParamsFile : public testing::Test {
 protected:
  void SetUp() override {
    path_ = testing::TempDir() + "mpsfw_params_" +
            testing::UnitTest::GetInstance()->current_test_info()->name() + ".h5";
    file_ = h5::create_file(path_);
    group_ = h5::create_group(file_.get(), "grid");
  }
  void TearDown() override { std::remove(path_.c_str()); }
  void close() {
    group_.reset();
    file_.reset();
  }
  std::string path_;
  h5::Handle file_, group_;
};

TEST_F(ParamsFile, ReadsTypedValuesAndFillsDefaults) {
  h5::write_attribute(group_.get(), "n", std::int64_t{42});
  h5::write_attribute(file_.get(), "kind", std::string("b"));
  close();
  Params p(schema());
  std::vector<std::string> warnings;
  p.read_file(path_, &warnings);
  p.finalize();
  EXPECT_EQ(p.integer("grid.n"), 42);
  EXPECT_EQ(p.real("grid.dt"), 0.5);
  EXPECT_EQ(p.text("kind"), "b");
  EXPECT_TRUE(warnings.empty());
}

TEST_F(ParamsFile, IntegerIsAcceptedWhereARealIsExpected) {
  h5::write_attribute(group_.get(), "n", std::int64_t{3});
  h5::write_attribute(group_.get(), "dt", std::int64_t{2});
  close();
  Params p(schema());
  p.read_file(path_, nullptr);
  p.finalize();
  EXPECT_EQ(p.real("grid.dt"), 2.0);
}

TEST_F(ParamsFile, MistypedValueNamesFilePathAndExpectation) {
  h5::write_attribute(group_.get(), "n", 4.5);
  close();
  Params p(schema());
  const std::string e = error_of([&] { p.read_file(path_, nullptr); });
  EXPECT_NE(e.find(path_), std::string::npos) << e;
  EXPECT_NE(e.find("/grid/n"), std::string::npos) << e;
  EXPECT_NE(e.find("expected an integer"), std::string::npos) << e;
  EXPECT_NE(e.find("64-bit float"), std::string::npos) << e;
}

TEST_F(ParamsFile, UnknownKeysAndGroupsAreWarnings) {
  h5::write_attribute(group_.get(), "n", std::int64_t{3});
  h5::write_attribute(group_.get(), "colour", std::string("red"));
  h5::create_group(file_.get(), "extra");
  close();
  Params p(schema());
  std::vector<std::string> warnings;
  p.read_file(path_, &warnings);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("/grid/colour"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("/extra"), std::string::npos) << warnings[1];
}

TEST_F(ParamsFile, MissingRequiredKeyIsAnError) {
  close();
  Params p(schema());
  p.read_file(path_, nullptr);
  const std::string e = error_of([&] { p.finalize(); });
  EXPECT_NE(e.find("/grid/n is missing"), std::string::npos) << e;
  EXPECT_NE(e.find("an integer in [1, 100] (cells)"), std::string::npos) << e;
}

TEST(Params, OverrideIsParsedAsTheKeysType) {
  Params p(schema());
  p.apply_override("grid.n=7");
  p.apply_override("grid.dt=1e-3");
  p.apply_override("kind=a");
  p.finalize();
  EXPECT_EQ(p.integer("grid.n"), 7);
  EXPECT_EQ(p.real("grid.dt"), 1e-3);
  EXPECT_EQ(p.value("grid.n").origin, "--set grid.n=7");
}

TEST(Params, BadOverridesAreErrorsNamingTheOption) {
  Params p(schema());
  EXPECT_NE(error_of([&] {
              p.apply_override("grid.n=seven");
            }).find("--set grid.n=seven: expected an integer"),
            std::string::npos);
  EXPECT_NE(error_of([&] { p.apply_override("grid.nn=1"); }).find("unknown key 'grid.nn'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { p.apply_override("grid.n"); }).find("expected group.key=value"),
            std::string::npos);
}

TEST(Params, AnUnknownKeyNamesTheNearOnesNotEveryKey) {
  Params p(schema());
  const std::string typo = error_of([&] { p.apply_override("grid.nn=1"); });
  EXPECT_NE(typo.find("unknown key 'grid.nn' (did you mean 'grid.n'?); the keys of /grid: "),
            std::string::npos)
      << typo;
  const std::string far = error_of([&] { p.apply_override("other.zzzzzz=1"); });
  EXPECT_NE(far.find("unknown key 'other.zzzzzz'; --list-keys lists every key"), std::string::npos)
      << far;
  EXPECT_EQ(far.find("did you mean"), std::string::npos) << far;
}

TEST(NearestNames, CloseNamesFirstAndNothingFar) {
  const std::vector<std::string> keys = {"heat.nx", "heat.ny", "heat.dt", "run.steps"};
  EXPECT_EQ(nearest_names("heat.nxx", keys), (std::vector<std::string>{"heat.nx"}));
  EXPECT_EQ(nearest_names("run.setps", keys), (std::vector<std::string>{"run.steps"}));  // a swap
  EXPECT_TRUE(nearest_names("md.cutoff", keys).empty());
  EXPECT_EQ(did_you_mean("heat.n", keys), " (did you mean 'heat.nx' or 'heat.ny'?)");
  EXPECT_EQ(did_you_mean("zzz", keys), "");
  // A key without its group, as a deck written for another code has it.
  EXPECT_EQ(nearest_names("nx", keys), (std::vector<std::string>{"heat.nx"}));
  EXPECT_EQ(nearest_names("steps", keys), (std::vector<std::string>{"run.steps"}));
}

TEST(Params, RangeAndChoiceAreChecked) {
  Params p(schema());
  p.apply_override("grid.n=0");
  EXPECT_NE(error_of([&] { p.finalize(); }).find("expected an integer in [1, 100] (cells), got 0"),
            std::string::npos);
  Params q(schema());
  q.apply_override("grid.n=1");
  q.apply_override("kind=c");
  EXPECT_NE(error_of([&] { q.finalize(); }).find("expected one of a|b, got \"c\""),
            std::string::npos);
  Params r(schema());
  r.apply_override("grid.n=1");
  r.apply_override("grid.dt=0");
  EXPECT_NE(error_of([&] { r.finalize(); }).find("expected a number > 0, got 0"),
            std::string::npos);
}

}  // namespace
}  // namespace mpsfw
