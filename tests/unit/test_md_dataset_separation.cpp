// The MD dataset guard: atoms closer than kMinSeparationSigma *
// md.sigma, periodic images included, are refused with both ids and rows; a
// dense but legal input and a sparse box pass; a large input is checked in
// linear time (a cell list), not pair by pair.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/solvers/md/md_dataset_input.hpp>

namespace mpsfw::md {
namespace {

struct Atoms {
  std::vector<double> x;  // N rows of 3
  std::vector<std::int64_t> ids;
};

// Writes `atoms` as an md.initial = dataset input and returns its config.
MdConfig write_input(const std::string& name, const Atoms& atoms, const double box[3],
                     double sigma = 1) {
  const std::string path = ::testing::TempDir() + name;
  {
    h5::Handle file = h5::create_file(path);
    h5::Handle md = h5::create_group(file.get(), "md");
    const std::uint64_t n = atoms.x.size() / 3;
    const std::vector<double> v(atoms.x.size(), 0.0);
    h5::write_array(md.get(), "positions", {n, 3}, atoms.x.data());
    h5::write_array(md.get(), "velocities", {n, 3}, v.data());
    if (!atoms.ids.empty()) h5::write_array(md.get(), "ids", {n}, atoms.ids.data());
  }
  MdConfig c;
  c.input_file = path;
  c.initial = Initial::Dataset;
  for (int d = 0; d < 3; ++d) c.box[d] = box[d];
  c.pair = md::lennard_jones(1, sigma, 2.5);
  return c;
}

std::string refusal(const MdConfig& c) {
  try {
    all_dataset_atoms(c);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A simple cubic lattice of `side`^3 atoms `spacing` apart, ids 100, 101, ...
Atoms lattice(int side, double spacing) {
  Atoms a;
  for (int k = 0; k < side; ++k) {
    for (int j = 0; j < side; ++j) {
      for (int i = 0; i < side; ++i) {
        a.x.insert(a.x.end(), {(i + 0.5) * spacing, (j + 0.5) * spacing, (k + 0.5) * spacing});
        a.ids.push_back(100 + static_cast<std::int64_t>(a.ids.size()));
      }
    }
  }
  return a;
}

TEST(MdDatasetSeparation, TwoAtomsTooCloseNameBothIds) {
  const double box[3] = {10, 10, 10};
  Atoms a = lattice(4, 2.5);
  a.x[3 * 9 + 0] = a.x[3 * 5 + 0] + 0.3;  // row 9 next to row 5
  a.x[3 * 9 + 1] = a.x[3 * 5 + 1];
  a.x[3 * 9 + 2] = a.x[3 * 5 + 2];
  const std::string message = refusal(write_input("close.h5", a, box));
  EXPECT_NE(message.find("close.h5: dataset /md/positions: atoms 105 and 109 (rows 5 and 9) are "
                         "0.3 apart, closer than 0.5 sigma = 0.5 (md.sigma = 1)"),
            std::string::npos)
      << message;
}

TEST(MdDatasetSeparation, PeriodicImagesCount) {
  const double box[3] = {10, 8, 12};
  Atoms a;
  a.x = {0.1, 4, 6, 9.85, 4, 6, 5, 4, 6};  // rows 0 and 1: 0.25 apart across x = 0
  const std::string message = refusal(write_input("periodic.h5", a, box));
  EXPECT_NE(message.find("atoms 0 and 1 (rows 0 and 1) are 0.25 apart"), std::string::npos)
      << message;
}

TEST(MdDatasetSeparation, ScalesWithSigma) {
  const double box[3] = {10, 10, 10};
  const Atoms a = lattice(4, 2.5);
  EXPECT_EQ(refusal(write_input("sigma_ok.h5", a, box, 4.9)), "");
  const std::string message = refusal(write_input("sigma_big.h5", a, box, 5.1));
  EXPECT_NE(message.find("closer than 0.5 sigma = 2.55 (md.sigma = 5.1)"), std::string::npos)
      << message;
}

TEST(MdDatasetSeparation, FirstPairByRowIsNamed) {
  const double box[3] = {10, 10, 10};
  Atoms a = lattice(4, 2.5);
  for (int row : {60, 30, 20}) {  // three close pairs: (20, 21) comes first
    for (int d = 0; d < 3; ++d) a.x[3 * (row + 1) + d] = a.x[3 * row + d] + (d == 0 ? 0.1 : 0);
  }
  const std::string message = refusal(write_input("first.h5", a, box));
  EXPECT_NE(message.find("atoms 120 and 121 (rows 20 and 21)"), std::string::npos) << message;
}

TEST(MdDatasetSeparation, SparseBoxAndLegalNeighboursPass) {
  const double huge[3] = {1e4, 1e4, 1e4};  // 2e13 cells of 0.5 if not capped
  Atoms two;
  two.x = {1, 1, 1, 1.6, 1, 1};
  EXPECT_EQ(refusal(write_input("sparse.h5", two, huge)), "");
  const double box[3] = {6, 6, 6};
  EXPECT_EQ(refusal(write_input("dense_ok.h5", lattice(10, 0.6), box)), "");
}

// Not a speed test (bench/ measures speed): the bound only tells a cell list
// from pair by pair, with a wide margin on both sides so that a loaded or
// slow CI machine cannot fail it: the cell list checks these 10^6 atoms in a
// few seconds at most, pair by pair is 5e11 distances, minutes even on a fast
// machine. A smaller input would bring the two too close: pair by pair could
// pass on a fast machine, a busy one could fail.
TEST(MdDatasetSeparation, LargeInputIsNotCheckedPairByPair) {
  const int side = 100;
  const double box[3] = {side * 1.0, side * 1.0, side * 1.0};
  const Atoms a = lattice(side, 1.0);
  const MdConfig c = write_input("large.h5", a, box);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(all_dataset_atoms(c).size(), a.ids.size());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 60.0);
}

}  // namespace
}  // namespace mpsfw::md
