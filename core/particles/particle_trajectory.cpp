#include "particle_trajectory.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <sstream>
#include <utility>

#include "h5md_trajectory.hpp"
#include <mpsfw/core/base/atomic_file.hpp>
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>
#include <mpsfw/core/io/h5md_file.hpp>
#include <mpsfw/core/io/xdmf_writer.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {
namespace {

const char* const kAxis[3] = {"x", "y", "z"};

struct FrameInfo {
  long step = 0;
  double time = 0;
  std::uint64_t particles = 0;  // rank 0 only
};

std::string data_item(const std::string& file, const std::string& group, const std::string& n,
                      const WrittenField* f) {
  const int components = f != nullptr ? f->components : 3;
  const std::string dims = components == 1 ? n : n + " " + std::to_string(components);
  return xdmf_hdf_item(dims, f != nullptr && f->integer ? "Int" : "Float", file,
                       group + "/" + (f != nullptr ? f->dataset : "positions"));
}

// The dataset of vertex numbers 0..n-1 every frame's Polyvertex topology
// reads its first n of: without it, XDMF 3 readers (ParaView's default for
// .xmf) make the points but no cells, and show nothing.
const char* const kVertices = "/vertices";

std::string vertex_item(const std::string& h5_basename, std::uint64_t n, std::uint64_t written) {
  const std::string all = xdmf_hdf_item(std::to_string(written), "Int", h5_basename, kVertices);
  if (n == written) return all;
  return "<DataItem ItemType=\"HyperSlab\" Dimensions=\"" + std::to_string(n) +
         "\" Type=\"HyperSlab\">\n            <DataItem Dimensions=\"3 1\" Format=\"XML\">0 1 " +
         std::to_string(n) + "</DataItem>\n          " + all + "\n          </DataItem>";
}

// The periodic box [0, L) as twelve edges, so that viewers draw its outline.
std::string box_outline(const double box[3]) {
  std::string corners;
  for (int c = 0; c < 8; ++c) {
    for (int d = 0; d < 3; ++d)
      corners += (c || d ? " " : "") + exact_number(c >> d & 1 ? box[d] : 0.0);
  }
  return "        <Grid Name=\"box\" GridType=\"Uniform\">\n"
         "          <Topology TopologyType=\"Polyline\" NumberOfElements=\"12\" "
         "NodesPerElement=\"2\">\n"
         "            <DataItem Dimensions=\"12 2\" NumberType=\"Int\" Format=\"XML\">"
         "0 1 2 3 4 5 6 7 0 2 1 3 4 6 5 7 0 4 1 5 2 6 3 7</DataItem>\n"
         "          </Topology>\n"
         "          <Geometry GeometryType=\"XYZ\">\n"
         "            <DataItem Dimensions=\"8 3\" NumberType=\"Float\" Precision=\"8\" "
         "Format=\"XML\">" +
         corners +
         "</DataItem>\n"
         "          </Geometry>\n"
         "        </Grid>\n";
}

// A temporal collection of frames, each the point cloud (a Polyvertex grid
// with the positions as XYZ geometry and each written field on the points)
// and the box's outline.
std::string render_xdmf(const std::string& h5_basename, const std::string& name,
                        const std::vector<WrittenField>& fields,
                        const std::vector<FrameInfo>& frames, const double box[3],
                        std::uint64_t vertices) {
  std::ostringstream x;
  for (size_t k = 0; k < frames.size(); ++k) {
    const FrameInfo& f = frames[k];
    const std::string group = trajectory_frame_group(static_cast<long>(k));
    const std::string n = std::to_string(f.particles);
    x << xdmf_collection_start("step " + std::to_string(f.step), f.time) << "        <Grid Name=\""
      << xml_escape(name) << "\" GridType=\"Uniform\">\n"
      << "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << n
      << "\" NodesPerElement=\"1\">\n"
      << "        " << vertex_item(h5_basename, f.particles, vertices) << "\n"
      << "        </Topology>\n"
      << "        <Geometry GeometryType=\"XYZ\">\n"
      << "          " << data_item(h5_basename, group, n, nullptr) << "\n"
      << "        </Geometry>\n";
    for (const WrittenField& w : fields) {
      x << xdmf_attribute(w.attribute, w.components == 3 ? "Vector" : "Scalar",
                          data_item(h5_basename, group, n, &w));
    }
    x << "        </Grid>\n" << box_outline(box) << "      </Grid>\n";
  }
  return xdmf_temporal_collection(name, x.str());
}

}  // namespace

std::string trajectory_frame_group(long frame) {
  char name[32];
  std::snprintf(name, sizeof name, "/frames/%08ld", frame);
  return name;
}

ParticleRecords gather_records(const ParticleRecords& local, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &size));
  const RecordLayout layout = local.layout();
  // Counts travel as int: agree first that they fit, so no rank is left waiting.
  const long long mine = static_cast<long long>(local.size());
  long long total = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, comm));
  if (total > INT_MAX) {
    throw Error("particle output: " + std::to_string(total) +
                " particles are more than one gather to rank 0 can take (" +
                std::to_string(INT_MAX) + ")");
  }
  // One element of this type is one whole record, bytes as they are.
  struct RecordType {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    ~RecordType() {
      if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
    }
  } record;
  MPSFW_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(layout.bytes), MPI_BYTE, &record.type));
  MPSFW_MPI_CHECK(MPI_Type_commit(&record.type));
  const int count = static_cast<int>(local.size());
  std::vector<int> counts(rank == 0 ? static_cast<size_t>(size) : 0);
  MPSFW_MPI_CHECK(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  std::vector<int> displacements(counts.size(), 0);
  for (size_t r = 1; r < counts.size(); ++r)
    displacements[r] = displacements[r - 1] + counts[r - 1];
  ParticleRecords all(layout);
  all.resize(rank == 0 ? static_cast<size_t>(total) : 0);
  MPSFW_MPI_CHECK(MPI_Gatherv(local.data(), count, record.type, all.data(), counts.data(),
                              displacements.data(), record.type, 0, comm));
  if (layout.id_offset < 0 || all.size() < 2) return all;
  std::vector<size_t> order(all.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return all.id(a) < all.id(b); });
  ParticleRecords sorted(layout);
  for (size_t i : order) sorted.append(all.record(i));
  return sorted;
}

void write_particle_datasets(hid_t group, const ParticleRecords& records,
                             const std::vector<WrittenField>& fields) {
  const std::uint64_t rows = records.size();
  h5::write_array(group, "positions", {rows, 3}, records.column<double>(0, 3).data());
  for (const WrittenField& f : fields) {
    with_field_column(records, f, [&](const auto& column) {
      h5::write_array(group, f.dataset, field_dims(rows, f.components), column.data());
    });
  }
}

struct ParticleTrajectory::Impl {
  Impl(const std::string& file, TrajectoryFormat f, const double b[3], MPI_Comm communicator)
      : path(file),
        partial(partial_path(file)),
        xdmf(xdmf_path_of(file)),
        h5md(is_h5md_path(file)),
        format(std::move(f)),
        comm(communicator) {
    std::copy(b, b + 3, box);
    MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  }
  // Local cleanup only: no HDF5 handle stays open between calls.
  ~Impl() {
    if (rank == 0 && !renamed) std::remove(partial.c_str());
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  std::string context() const { return format.solver + " trajectory '" + path + "'"; }

  void create() const {
    h5::Handle file = h5::create_file(partial);
    if (h5md) {
      create_h5md_trajectory(file.get());
      h5::close_file(file, partial);
      return;
    }
    h5::write_attribute(file.get(), "solver", format.solver);
    for (int d = 0; d < 3; ++d)
      h5::write_attribute(file.get(), std::string("box_") + kAxis[d], box[d]);
    h5::create_group(file.get(), "frames");
    h5::close_file(file, partial);
  }

  void append(long step, double time, const ParticleRecords& records) const {
    h5::Handle file = h5::open_file_readwrite(partial);
    if (h5md) {
      append_h5md_frame(file.get(), static_cast<long>(frames.size()), step, time, box, records,
                        format.fields);
      h5::close_file(file, partial);
      return;
    }
    const auto n = static_cast<std::int64_t>(records.size());
    if (frames.empty()) h5::write_attribute(file.get(), format.count, n);
    {
      h5::Handle group =
          h5::create_group(file.get(), trajectory_frame_group(static_cast<long>(frames.size())));
      h5::write_attribute(group.get(), "step", static_cast<std::int64_t>(step));
      h5::write_attribute(group.get(), "time", time);
      h5::write_attribute(group.get(), format.count, n);
      write_particle_datasets(group.get(), records, format.fields);
    }
    h5::close_file(file, partial);
  }

  void publish() {
    if (h5md) {
      move_into_place(partial, path);
      renamed = true;
      return;
    }
    {
      h5::Handle file = h5::open_file_readwrite(partial);
      h5::write_attribute(file.get(), "frames", static_cast<std::int64_t>(frames.size()));
      std::vector<std::int64_t> numbers(most_particles());
      std::iota(numbers.begin(), numbers.end(), std::int64_t{0});
      if (!numbers.empty())
        h5::write_array(file.get(), kVertices, {numbers.size()}, numbers.data());
      h5::close_file(file, partial);
    }
    // The trajectory and its XDMF file go into place together, or neither.
    write_partial_text_file(
        xdmf, render_xdmf(std::filesystem::path(path).filename().string(), format.count,
                          format.fields, frames, box, most_particles()));
    move_group_into_place({path, xdmf});
    renamed = true;
  }

  std::uint64_t most_particles() const {
    std::uint64_t n = 0;
    for (const FrameInfo& f : frames) n = std::max(n, f.particles);
    return n;
  }

  const std::string path, partial, xdmf;
  const bool h5md;  // H5MD (h5md_trajectory.hpp), without an XDMF file
  const TrajectoryFormat format;
  double box[3];
  const MPI_Comm comm;
  int rank = 0;
  std::vector<FrameInfo> frames;
  bool closed = false;
  bool renamed = false;
};

ParticleTrajectory::ParticleTrajectory(const std::string& path, TrajectoryFormat format,
                                       const double box[3], MPI_Comm comm)
    : impl_(std::make_unique<Impl>(path, std::move(format), box, comm)) {
  std::string error;
  if (impl_->rank == 0) error = error_of([&] { impl_->create(); }, impl_->context());
  agree_on_error(comm, error);
}

ParticleTrajectory::~ParticleTrajectory() = default;

void ParticleTrajectory::write_frame(long step, double time, const ParticleRecords& local) {
  if (impl_->closed) throw Error(impl_->context() + ": write_frame() after close()");
  const ParticleRecords all = gather_records(local, impl_->comm);
  std::string error;
  if (impl_->rank == 0) error = error_of([&] { impl_->append(step, time, all); }, impl_->context());
  agree_on_error(impl_->comm, error);
  impl_->frames.push_back({step, time, all.size()});
}

void ParticleTrajectory::close() {
  if (impl_->closed) throw Error(impl_->context() + ": close() twice");
  impl_->closed = true;
  std::string error;
  if (impl_->rank == 0) error = error_of([&] { impl_->publish(); }, impl_->context());
  agree_on_error(impl_->comm, error);
}

const std::string& ParticleTrajectory::path() const { return impl_->path; }

long ParticleTrajectory::frames() const { return static_cast<long>(impl_->frames.size()); }

}  // namespace mpsfw
