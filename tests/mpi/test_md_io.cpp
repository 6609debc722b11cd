// MD files under MPI: a checkpoint of an FCC lattice reads back through Params
// and dataset_atoms with every atom bit for bit on the rank that owns it; a
// trajectory holds every frame with all atoms sorted by id, plus an XDMF file
// that lists the frames; bad /md datasets give InputErrors that name the file,
// the dataset and what was expected.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/mpi_temp_dir.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/core/io/xdmf_writer.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/particles/subdomain.hpp>
#include <mpsfw/solvers/md/md_config.hpp>
#include <mpsfw/solvers/md/md_dataset_input.hpp>
#include <mpsfw/solvers/md/md_initial.hpp>
#include <mpsfw/solvers/md/md_output.hpp>

namespace mpsfw::md {
namespace {

namespace fs = std::filesystem;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

size_t count_of(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Uneven lattice (4 x 5 x 6 cells, 480 atoms) and non-default settings, so a
// checkpoint that dropped or mangled one of them is caught.
Params lattice_params() {
  return md_params_from_overrides({"md.cells_x=4",
                                   "md.cells_y=5",
                                   "md.cells_z=6",
                                   "md.cutoff=2.4",
                                   "md.epsilon=0.875",
                                   "md.sigma=1.0625",
                                   "md.mass=1.5",
                                   "md.dt=0.004",
                                   "md.temperature=1.25",
                                   "md.seed=99",
                                   "md.thermostat=rescale",
                                   "md.thermostat_every=7",
                                   "md.thermostat_until=30",
                                   "md.target_temperature=1.125",
                                   "md.skin=0.25",
                                   "md.rebuild_every=9",
                                   "run.steps=17",
                                   "run.diag_every=3",
                                   "run.output_every=5",
                                   "run.backend=host",
                                   "run.progress_seconds=2.5",
                                   "run.check_every=4",
                                   "run.halo=mpi",
                                   "run.checkpoint_every=6"});
}
MdConfig lattice_config() { return md_config_from(lattice_params()); }

// A checkpoint of `atoms` as a run would write it (lists built where the atoms are).
void write_lattice_checkpoint(const std::string& path, const CartDecomposition& decomp,
                              const std::vector<AtomRecord>& atoms, long step, double time) {
  ResumeRows mine;
  mine.records = records_of(atoms);
  for (const AtomRecord& a : atoms) {
    for (int d = 0; d < 3; ++d) mine.build_positions.push_back(a.x[d]);
  }
  write_checkpoint(path, lattice_params(), lattice_config(), step, time, mine,
                   {decomp.rank_grid(), "host"}, decomp.comm());
}

// Reads `file` as an MD input, as the solver does.
MdConfig config_from_file(const std::string& file, std::vector<std::string>* warnings) {
  Params p(md_schema());
  p.read_file(file, warnings);
  p.finalize();
  return md_config_from(p);
}

std::vector<AtomRecord> sorted_by_id(std::vector<AtomRecord> atoms) {
  std::sort(atoms.begin(), atoms.end(),
            [](const AtomRecord& a, const AtomRecord& b) { return a.id < b.id; });
  return atoms;
}

// Every id of every rank's `atoms`, sorted (on every rank).
std::vector<std::int64_t> all_ids(const std::vector<AtomRecord>& atoms) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int mine = static_cast<int>(atoms.size());
  std::vector<int> counts(static_cast<size_t>(size)), offsets(static_cast<size_t>(size), 0);
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<std::int64_t> local, all(static_cast<size_t>(offsets.back() + counts.back()));
  for (const AtomRecord& a : atoms) local.push_back(a.id);
  MPI_Allgatherv(local.data(), mine, MPI_INT64_T, all.data(), counts.data(), offsets.data(),
                 MPI_INT64_T, MPI_COMM_WORLD);
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<std::int64_t> iota_ids(size_t n) {
  std::vector<std::int64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = static_cast<std::int64_t>(i);
  return ids;
}

// Plain HDF5 reads, for checking files independently of the code under test.
std::int64_t read_int64_attribute(hid_t object, const char* name) {
  std::int64_t value = -1;
  const hid_t attribute = H5Aopen(object, name, H5P_DEFAULT);
  EXPECT_GE(attribute, 0) << "attribute " << name << " is missing";
  if (attribute < 0) return value;
  EXPECT_GE(H5Aread(attribute, H5T_NATIVE_INT64, &value), 0);
  H5Aclose(attribute);
  return value;
}

double read_double_attribute(hid_t object, const char* name) {
  double value = std::numeric_limits<double>::quiet_NaN();
  const hid_t attribute = H5Aopen(object, name, H5P_DEFAULT);
  EXPECT_GE(attribute, 0) << "attribute " << name << " is missing";
  if (attribute < 0) return value;
  EXPECT_GE(H5Aread(attribute, H5T_NATIVE_DOUBLE, &value), 0);
  H5Aclose(attribute);
  return value;
}

// A dataset's dims and values (as doubles or int64), read with the C API.
template <class T>
std::vector<T> read_dataset(hid_t loc, const std::string& name, hid_t memory_type,
                            std::vector<hsize_t>* dims) {
  const hid_t dataset = H5Dopen2(loc, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(dataset, 0) << "dataset " << name << " is missing";
  if (dataset < 0) return {};
  const hid_t space = H5Dget_space(dataset);
  dims->assign(static_cast<size_t>(H5Sget_simple_extent_ndims(space)), 0);
  H5Sget_simple_extent_dims(space, dims->data(), nullptr);
  std::vector<T> values(static_cast<size_t>(H5Sget_simple_extent_npoints(space)));
  H5Sclose(space);
  if (!values.empty()) {
    EXPECT_GE(H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  }
  H5Dclose(dataset);
  return values;
}

// A fresh directory under /tmp for each test: rank 0 creates it and broadcasts
// its name, and removes it once every rank is done.
class MdIoTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_support::make_shared_temp_dir("mpsfw_md_io");
    ASSERT_FALSE(dir_.empty()) << "mkdtemp failed";
  }
  void TearDown() override { testing_support::remove_shared_temp_dir(dir_); }

  // Files left in the directory whose name ends with `suffix`.
  std::vector<std::string> files_ending(const std::string& suffix) const {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      const std::string name = entry.path().filename().string();
      if (name.size() >= suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        found.push_back(name);
      }
    }
    return found;
  }

  std::string dir_;
};

// ---------------------------------------------------------------------------
// (a) Checkpoint -> Params -> dataset_atoms

TEST_F(MdIoTest, CheckpointReadsBackAsTheSameAtomsOnEveryRank) {
  const MdConfig c = lattice_config();
  const CartDecomposition decomp(MPI_COMM_WORLD, link_cells(c), {0, 0, 0}, {true, true, true});
  const Subdomain domain = subdomain_of(decomp, c.box);
  const std::vector<AtomRecord> atoms = fcc_atoms(c, domain, decomp.comm());
  const long total = fcc_atom_count(c);
  ASSERT_EQ(total, 480);
  const std::string path = dir_ + "/state.h5";
  const long step = 12;  // before run.steps = 17: the checkpoint resumes to there
  const double time = 0.048;
  write_lattice_checkpoint(path, decomp, atoms, step, time);

  // Read back as an input file on every rank.
  std::vector<std::string> warnings;
  const MdConfig r = config_from_file(path, &warnings);
  EXPECT_EQ(r.input_file, path);
  EXPECT_EQ(r.initial, Initial::Dataset);
  for (int d = 0; d < 3; ++d) EXPECT_TRUE(same_bits(r.box[d], c.box[d])) << "box " << d;
  const auto& rl = std::get<md::LennardJones>(r.pair);
  const auto& cl = std::get<md::LennardJones>(c.pair);
  EXPECT_EQ(rl.epsilon, cl.epsilon);
  EXPECT_EQ(rl.sigma, cl.sigma);
  EXPECT_EQ(r.mass, c.mass);
  EXPECT_EQ(rl.cutoff, cl.cutoff);
  EXPECT_EQ(rl.shift, cl.shift);
  EXPECT_EQ(r.dt, c.dt);
  EXPECT_EQ(r.temperature, c.temperature);
  EXPECT_EQ(r.seed, c.seed);
  EXPECT_EQ(r.thermostat, Thermostat::Rescale);
  EXPECT_EQ(r.thermostat_every, 7);
  EXPECT_EQ(r.thermostat_until, 30);
  EXPECT_EQ(r.target_temperature, 1.125);
  EXPECT_EQ(r.steps, 17);
  EXPECT_EQ(r.diag_every, 3);
  EXPECT_EQ(r.output_every, 5);
  EXPECT_EQ(r.backend, Backend::Host);
  EXPECT_EQ(r.progress_seconds, 2.5);
  EXPECT_EQ(r.skin, 0.25);
  EXPECT_EQ(r.rebuild_every, 9);
  EXPECT_EQ(r.check_every, 4);
  EXPECT_EQ(r.halo, HaloTransport::Mpi);
  EXPECT_EQ(r.checkpoint_every, 6);
  EXPECT_EQ(r.output_file, "");
  EXPECT_EQ(r.checkpoint_file, "");
  // Everything in the checkpoint is in the schema (root step and time too).
  EXPECT_TRUE(warnings.empty()) << (warnings.empty() ? "" : warnings.front());
  EXPECT_EQ(dataset_atom_count(path), total);

  // Same decomposition: each rank gets exactly its own atoms back, bit for bit.
  const std::vector<AtomRecord> mine = sorted_by_id(atoms);
  const std::vector<AtomRecord> back = sorted_by_id(dataset_atoms(r, domain));
  ASSERT_EQ(back.size(), mine.size());
  int wrong = 0;
  for (size_t i = 0; i < mine.size(); ++i) {
    bool same = back[i].id == mine[i].id;
    for (int d = 0; d < 3; ++d) {
      same = same && same_bits(back[i].x[d], mine[i].x[d]) && same_bits(back[i].v[d], mine[i].v[d]);
    }
    if (!same && wrong++ == 0) {
      ADD_FAILURE() << "atom " << mine[i].id << " came back as id " << back[i].id << " x0 "
                    << back[i].x[0] << " (wrote " << mine[i].x[0] << ") v0 " << back[i].v[0]
                    << " (wrote " << mine[i].v[0] << ")";
    }
  }
  EXPECT_EQ(wrong, 0);
  // The union over ranks is the whole lattice, every id once.
  EXPECT_EQ(all_ids(back), iota_ids(static_cast<size_t>(total)));

  // The whole file, as written: atoms sorted by id, root step and time.
  const std::vector<AtomRecord> whole = all_dataset_atoms(r);
  ASSERT_EQ(whole.size(), static_cast<size_t>(total));
  for (size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(whole[i].id, static_cast<std::int64_t>(i));
    if (whole[i].id != static_cast<std::int64_t>(i)) break;
  }
  if (decomp.rank() == 0) {
    EXPECT_FALSE(fs::exists(path + ".partial"));
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    EXPECT_EQ(read_int64_attribute(file, "step"), step);
    EXPECT_EQ(read_double_attribute(file, "time"), time);
    std::vector<hsize_t> dims;
    const auto ids = read_dataset<std::int64_t>(file, "/md/ids", H5T_NATIVE_INT64, &dims);
    EXPECT_EQ(dims, std::vector<hsize_t>{static_cast<hsize_t>(total)});
    EXPECT_EQ(ids, iota_ids(static_cast<size_t>(total)));
    read_dataset<double>(file, "/md/positions", H5T_NATIVE_DOUBLE, &dims);
    EXPECT_EQ(dims, (std::vector<hsize_t>{static_cast<hsize_t>(total), 3}));
    H5Fclose(file);
  }
}

TEST_F(MdIoTest, CheckpointIntoMissingFolderFailsOnEveryRank) {
  const MdConfig c = lattice_config();
  const std::string path = dir_ + "/no/such/folder/state.h5";
  const std::vector<AtomRecord> none;
  try {
    write_checkpoint(path, lattice_params(), c, 0, 0.0, ResumeRows{records_of(none), {}, 0, 0},
                     {{1, 1, 1}, "host"}, MPI_COMM_WORLD);
    ADD_FAILURE() << "no Error for " << path;
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), path)) << e.what();
  }
}

// ---------------------------------------------------------------------------
// (b) Trajectory

// Frame k: positions shifted by k/8 of a cell (wrapped), velocities times k+1.
std::vector<AtomRecord> frame_atoms(const std::vector<AtomRecord>& atoms, const MdConfig& c,
                                    int k) {
  std::vector<AtomRecord> out = atoms;
  for (AtomRecord& a : out) {
    for (int d = 0; d < 3; ++d) {
      a.x[d] = wrapped(a.x[d] + 0.125 * k * c.box[d] / c.unit_cells[d], c.box[d]);
      a.v[d] *= k + 1;
    }
  }
  // Reversed, so the writer has to sort.
  std::reverse(out.begin(), out.end());
  return out;
}

TEST_F(MdIoTest, TrajectoryHoldsEveryFrameSortedByIdAndAnXdmfFile) {
  const MdConfig c = lattice_config();
  const CartDecomposition decomp(MPI_COMM_WORLD, link_cells(c), {0, 0, 0}, {true, true, true});
  const Subdomain domain = subdomain_of(decomp, c.box);
  const std::vector<AtomRecord> atoms = fcc_atoms(c, domain, decomp.comm());
  const long total = fcc_atom_count(c);
  const std::string path = dir_ + "/traj.h5";
  const int frames = 3;
  {
    MdTrajectory trajectory(path, c, decomp.comm());
    EXPECT_EQ(trajectory.path(), path);
    for (int k = 0; k < frames; ++k) {
      trajectory.write_frame(10L * k, 0.25 * k, frame_atoms(atoms, c, k));
    }
    EXPECT_EQ(trajectory.frames(), frames);
    if (decomp.rank() == 0) {
      EXPECT_TRUE(fs::exists(path + ".partial"));
      EXPECT_FALSE(fs::exists(path)) << "the file should appear only at close()";
    }
    trajectory.close();
    EXPECT_THROW(trajectory.write_frame(99, 1.0, atoms), Error);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  // Every rank checks its own atoms in every frame.
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0) << "cannot open " << path;
  EXPECT_EQ(read_int64_attribute(file, "atoms"), total);
  EXPECT_EQ(read_int64_attribute(file, "frames"), frames);
  for (int d = 0; d < 3; ++d) {
    const std::string name = std::string("box_") + "xyz"[d];
    EXPECT_EQ(read_double_attribute(file, name.c_str()), c.box[d]);
  }
  {
    h5::Handle root = h5::open_group(file, "/");
    const h5::Scalar solver = h5::read_scalar(root.get(), "solver");
    EXPECT_EQ(solver.text, "md");
  }
  const auto n = static_cast<hsize_t>(total);
  for (int k = 0; k < frames; ++k) {
    const std::string group = trajectory_frame_group(k);
    SCOPED_TRACE(group);
    const hid_t g = H5Gopen2(file, group.c_str(), H5P_DEFAULT);
    ASSERT_GE(g, 0) << "group " << group << " is missing";
    EXPECT_EQ(read_int64_attribute(g, "step"), 10 * k);
    EXPECT_EQ(read_double_attribute(g, "time"), 0.25 * k);
    EXPECT_EQ(read_int64_attribute(g, "atoms"), total);
    std::vector<hsize_t> dims;
    const auto ids = read_dataset<std::int64_t>(g, "ids", H5T_NATIVE_INT64, &dims);
    EXPECT_EQ(dims, std::vector<hsize_t>{n});
    EXPECT_EQ(ids, iota_ids(static_cast<size_t>(total)));
    const auto x = read_dataset<double>(g, "positions", H5T_NATIVE_DOUBLE, &dims);
    EXPECT_EQ(dims, (std::vector<hsize_t>{n, 3}));
    const auto v = read_dataset<double>(g, "velocities", H5T_NATIVE_DOUBLE, &dims);
    EXPECT_EQ(dims, (std::vector<hsize_t>{n, 3}));
    H5Gclose(g);
    ASSERT_EQ(x.size(), 3 * static_cast<size_t>(total));
    ASSERT_EQ(v.size(), 3 * static_cast<size_t>(total));
    int wrong = 0;
    for (const AtomRecord& a : frame_atoms(atoms, c, k)) {
      const size_t row = static_cast<size_t>(a.id);  // ids are 0..N-1, sorted
      for (size_t d = 0; d < 3; ++d) {
        if (!same_bits(x[3 * row + d], a.x[d]) || !same_bits(v[3 * row + d], a.v[d])) ++wrong;
      }
    }
    EXPECT_EQ(wrong, 0) << "values of this rank's atoms differ in the file";
  }
  std::vector<hsize_t> vertex_dims;
  EXPECT_EQ(read_dataset<std::int64_t>(file, "vertices", H5T_NATIVE_INT64, &vertex_dims),
            iota_ids(static_cast<size_t>(total)));
  H5Fclose(file);
  // Each rank checked its own atoms; together they are all of them.
  EXPECT_EQ(all_ids(atoms), iota_ids(static_cast<size_t>(total)));

  if (decomp.rank() != 0) return;
  EXPECT_TRUE(files_ending(".partial").empty());
  const std::string xmf = dir_ + "/traj.xmf";
  ASSERT_TRUE(fs::exists(xmf));
  const std::string text = read_text(xmf);
  EXPECT_TRUE(contains(text, "CollectionType=\"Temporal\"")) << text;
  EXPECT_EQ(count_of(text, "TopologyType=\"Polyvertex\" NumberOfElements=\"480\""),
            static_cast<size_t>(frames))
      << text;
  // Each frame: the atoms' geometry and the box outline's.
  EXPECT_EQ(count_of(text, "<Geometry GeometryType=\"XYZ\">"), 2 * static_cast<size_t>(frames));
  // Every frame's cells are the vertex numbers of one dataset (XDMF 3 readers
  // make no cells without them), the box a closed outline of 12 edges.
  EXPECT_EQ(count_of(text, ">traj.h5:/vertices<"), static_cast<size_t>(frames)) << text;
  EXPECT_EQ(count_of(text, "TopologyType=\"Polyline\" NumberOfElements=\"12\""),
            static_cast<size_t>(frames));
  EXPECT_EQ(count_of(text, "<Time Value="), static_cast<size_t>(frames));
  for (int k = 0; k < frames; ++k) {
    const std::string group = trajectory_frame_group(k);
    for (const char* dataset : {"/positions<", "/velocities<", "/ids<"}) {
      EXPECT_TRUE(contains(text, ">traj.h5:" + group + dataset)) << group << dataset << "\n"
                                                                 << text;
    }
  }
  EXPECT_TRUE(contains(text, "<Time Value=\"0\"/>")) << text;
  EXPECT_TRUE(contains(text, "<Time Value=\"0.25\"/>")) << text;
  EXPECT_TRUE(contains(text, "<Time Value=\"0.5\"/>")) << text;
  EXPECT_TRUE(contains(text, "Dimensions=\"480 3\"")) << text;
}

TEST_F(MdIoTest, TrajectoryNeverClosedLeavesNoFile) {
  const MdConfig c = lattice_config();
  const CartDecomposition decomp(MPI_COMM_WORLD, link_cells(c), {0, 0, 0}, {true, true, true});
  const Subdomain domain = subdomain_of(decomp, c.box);
  const std::vector<AtomRecord> atoms = fcc_atoms(c, domain, decomp.comm());
  const std::string path = dir_ + "/traj.h5";
  {
    MdTrajectory trajectory(path, c, decomp.comm());
    trajectory.write_frame(0, 0.0, atoms);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (decomp.rank() != 0) return;
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".partial"));
  EXPECT_FALSE(fs::exists(dir_ + "/traj.xmf"));
}

// An output named .h5md is H5MD: every element a time series of one shape,
// ids in order, no XDMF file; a frame with other atoms is refused on every
// rank and leaves no file.
TEST_F(MdIoTest, TrajectoryAsH5mdKeepsOneShapeAndRefusesOtherAtoms) {
  const MdConfig c = lattice_config();
  const CartDecomposition decomp(MPI_COMM_WORLD, link_cells(c), {0, 0, 0}, {true, true, true});
  const Subdomain domain = subdomain_of(decomp, c.box);
  const std::vector<AtomRecord> atoms = fcc_atoms(c, domain, decomp.comm());
  const auto total = static_cast<hsize_t>(fcc_atom_count(c));
  const std::string path = dir_ + "/traj.h5md";
  {
    MdTrajectory trajectory(path, c, decomp.comm());
    for (int k = 0; k < 2; ++k) trajectory.write_frame(10L * k, 0.25 * k, atoms);
    trajectory.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(fs::exists(xdmf_path_of(path)));
  {
    h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    ASSERT_GE(file.get(), 0) << "cannot open " << path;
    EXPECT_EQ(h5::dataset_info(file.get(), "/particles/trajectory/position/value").dims,
              (std::vector<std::uint64_t>{2, total, 3}));
    EXPECT_EQ(h5::dataset_info(file.get(), "/particles/trajectory/id/value").dims,
              (std::vector<std::uint64_t>{2, total}));
    EXPECT_EQ(h5::read_all_int64(file.get(), "/particles/trajectory/velocity/step"),
              (std::vector<std::int64_t>{0, 10}));
    const std::vector<std::int64_t> ids =
        h5::read_all_int64(file.get(), "/particles/trajectory/id/value");
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.begin() + static_cast<long>(total)));
  }
  const std::string again = dir_ + "/fewer.h5md";
  {
    MdTrajectory trajectory(again, c, decomp.comm());
    trajectory.write_frame(0, 0.0, atoms);
    std::vector<AtomRecord> fewer = atoms;
    if (decomp.rank() == 0 && !fewer.empty()) fewer.pop_back();
    const std::string error = error_of([&] { trajectory.write_frame(10, 0.25, fewer); });
    EXPECT_TRUE(contains(error, "H5MD keeps the same particles in every frame")) << error;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(fs::exists(again));
  EXPECT_FALSE(fs::exists(again + ".partial"));
}

// The trajectory and its XDMF file are one commit: when the XDMF file cannot
// go into place, the previous pair stays and nothing half-written is left.
TEST_F(MdIoTest, FailedXdmfLeavesThePreviousTrajectoryPair) {
  const MdConfig c = lattice_config();
  const CartDecomposition decomp(MPI_COMM_WORLD, link_cells(c), {0, 0, 0}, {true, true, true});
  const Subdomain domain = subdomain_of(decomp, c.box);
  const std::vector<AtomRecord> atoms = fcc_atoms(c, domain, decomp.comm());
  const std::string path = dir_ + "/traj.h5", xmf = dir_ + "/traj.xmf";
  if (decomp.rank() == 0) {
    std::ofstream(path) << "previous h5\n";
    fs::create_directory(xmf + ".partial");  // the XDMF text cannot be written
  }
  MPI_Barrier(MPI_COMM_WORLD);
  try {
    MdTrajectory trajectory(path, c, decomp.comm());
    trajectory.write_frame(0, 0.0, atoms);
    trajectory.close();
    ADD_FAILURE() << "close() did not fail";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), xmf)) << e.what();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (decomp.rank() != 0) return;
  EXPECT_EQ(read_text(path), "previous h5\n") << "a new trajectory went in without its XDMF file";
  EXPECT_FALSE(fs::exists(xmf));
  for (const std::string& left : {path + ".partial", path + ".previous"}) {
    EXPECT_FALSE(fs::exists(left)) << left;
  }
}

TEST_F(MdIoTest, TrajectoryIntoMissingFolderFailsOnEveryRank) {
  const MdConfig c = lattice_config();
  const std::string path = dir_ + "/no/such/folder/traj.h5";
  try {
    MdTrajectory trajectory(path, c, MPI_COMM_WORLD);
    ADD_FAILURE() << "no Error for " << path;
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), path)) << e.what();
  }
}

TEST(MdOutputNames, XdmfPathAndFrameGroups) {
  EXPECT_EQ(xdmf_path_of("out/run.h5"), "out/run.xmf");
  EXPECT_EQ(xdmf_path_of("run.hdf5"), "run.hdf5.xmf");
  EXPECT_EQ(xdmf_path_of("run"), "run.xmf");
  EXPECT_EQ(trajectory_frame_group(0), "/frames/00000000");
  EXPECT_EQ(trajectory_frame_group(123), "/frames/00000123");
}

// ---------------------------------------------------------------------------
// (c) Dataset input: good and bad files

constexpr double kBox[3] = {10, 8, 12};
constexpr std::uint64_t kAtoms = 5;

std::vector<double> good_positions() {
  return {0.5, 0.5, 0.5, 9.5, 7.5, 11.5, 5, 4, 6, 2.25, 6.5, 0, 0, 0, 11.999};
}
std::vector<double> good_velocities() {
  return {0.1, -0.2, 0.3, 1, 2, 3, -1.5, 0, 0.25, 0, 0, 0, 4, -4, 0.5};
}
std::vector<std::int64_t> good_ids() { return {10, 11, 12, 13, 14}; }

using MdWriter = std::function<void(hid_t md)>;

// An MD input with a 10 x 8 x 12 box and whatever `write` puts into /md.
void write_input(const std::string& path, const MdWriter& write) {
  h5::Handle file = h5::create_file(path);
  h5::write_attribute(file.get(), "solver", std::string("md"));
  {
    h5::Handle run = h5::create_group(file.get(), "run");
    h5::write_attribute(run.get(), "steps", std::int64_t{0});
  }
  h5::Handle md = h5::create_group(file.get(), "md");
  h5::write_attribute(md.get(), "initial", std::string("dataset"));
  h5::write_attribute(md.get(), "box_x", kBox[0]);
  h5::write_attribute(md.get(), "box_y", kBox[1]);
  h5::write_attribute(md.get(), "box_z", kBox[2]);
  write(md.get());
}

MdWriter with(std::vector<double> x, std::vector<std::uint64_t> x_dims, std::vector<double> v,
              std::vector<std::uint64_t> v_dims) {
  return [=](hid_t md) {
    h5::write_array(md, "positions", x_dims, x.data());
    h5::write_array(md, "velocities", v_dims, v.data());
  };
}

MdWriter good_with_ids(std::vector<std::int64_t> ids, std::vector<std::uint64_t> dims) {
  return [=](hid_t md) {
    with(good_positions(), {kAtoms, 3}, good_velocities(), {kAtoms, 3})(md);
    h5::write_array(md, "ids", dims, ids.data());
  };
}

MdWriter bad_row(const char* dataset, size_t row, int dim, double value) {
  return [=](hid_t md) {
    std::vector<double> x = good_positions(), v = good_velocities();
    std::vector<double>& target = std::string(dataset) == "positions" ? x : v;
    target[3 * row + static_cast<size_t>(dim)] = value;
    with(x, {kAtoms, 3}, v, {kAtoms, 3})(md);
  };
}

// Rank 0 writes `path`, then every rank reads it once the file is complete.
void write_on_rank0(const std::string& path, const MdWriter& write) {
  if (world_rank() == 0) write_input(path, write);
  MPI_Barrier(MPI_COMM_WORLD);
}

// dataset_atoms on every rank, over a decomposition of the box.
std::vector<AtomRecord> read_on_every_rank(const std::string& path) {
  const MdConfig c = config_from_file(path, nullptr);
  const CartDecomposition decomp(MPI_COMM_WORLD, link_cells(c), {0, 0, 0}, {true, true, true});
  return dataset_atoms(c, subdomain_of(decomp, c.box));
}

TEST_F(MdIoTest, DatasetWithoutIdsNumbersRowsAndAcceptsIntegerPositions) {
  const std::string path = dir_ + "/ints.h5";
  const std::vector<std::int64_t> x = {0, 0, 0, 9, 7, 11, 5, 4, 6, 2, 3, 1, 1, 1, 1};
  write_on_rank0(path, [&](hid_t md) {
    h5::write_array(md, "positions", {kAtoms, 3}, x.data());
    h5::write_array(md, "velocities", {kAtoms, 3}, good_velocities().data());
  });
  const std::vector<AtomRecord> mine = read_on_every_rank(path);
  EXPECT_EQ(all_ids(mine), iota_ids(kAtoms));
  for (const AtomRecord& a : mine) {
    const size_t row = static_cast<size_t>(a.id);
    for (size_t d = 0; d < 3; ++d) {
      EXPECT_EQ(a.x[d], static_cast<double>(x[3 * row + d])) << "row " << row;
      EXPECT_EQ(a.v[d], good_velocities()[3 * row + d]) << "row " << row;
    }
  }
  EXPECT_EQ(dataset_atom_count(path), static_cast<long>(kAtoms));
}

TEST_F(MdIoTest, DatasetWithIdsKeepsThem) {
  const std::string path = dir_ + "/ids.h5";
  write_on_rank0(path, good_with_ids(good_ids(), {kAtoms}));
  const std::vector<AtomRecord> mine = read_on_every_rank(path);
  EXPECT_EQ(all_ids(mine), good_ids());
  for (const AtomRecord& a : mine) {
    const size_t row = static_cast<size_t>(a.id - 10);
    for (size_t d = 0; d < 3; ++d) {
      EXPECT_EQ(a.x[d], good_positions()[3 * row + d]) << "id " << a.id;
      EXPECT_EQ(a.v[d], good_velocities()[3 * row + d]) << "id " << a.id;
    }
  }
}

struct BadCase {
  std::string name;
  MdWriter write;
  std::vector<std::string> expected;  // parts of the message besides the file name
  bool structural;  // presence, type or shape (dataset_atom_count fails too), not values
};

std::vector<BadCase> bad_cases() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> x = good_positions(), v = good_velocities();
  return {
      {"missing positions",
       [=](hid_t md) {
         h5::write_array(md, "velocities", {kAtoms, 3}, v.data());
       },
       {"dataset /md/positions is missing", "shape [N][3]"},
       true},
      {"missing velocities",
       [=](hid_t md) {
         h5::write_array(md, "positions", {kAtoms, 3}, x.data());
       },
       {"dataset /md/velocities is missing", "shape [N][3]"},
       true},
      {"positions of 2 columns",
       with(std::vector<double>(10, 1.0), {5, 2}, v, {kAtoms, 3}),
       {"dataset /md/positions", "expected shape [N][3], got [5][2]"},
       true},
      {"positions flat",
       with(x, {15}, v, {kAtoms, 3}),
       {"dataset /md/positions", "expected shape [N][3], got [15]"},
       true},
      {"velocities of other N",
       with(x, {kAtoms, 3}, std::vector<double>(12, 0.0), {4, 3}),
       {"dataset /md/velocities", "expected shape [N][3] = [5][3]", "got [4][3]"},
       true},
      {"no atoms",
       with({}, {0, 3}, {}, {0, 3}),
       {"dataset /md/positions", "expected at least one atom", "[0][3]"},
       true},
      {"nan velocity",
       bad_row("velocities", 2, 1, nan),
       {"dataset /md/velocities", "row 2", "expected finite numbers", "nan"},
       false},
      {"infinite position",
       bad_row("positions", 1, 0, -inf),
       {"dataset /md/positions", "row 1", "expected finite numbers", "-inf"},
       false},
      {"position on the upper face",
       bad_row("positions", 3, 1, 8.0),
       {"dataset /md/positions", "row 3", "y = 8 is outside the box [0, 8)", "md.box_y = 8",
        "expected 0 <= y < md.box_y"},
       false},
      {"negative position",
       bad_row("positions", 0, 2, -0.5),
       {"dataset /md/positions", "row 0", "z = -0.5 is outside the box [0, 12)", "md.box_z = 12"},
       false},
      {"duplicate ids",
       good_with_ids({10, 11, 12, 11, 14}, {kAtoms}),
       {"dataset /md/ids", "rows 1 and 3 both have id 11", "expected every id once"},
       false},
      {"negative id",
       good_with_ids({10, -2, 12, 13, 14}, {kAtoms}),
       {"dataset /md/ids", "row 1", "expected an id >= 0, got -2"},
       false},
      {"ids of other N",
       good_with_ids({1, 2, 3, 4}, {4}),
       {"dataset /md/ids", "expected shape [N] = [5]", "got [4]"},
       true},
      {"float ids",
       [=](hid_t md) {
         with(x, {kAtoms, 3}, v, {kAtoms, 3})(md);
         const std::vector<double> ids = {0, 1, 2, 3, 4};
         h5::write_array(md, "ids", {kAtoms}, ids.data());
       },
       {"dataset /md/ids", "expected an integer (int64) dataset", "64-bit float"},
       true},
  };
}

TEST_F(MdIoTest, BadDatasetsNameTheFileTheDatasetAndTheExpectation) {
  const std::vector<BadCase> cases = bad_cases();
  for (size_t i = 0; i < cases.size(); ++i) {
    const BadCase& bad = cases[i];
    SCOPED_TRACE(bad.name);
    const std::string path = dir_ + "/bad_" + std::to_string(i) + ".h5";
    write_on_rank0(path, bad.write);
    const MdConfig c = config_from_file(path, nullptr);
    const CartDecomposition decomp(MPI_COMM_WORLD, link_cells(c), {0, 0, 0}, {true, true, true});
    const Subdomain domain = subdomain_of(decomp, c.box);
    try {
      dataset_atoms(c, domain);
      ADD_FAILURE() << "no InputError";
    } catch (const InputError& e) {
      const std::string message = e.what();
      EXPECT_TRUE(contains(message, path + ": ")) << message;
      for (const std::string& part : bad.expected) {
        EXPECT_TRUE(contains(message, part)) << "missing '" << part << "' in: " << message;
      }
    }
    // The count checks presence, types and shapes only.
    if (bad.structural) {
      EXPECT_THROW(dataset_atom_count(path), InputError);
    } else {
      EXPECT_EQ(dataset_atom_count(path), static_cast<long>(kAtoms));
    }
  }
}

TEST_F(MdIoTest, MissingInputFileIsAnInputError) {
  MdConfig c = lattice_config();
  c.initial = Initial::Dataset;
  c.input_file = dir_ + "/absent.h5";
  const CartDecomposition decomp(MPI_COMM_WORLD, link_cells(c), {0, 0, 0}, {true, true, true});
  try {
    dataset_atoms(c, subdomain_of(decomp, c.box));
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), c.input_file)) << e.what();
  }
  c.input_file.clear();
  EXPECT_THROW(dataset_atoms(c, subdomain_of(decomp, c.box)), InputError);
}

}  // namespace
}  // namespace mpsfw::md
