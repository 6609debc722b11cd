#include "md_output.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/checkpoint.hpp"
#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/h5_io.hpp"
#include "core/mpi_check.hpp"
#include "core/number_text.hpp"
#include "core/xdmf_writer.hpp"

namespace mpsfw::md {
namespace {

const char* const kAxis[3] = {"x", "y", "z"};

std::int64_t id_of(const AtomRecord& a) { return a.id; }

// What a checkpoint keeps per atom for an exact resume (md_output.hpp).
struct ResumeRecord {
  AtomRecord atom;  // positions as the store holds them
  double built[3];  // at the last neighbour build
  std::int64_t rank, slot;
};
std::int64_t id_of(const ResumeRecord& r) { return r.atom.id; }

// Every rank's records on rank 0, sorted by id (empty on the other ranks).
template <class Record>
std::vector<Record> gather_sorted(const std::vector<Record>& local, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &size));
  // Counts travel as int: agree first that they fit, so no rank is left waiting.
  const long long mine = static_cast<long long>(local.size());
  long long total = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, comm));
  if (total > INT_MAX) {
    throw Error("MD output: " + std::to_string(total) +
                " atoms are more than one gather to rank 0 can take (" + std::to_string(INT_MAX) +
                ")");
  }
  // One element of this type is one whole record, bytes as they are.
  struct RecordType {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    ~RecordType() {
      if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
    }
  } record;
  MPSFW_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(sizeof(Record)), MPI_BYTE, &record.type));
  MPSFW_MPI_CHECK(MPI_Type_commit(&record.type));

  const int count = static_cast<int>(local.size());
  std::vector<int> counts(rank == 0 ? static_cast<size_t>(size) : 0);
  MPSFW_MPI_CHECK(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  std::vector<int> displacements(counts.size(), 0);
  for (size_t r = 1; r < counts.size(); ++r)
    displacements[r] = displacements[r - 1] + counts[r - 1];
  std::vector<Record> all(rank == 0 ? static_cast<size_t>(total) : 0);
  MPSFW_MPI_CHECK(MPI_Gatherv(local.data(), count, record.type, all.data(), counts.data(),
                              displacements.data(), record.type, 0, comm));
  std::sort(all.begin(), all.end(),
            [](const Record& a, const Record& b) { return id_of(a) < id_of(b); });
  return all;
}

// Datasets positions, velocities ([N][3] float64) and ids ([N] int64) in `group`.
void write_atoms(hid_t group, const std::vector<AtomRecord>& atoms) {
  const size_t n = atoms.size();
  std::vector<double> x(3 * n), v(3 * n);
  std::vector<std::int64_t> ids(n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t d = 0; d < 3; ++d) {
      x[3 * i + d] = atoms[i].x[d];
      v[3 * i + d] = atoms[i].v[d];
    }
    ids[i] = atoms[i].id;
  }
  const std::uint64_t rows = n;
  h5::write_array(group, "positions", {rows, 3}, x.data());
  h5::write_array(group, "velocities", {rows, 3}, v.data());
  h5::write_array(group, "ids", {rows}, ids.data());
}

void write_box(hid_t object, const MdConfig& c) {
  for (int d = 0; d < 3; ++d) h5::write_attribute(object, std::string("box_") + kAxis[d], c.box[d]);
}

struct FrameInfo {
  long step = 0;
  double time = 0;
  std::uint64_t atoms = 0;  // rank 0 only
};

// A temporal collection of point clouds: one Polyvertex grid per frame with
// the positions as XYZ geometry and velocity (vector) and id (scalar) on the points.
std::string render_xdmf(const std::string& h5_basename, const std::vector<FrameInfo>& frames) {
  const std::string file = xml_escape(h5_basename);
  std::ostringstream x;
  x << "<?xml version=\"1.0\" ?>\n"
    << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    << "<Xdmf Version=\"3.0\">\n"
    << "  <Domain>\n"
    << "    <Grid Name=\"atoms\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (size_t k = 0; k < frames.size(); ++k) {
    const FrameInfo& f = frames[k];
    const std::string group = trajectory_frame_group(static_cast<long>(k));
    const std::string n = std::to_string(f.atoms);
    x << "      <Grid Name=\"step " << f.step << "\" GridType=\"Uniform\">\n"
      << "        <Time Value=\"" << exact_number(f.time) << "\"/>\n"
      << "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << n
      << "\" NodesPerElement=\"1\"/>\n"
      << "        <Geometry GeometryType=\"XYZ\">\n"
      << "          <DataItem Dimensions=\"" << n
      << " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << file << ":" << group
      << "/positions</DataItem>\n"
      << "        </Geometry>\n"
      << "        <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n"
      << "          <DataItem Dimensions=\"" << n
      << " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << file << ":" << group
      << "/velocities</DataItem>\n"
      << "        </Attribute>\n"
      << "        <Attribute Name=\"id\" AttributeType=\"Scalar\" Center=\"Node\">\n"
      << "          <DataItem Dimensions=\"" << n
      << "\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">" << file << ":" << group
      << "/ids</DataItem>\n"
      << "        </Attribute>\n"
      << "      </Grid>\n";
  }
  x << "    </Grid>\n"
    << "  </Domain>\n"
    << "</Xdmf>\n";
  return x.str();
}

}  // namespace

std::string trajectory_frame_group(long frame) {
  char name[32];
  std::snprintf(name, sizeof name, "/frames/%08ld", frame);
  return name;
}

struct MdTrajectory::Impl {
  Impl(const std::string& file, const MdConfig& c, MPI_Comm communicator)
      : path(file),
        partial(partial_path(file)),
        xdmf(xdmf_path_of(file)),
        config(c),
        comm(communicator) {
    MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  }
  // Local cleanup only: no HDF5 handle stays open between calls.
  ~Impl() {
    if (rank == 0 && !renamed) std::remove(partial.c_str());
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  std::string context() const { return "MD trajectory '" + path + "'"; }

  void create() const {
    h5::Handle file = h5::create_file(partial);
    h5::write_attribute(file.get(), "solver", std::string("md"));
    write_box(file.get(), config);
    h5::create_group(file.get(), "frames");
    h5::close_file(file, partial);
  }

  void append(long step, double time, const std::vector<AtomRecord>& atoms) const {
    h5::Handle file = h5::open_file_readwrite(partial);
    const auto n = static_cast<std::int64_t>(atoms.size());
    if (frames.empty()) h5::write_attribute(file.get(), "atoms", n);
    {
      h5::Handle group =
          h5::create_group(file.get(), trajectory_frame_group(static_cast<long>(frames.size())));
      h5::write_attribute(group.get(), "step", static_cast<std::int64_t>(step));
      h5::write_attribute(group.get(), "time", time);
      h5::write_attribute(group.get(), "atoms", n);
      write_atoms(group.get(), atoms);
    }
    h5::close_file(file, partial);
  }

  void publish() {
    {
      h5::Handle file = h5::open_file_readwrite(partial);
      h5::write_attribute(file.get(), "frames", static_cast<std::int64_t>(frames.size()));
      h5::close_file(file, partial);
    }
    // The trajectory and its XDMF file go into place together, or neither.
    write_partial_text_file(xdmf,
                            render_xdmf(std::filesystem::path(path).filename().string(), frames));
    move_group_into_place({path, xdmf});
    renamed = true;
  }

  const std::string path, partial, xdmf;
  const MdConfig config;
  const MPI_Comm comm;
  int rank = 0;
  std::vector<FrameInfo> frames;
  bool closed = false;
  bool renamed = false;
};

MdTrajectory::MdTrajectory(const std::string& path, const MdConfig& config, MPI_Comm comm)
    : impl_(std::make_unique<Impl>(path, config, comm)) {
  std::string error;
  if (impl_->rank == 0) error = error_of([&] { impl_->create(); }, impl_->context());
  agree_on_error(comm, error);
}

MdTrajectory::~MdTrajectory() = default;

void MdTrajectory::write_frame(long step, double time, const std::vector<AtomRecord>& local_atoms) {
  if (impl_->closed) throw Error(impl_->context() + ": write_frame() after close()");
  const std::vector<AtomRecord> atoms = gather_sorted(local_atoms, impl_->comm);
  std::string error;
  if (impl_->rank == 0)
    error = error_of([&] { impl_->append(step, time, atoms); }, impl_->context());
  agree_on_error(impl_->comm, error);
  impl_->frames.push_back({step, time, atoms.size()});
}

void MdTrajectory::close() {
  if (impl_->closed) throw Error(impl_->context() + ": close() twice");
  impl_->closed = true;
  std::string error;
  if (impl_->rank == 0) error = error_of([&] { impl_->publish(); }, impl_->context());
  agree_on_error(impl_->comm, error);
}

const std::string& MdTrajectory::path() const { return impl_->path; }

long MdTrajectory::frames() const { return static_cast<long>(impl_->frames.size()); }

void write_checkpoint(const std::string& path, const Params& params, const MdConfig& c, long step,
                      double time, const MdRankState& mine, const MdRankLayout& layout,
                      MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  if (mine.build_positions.size() != 3 * mine.atoms.size())
    throw Error("MD checkpoint: build positions of another atom count than the atoms");
  std::vector<ResumeRecord> local(mine.atoms.size());
  for (size_t i = 0; i < local.size(); ++i) {
    local[i].atom = mine.atoms[i];
    for (size_t d = 0; d < 3; ++d) local[i].built[d] = mine.build_positions[3 * i + d];
    local[i].rank = rank;
    local[i].slot = static_cast<std::int64_t>(i);
  }
  const std::vector<ResumeRecord> all = gather_sorted(local, comm);
  std::vector<double> moved(rank == 0 ? static_cast<size_t>(ranks) : 0);
  MPSFW_MPI_CHECK(MPI_Gather(&mine.moved, 1, MPI_DOUBLE, moved.data(), 1, MPI_DOUBLE, 0, comm));

  std::vector<std::string> overrides = {"md.initial=dataset"};
  for (int d = 0; d < 3; ++d) {
    overrides.push_back(std::string("md.box_") + kAxis[d] + "=" + exact_number(c.box[d]));
  }
  // Rank 0 gathered the atoms (sorted by id) and writes them alone.
  write_checkpoint_file(path, params, step, time, overrides, comm, [&](const std::string& partial) {
    if (rank != 0) return;
    h5::Handle file = h5::open_file_readwrite(partial);
    const size_t n = all.size();
    std::vector<AtomRecord> folded(n);
    std::vector<double> held(3 * n), built(3 * n);
    std::vector<std::int64_t> owner(n), slot(n);
    for (size_t i = 0; i < n; ++i) {
      folded[i] = all[i].atom;
      for (size_t d = 0; d < 3; ++d) {
        folded[i].x[d] = wrapped(all[i].atom.x[d], c.box[d]);
        held[3 * i + d] = all[i].atom.x[d];
        built[3 * i + d] = all[i].built[d];
      }
      owner[i] = all[i].rank;
      slot[i] = all[i].slot;
    }
    h5::Handle md = h5::open_group(file.get(), "md");
    write_atoms(md.get(), folded);
    h5::Handle resume = h5::create_group(md.get(), "resume");
    h5::write_attribute(resume.get(), "ranks", static_cast<std::int64_t>(ranks));
    for (int d = 0; d < 3; ++d) {
      h5::write_attribute(resume.get(), std::string("p") + kAxis[d],
                          static_cast<std::int64_t>(layout.rank_grid[d]));
    }
    h5::write_attribute(resume.get(), "backend", layout.backend);
    h5::write_attribute(resume.get(), "steps_on_lists",
                        static_cast<std::int64_t>(mine.steps_on_lists));
    const std::uint64_t rows = n;
    h5::write_array(resume.get(), "rank", {rows}, owner.data());
    h5::write_array(resume.get(), "slot", {rows}, slot.data());
    h5::write_array(resume.get(), "positions", {rows, 3}, held.data());
    h5::write_array(resume.get(), "build_positions", {rows, 3}, built.data());
    h5::write_array(resume.get(), "moved", {static_cast<std::uint64_t>(ranks)}, moved.data());
    resume.reset();
    md.reset();
    h5::close_file(file, partial);  // a full disk may show only here
  });
}

}  // namespace mpsfw::md
