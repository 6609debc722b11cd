// FieldOutput under MPI: every rank writes its block of an uneven grid, then
// rank 0 reads the file back with the plain HDF5 C API and checks every value,
// the attributes, the atomic rename and the XDMF file (committed with it).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>  // mkdtemp

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/mpi_temp_dir.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/io/field_output.hpp>
#include <mpsfw/core/io/xdmf_writer.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>

namespace mpsfw {
namespace {

namespace fs = std::filesystem;

constexpr Int3 kCells{7, 5, 3};  // uneven over 2 and 4 ranks
const GridGeometry kGeometry{{0.5, 0.25, 2.0}, {-1.0, 0.125, 3.5}};
constexpr double kSecondTime = 0.375;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

double first_value(int gx, int gy, int gz) { return gx + 100.0 * gy + 10000.0 * gz + 0.5; }
double second_value(int gx, int gy, int gz) {
  return -2.0 * (gx + 100.0 * gy + 10000.0 * gz) - 0.25;
}

// This rank's block of a field whose value encodes the global cell index.
std::vector<double> fill_block(const CartDecomposition& d, double (*value)(int, int, int)) {
  const Int3 n = d.local_cells(), o = d.offset();
  std::vector<double> block;
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i) block.push_back(value(o.x + i, o.y + j, o.z + k));
    }
  }
  return block;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Reads a scalar attribute after checking its type in the file.
template <class T>
T read_attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type) {
  T value{};
  const hid_t attribute = H5Aopen(object, name, H5P_DEFAULT);
  EXPECT_GE(attribute, 0) << "attribute " << name << " is missing";
  if (attribute < 0) return value;
  const hid_t type = H5Aget_type(attribute);
  EXPECT_GT(H5Tequal(type, file_type), 0) << "attribute " << name << " has the wrong type";
  H5Tclose(type);
  EXPECT_GE(H5Aread(attribute, memory_type, &value), 0) << "reading attribute " << name;
  H5Aclose(attribute);
  return value;
}

std::int64_t read_int64(hid_t object, const char* name) {
  return read_attribute<std::int64_t>(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64);
}

double read_float64(hid_t object, const char* name) {
  return read_attribute<double>(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE);
}

std::string read_fixed_string(hid_t object, const char* name) {
  const hid_t attribute = H5Aopen(object, name, H5P_DEFAULT);
  EXPECT_GE(attribute, 0) << "attribute " << name << " is missing";
  if (attribute < 0) return {};
  const hid_t type = H5Aget_type(attribute);
  EXPECT_EQ(H5Tget_class(type), H5T_STRING);
  EXPECT_EQ(H5Tis_variable_str(type), 0) << "expected a fixed-length string";
  std::vector<char> text(H5Tget_size(type) + 1, '\0');
  EXPECT_GE(H5Aread(attribute, type, text.data()), 0);
  H5Tclose(type);
  H5Aclose(attribute);
  return text.data();
}

void expect_root_attributes(hid_t file) {
  EXPECT_EQ(read_fixed_string(file, "solver"), "heat");
  EXPECT_EQ(read_int64(file, "nx"), kCells.x);
  EXPECT_EQ(read_int64(file, "ny"), kCells.y);
  EXPECT_EQ(read_int64(file, "nz"), kCells.z);
  EXPECT_EQ(read_float64(file, "dx"), kGeometry.spacing[0]);
  EXPECT_EQ(read_float64(file, "dy"), kGeometry.spacing[1]);
  EXPECT_EQ(read_float64(file, "dz"), kGeometry.spacing[2]);
  EXPECT_EQ(read_float64(file, "ox"), kGeometry.origin[0]);
  EXPECT_EQ(read_float64(file, "oy"), kGeometry.origin[1]);
  EXPECT_EQ(read_float64(file, "oz"), kGeometry.origin[2]);
}

// Checks shape, type, attributes and every value of one snapshot dataset.
void expect_snapshot(hid_t file, const char* name, long step, double time,
                     double (*value)(int, int, int)) {
  SCOPED_TRACE(name);
  const hid_t dataset = H5Dopen2(file, name, H5P_DEFAULT);
  ASSERT_GE(dataset, 0) << "dataset " << name << " is missing";
  const hid_t type = H5Dget_type(dataset);
  EXPECT_GT(H5Tequal(type, H5T_IEEE_F64LE), 0) << "expected float64";
  H5Tclose(type);
  const hid_t space = H5Dget_space(dataset);
  hsize_t dims[3] = {0, 0, 0};
  EXPECT_EQ(H5Sget_simple_extent_ndims(space), 3);
  H5Sget_simple_extent_dims(space, dims, nullptr);
  H5Sclose(space);
  EXPECT_EQ(dims[0], hsize_t(kCells.z));
  EXPECT_EQ(dims[1], hsize_t(kCells.y));
  EXPECT_EQ(dims[2], hsize_t(kCells.x));
  EXPECT_EQ(read_int64(dataset, "step"), step);
  EXPECT_EQ(read_float64(dataset, "time"), time);

  std::vector<double> data(static_cast<size_t>(kCells.product()), -1.0);
  EXPECT_GE(H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), 0);
  H5Dclose(dataset);
  int wrong = 0;
  std::string first_wrong;
  for (int z = 0; z < kCells.z; ++z) {
    for (int y = 0; y < kCells.y; ++y) {
      for (int x = 0; x < kCells.x; ++x) {
        const double got = data[static_cast<size_t>((z * kCells.y + y) * kCells.x + x)];
        if (got == value(x, y, z)) continue;
        if (wrong++ == 0) {
          first_wrong = "(" + std::to_string(x) + "," + std::to_string(y) + "," +
                        std::to_string(z) + ") = " + std::to_string(got) + ", expected " +
                        std::to_string(value(x, y, z));
        }
      }
    }
  }
  EXPECT_EQ(wrong, 0) << "first wrong cell " << first_wrong;
}

// A fresh directory under /tmp for the whole job: rank 0 creates it and
// broadcasts its name, and removes it once every rank is done.
class FieldOutputTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_support::make_shared_temp_dir("mpsfw_field_output");
    ASSERT_FALSE(dir_.empty()) << "mkdtemp failed";
  }
  void TearDown() override { testing_support::remove_shared_temp_dir(dir_); }

  std::string dir_;
};

class FieldOutputModeTest : public FieldOutputTest, public testing::WithParamInterface<OutputMode> {
 protected:
  OutputMode expected_mode() const {
    if (GetParam() != OutputMode::Auto) return GetParam();
    return hdf5_is_parallel() ? OutputMode::Collective : OutputMode::RankOrdered;
  }
};

TEST_P(FieldOutputModeTest, EveryRankBlockLandsAtItsGlobalPlace) {
  const CartDecomposition decomp(MPI_COMM_WORLD, kCells, {0, 0, 0}, {false, false, false});
  const std::string path = dir_ + "/field.h5";
  const std::string partial = path + ".partial";
  {
    FieldOutput out(path, decomp, kGeometry, "heat", GetParam());
    EXPECT_EQ(out.mode(), expected_mode());
    EXPECT_EQ(out.path(), path);
    out.write(0, 0.0, fill_block(decomp, first_value).data());
    out.write(10, kSecondTime, fill_block(decomp, second_value).data());
    if (decomp.rank() == 0) {
      EXPECT_TRUE(fs::exists(partial)) << "snapshots should go to the temporary file";
      EXPECT_FALSE(fs::exists(path)) << "the final file should only appear at commit()";
    }
    out.commit();
    EXPECT_THROW(out.write(20, 1.0, fill_block(decomp, first_value).data()), Error);
  }
  if (decomp.rank() != 0) return;

  EXPECT_FALSE(fs::exists(partial));
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0) << "cannot open " << path;
  expect_root_attributes(file);
  expect_snapshot(file, "/u/00000000", 0, 0.0, first_value);
  expect_snapshot(file, "/u/00000010", 10, kSecondTime, second_value);
  H5Fclose(file);

  const std::string xmf = dir_ + "/field.xmf";
  ASSERT_TRUE(fs::exists(xmf));
  const std::string text = read_text(xmf);
  EXPECT_TRUE(contains(text, ">field.h5:/u/00000000</DataItem>")) << text;
  EXPECT_TRUE(contains(text, ">field.h5:/u/00000010</DataItem>")) << text;
  EXPECT_TRUE(contains(text, "<Time Value=\"0.375\"/>")) << text;
}

TEST_P(FieldOutputModeTest, SeveralNamedFieldsEachGetDatasetsAndAnXdmfAttribute) {
  const CartDecomposition decomp(MPI_COMM_WORLD, kCells, {0, 0, 0}, {false, false, false});
  const std::string path = dir_ + "/fields.h5";
  {
    FieldOutput out(path, decomp, kGeometry, "heat", GetParam(), {"density", "vx"});
    const std::vector<double> a = fill_block(decomp, first_value),
                              b = fill_block(decomp, second_value);
    out.write(0, 0.0, {a.data(), b.data()});
    out.write(10, kSecondTime, {b.data(), a.data()});
    EXPECT_THROW(out.write(20, 1.0, a.data()), Error);  // one block for two fields
    out.commit();
  }
  if (decomp.rank() != 0) return;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0) << "cannot open " << path;
  expect_snapshot(file, "/density/00000000", 0, 0.0, first_value);
  expect_snapshot(file, "/vx/00000000", 0, 0.0, second_value);
  expect_snapshot(file, "/density/00000010", 10, kSecondTime, second_value);
  expect_snapshot(file, "/vx/00000010", 10, kSecondTime, first_value);
  EXPECT_EQ(H5Lexists(file, "/u", H5P_DEFAULT), 0) << "no /u when the fields are named otherwise";
  H5Fclose(file);
  const std::string text = read_text(dir_ + "/fields.xmf");
  for (const char* part :
       {"<Attribute Name=\"density\"", "<Attribute Name=\"vx\"",
        ">fields.h5:/density/00000010</DataItem>", ">fields.h5:/vx/00000000</DataItem>"}) {
    EXPECT_TRUE(contains(text, part)) << "missing " << part << " in\n" << text;
  }
}

// Many frames of two fields over ranks split along z (the split that Open
// MPI's MPI-IO once lost cells of, given the Cartesian communicator): every
// frame lands whole.
TEST_P(FieldOutputModeTest, EveryFrameOfAZSplitLandsWhole) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Int3 grid = size <= kCells.z ? Int3{1, 1, size} : Int3{0, 0, 0};
  const CartDecomposition decomp(MPI_COMM_WORLD, kCells, grid, {false, false, false});
  const std::string path = dir_ + "/frames.h5";
  constexpr int kFrames = 24;
  {
    FieldOutput out(path, decomp, kGeometry, "heat", GetParam(), {"a", "b"});
    const std::vector<double> a = fill_block(decomp, first_value),
                              b = fill_block(decomp, second_value);
    for (int f = 0; f < kFrames; ++f) out.write(f, f * 0.5, {a.data(), b.data()});
    out.commit();
  }
  if (decomp.rank() != 0) return;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0) << "cannot open " << path;
  for (int f = 0; f < kFrames; ++f) {
    char a[32], b[32];
    std::snprintf(a, sizeof a, "/a/%08d", f);
    std::snprintf(b, sizeof b, "/b/%08d", f);
    expect_snapshot(file, a, f, f * 0.5, first_value);
    expect_snapshot(file, b, f, f * 0.5, second_value);
  }
  H5Fclose(file);
}

TEST_P(FieldOutputModeTest, DestroyedWithoutCommitLeavesNoFile) {
  const CartDecomposition decomp(MPI_COMM_WORLD, kCells, {0, 0, 0}, {false, false, false});
  const std::string path = dir_ + "/field.h5";
  struct SimulatedFailure {};
  try {
    FieldOutput out(path, decomp, kGeometry, "heat", GetParam());
    out.write(0, 0.0, fill_block(decomp, first_value).data());
    if (decomp.rank() == 0) {
      EXPECT_TRUE(fs::exists(path + ".partial"));
    }
    throw SimulatedFailure{};
  } catch (const SimulatedFailure&) {
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (decomp.rank() != 0) return;
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".partial"));
  EXPECT_FALSE(fs::exists(dir_ + "/field.xmf"));
}

// A failure between the HDF5 file and its XDMF file (here the .xmf cannot be
// written: it, or its partial file, is a folder) must leave the previous pair
// as it was, not a new O.h5 beside an old or missing O.xmf.
TEST_P(FieldOutputModeTest, FailedXdmfLeavesThePreviousPair) {
  const CartDecomposition decomp(MPI_COMM_WORLD, kCells, {0, 0, 0}, {false, false, false});
  const std::string path = dir_ + "/field.h5", xmf = dir_ + "/field.xmf";
  for (const std::string& folder : {xmf + ".partial", xmf}) {
    SCOPED_TRACE("a folder at " + folder);
    if (decomp.rank() == 0) {
      fs::remove_all(xmf);
      fs::remove_all(xmf + ".partial");
      std::ofstream(path) << "previous h5\n";
      if (folder != xmf) std::ofstream(xmf) << "previous xmf\n";
      fs::create_directory(folder);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    try {
      FieldOutput out(path, decomp, kGeometry, "heat", GetParam());
      out.write(0, 0.0, fill_block(decomp, first_value).data());
      out.commit();
      ADD_FAILURE() << "commit() did not fail";
    } catch (const Error& e) {
      EXPECT_TRUE(contains(e.what(), xmf)) << e.what();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (decomp.rank() != 0) continue;
    EXPECT_TRUE(read_text(path) == "previous h5\n") << "a new O.h5 went in without its O.xmf";
    if (folder != xmf) {
      EXPECT_EQ(read_text(xmf), "previous xmf\n");
    }
    EXPECT_TRUE(fs::is_directory(folder));
    for (const std::string& left : {path + ".partial", path + ".previous", xmf + ".previous"}) {
      EXPECT_FALSE(fs::exists(left)) << left;
    }
  }
}

TEST_P(FieldOutputModeTest, MissingDirectoryThrowsOnEveryRank) {
  const CartDecomposition decomp(MPI_COMM_WORLD, kCells, {0, 0, 0}, {false, false, false});
  const std::string path = dir_ + "/no/such/dir/field.h5";
  try {
    FieldOutput out(path, decomp, kGeometry, "heat", GetParam());
    ADD_FAILURE() << "no Error for " << path;
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), path)) << e.what();
  }
}

std::string mode_name(const testing::TestParamInfo<OutputMode>& info) {
  switch (info.param) {
    case OutputMode::Collective:
      return "Collective";
    case OutputMode::RankOrdered:
      return "RankOrdered";
    case OutputMode::Auto:
      break;
  }
  return "Auto";
}

// Collective only with a parallel HDF5; CollectiveNeedsParallelHdf5 covers the
// serial case. (Not GTEST_SKIP: CTest's skip regex would hide the other results.)
std::vector<OutputMode> available_modes() {
  std::vector<OutputMode> modes{OutputMode::RankOrdered, OutputMode::Auto};
  if (hdf5_is_parallel()) modes.push_back(OutputMode::Collective);
  return modes;
}

INSTANTIATE_TEST_SUITE_P(Modes, FieldOutputModeTest, testing::ValuesIn(available_modes()),
                         mode_name);

TEST_F(FieldOutputTest, CollectiveNeedsParallelHdf5) {
  const CartDecomposition decomp(MPI_COMM_WORLD, kCells, {0, 0, 0}, {false, false, false});
  const std::string path = dir_ + "/field.h5";
  if (hdf5_is_parallel()) {
    FieldOutput out(path, decomp, kGeometry, "heat", OutputMode::Collective);
    EXPECT_EQ(out.mode(), OutputMode::Collective);
    return;
  }
  try {
    FieldOutput out(path, decomp, kGeometry, "heat", OutputMode::Collective);
    ADD_FAILURE() << "no Error for Collective on a serial HDF5";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), path)) << e.what();
    EXPECT_TRUE(contains(e.what(), "parallel HDF5")) << e.what();
  }
}

// Pure function, so rank 0 alone checks it.
TEST_F(FieldOutputTest, XdmfListsEverySnapshot) {
  if (world_rank() != 0) return;
  XdmfSeries series;
  series.h5_basename = "run.h5";
  series.cells = kCells;
  series.origin = kGeometry.origin;
  series.spacing = kGeometry.spacing;
  series.snapshots = {{0, 0.0}, {10, 0.1}, {12345678, 1.0 / 3.0}};
  const std::string text = xdmf_text(series);
  for (const char* part :
       {"<Xdmf Version=\"3.0\">", "CollectionType=\"Temporal\"",
        "<Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"3 5 7\"/>",
        "<Geometry GeometryType=\"ORIGIN_DXDYDZ\">", ">3.5 0.125 -1</DataItem>",
        ">2 0.25 0.5</DataItem>", "Center=\"Node\"", ">run.h5:/u/00000000</DataItem>",
        ">run.h5:/u/00000010</DataItem>", ">run.h5:/u/12345678</DataItem>", "<Time Value=\"0\"/>",
        "<Time Value=\"0.1\"/>", "<Time Value=\"0.33333333333333331\"/>"}) {
    EXPECT_TRUE(contains(text, part)) << "missing " << part << " in\n" << text;
  }
}

}  // namespace
}  // namespace mpsfw
