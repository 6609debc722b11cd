// The grid keys declared once (core/input/grid_keys.hpp): cells and spacing
// per axis, a solver's own keys after them, read back from parameters; one
// cell along z is accepted (a 2D grid), none is refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/input/grid_keys.hpp>
#include <mpsfw/core/input/run_config.hpp>

namespace mpsfw {
namespace {

Params toy_params(const std::vector<std::string>& sets) {
  Params p(input_schema(
      {"toy"}, cell_keys("toy", spacing_keys("toy", {real_param("toy", "dt", true, "", 0, true,
                                                                "time step, s")}))));
  p.apply_override("solver=toy");
  p.apply_override("run.steps=1");
  for (const std::string& s : sets) p.apply_override(s);
  p.finalize();
  return p;
}

TEST(GridKeys, CellsAndSpacingComeFirstThenTheSolversOwn) {
  std::vector<std::string> names;
  for (const ParamSpec& s :
       cell_keys("toy", spacing_keys("toy", {real_param("toy", "dt", true, "", 0, true, "s")}))) {
    names.push_back(s.name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"toy.nx", "toy.ny", "toy.nz", "toy.dx", "toy.dy",
                                             "toy.dz", "toy.dt"}));
  EXPECT_EQ(cell_key_names("toy"), (std::vector<std::string>{"toy.nx", "toy.ny", "toy.nz"}));
}

TEST(GridKeys, TheirValuesAreReadBack) {
  const Params p = toy_params(
      {"toy.nx=9", "toy.ny=8", "toy.nz=1", "toy.dx=0.5", "toy.dy=0.25", "toy.dz=2", "toy.dt=0.1"});
  EXPECT_EQ(cells_of(p, "toy"), (Int3{9, 8, 1}));
  EXPECT_EQ(spacing_of(p, "toy"), (std::array<double, 3>{0.5, 0.25, 2}));
}

TEST(GridKeys, NoCellsAlongAnAxisIsRefused) {
  try {
    toy_params(
        {"toy.nx=9", "toy.ny=0", "toy.nz=1", "toy.dx=1", "toy.dy=1", "toy.dz=1", "toy.dt=0.1"});
    ADD_FAILURE() << "toy.ny = 0 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("toy.ny"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mpsfw
