#include "field_output.hpp"

#include <hdf5.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <utility>
#include <vector>

#include "atomic_file.hpp"
#include "collective.hpp"
#include "error.hpp"
#include "h5_io.hpp"
#include "mpi_check.hpp"
#include "paths.hpp"
#include "xdmf_writer.hpp"

#ifndef MPSFW_HDF5_PARALLEL
#error "MPSFW_HDF5_PARALLEL must be defined to 0 or 1 by the build"
#endif

namespace mpsfw {

bool hdf5_is_parallel() { return MPSFW_HDF5_PARALLEL != 0; }

namespace {

// Keeps the RankOrdered token apart from any other traffic on the solver's communicator.
constexpr int kTokenTag = 7301;

hsize_t to_hsize(int n) { return static_cast<hsize_t>(n); }

// Runs `step` and returns its error message, or "" if it succeeded.
std::string capture(const std::function<void()>& step) {
  try {
    step();
  } catch (const std::exception& e) {
    const std::string message = e.what();
    return message.empty() ? "unknown error" : message;
  }
  return {};
}

OutputMode resolve_mode(OutputMode mode, const std::string& path) {
  if (mode == OutputMode::Auto) {
    return hdf5_is_parallel() ? OutputMode::Collective : OutputMode::RankOrdered;
  }
  if (mode == OutputMode::Collective && !hdf5_is_parallel()) {
    throw Error("HDF5 output '" + path +
                "': collective output needs a parallel HDF5 library, but mpsfw was built "
                "against a serial one; use the rank-ordered (or automatic) output mode");
  }
  return mode;
}

}  // namespace

struct FieldOutput::Impl {
  Impl(std::string file_path, const CartDecomposition& decomposition, GridGeometry grid,
       OutputMode output_mode)
      : path(std::move(file_path)),
        partial(partial_path(path)),
        decomp(decomposition),
        geometry(grid),
        mode(output_mode),
        rank(decomposition.rank()) {}
  // Local cleanup only (other ranks may not be unwinding): no HDF5 handle is open
  // between calls, so all there is to do is drop an unfinished file.
  ~Impl() {
    if (rank == 0 && !renamed) std::remove(partial.c_str());
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  [[noreturn]] void fail(const std::string& what) const {
    const std::string reason = h5::error_reason(partial);
    throw Error("HDF5 output '" + path + "': " + what + " failed" +
                (reason.empty() ? "" : ": " + reason));
  }
  void check(herr_t status, const std::string& what) const {
    if (status < 0) fail(what);
  }
  h5::Handle own(hid_t id, herr_t (*close)(hid_t), const std::string& what) const {
    if (id < 0) fail(what);
    return h5::Handle(id, close);
  }

  void require_uncommitted(const char* call) const {
    if (committed) throw Error("HDF5 output '" + path + "': " + call + "() after commit()");
  }

  void write_scalar(hid_t object, const char* name, hid_t file_type, hid_t memory_type,
                    const void* value) const {
    const std::string what = std::string("writing attribute '") + name + "'";
    h5::Handle space = own(H5Screate(H5S_SCALAR), H5Sclose, what);
    h5::Handle attribute = own(
        H5Acreate2(object, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, what);
    check(H5Awrite(attribute.get(), memory_type, value), what);
  }
  void write_int64(hid_t object, const char* name, std::int64_t value) const {
    write_scalar(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
  }
  void write_float64(hid_t object, const char* name, double value) const {
    write_scalar(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
  }
  void write_string(hid_t object, const char* name, const std::string& value) const {
    h5::Handle type = own(H5Tcopy(H5T_C_S1), H5Tclose, "creating a string type");
    check(H5Tset_size(type.get(), value.size() + 1), "sizing a string type");
    check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), "setting a string type's padding");
    write_scalar(object, name, type.get(), type.get(), value.c_str());
  }

  // Rank 0, at construction: the file with the root attributes and a group per field.
  void create_file(const std::string& solver) const {
    const h5::QuietErrors quiet;
    check_regular_or_absent(partial, "HDF5 output '" + path + "'");
    h5::Handle fcpl = own(H5Pcreate(H5P_FILE_CREATE), H5Pclose, "creating a property list");
    // No modification times in object headers, so reruns give identical files.
    check(H5Pset_obj_track_times(fcpl.get(), false), "disabling time tracking");
    h5::Handle file = own(H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT),
                          H5Fclose, "creating '" + partial + "'");
    write_string(file.get(), "solver", solver);
    const Int3 n = decomp.global_cells();
    const char* cells[3] = {"nx", "ny", "nz"};
    const char* spacing[3] = {"dx", "dy", "dz"};
    const char* origin[3] = {"ox", "oy", "oz"};
    for (size_t d = 0; d < 3; ++d) {
      write_int64(file.get(), cells[d], n[static_cast<int>(d)]);
      write_float64(file.get(), spacing[d], geometry.spacing[d]);
      write_float64(file.get(), origin[d], geometry.origin[d]);
    }
    for (const std::string& field : fields) {
      h5::Handle gcpl = own(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, "creating a property list");
      check(H5Pset_obj_track_times(gcpl.get(), false), "disabling time tracking");
      const h5::Handle group =
          own(H5Gcreate2(file.get(), field.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), H5Gclose,
              "creating group /" + field);
    }
    check(file.close(), "closing '" + partial + "'");
  }

  // Creates /<field>/<step> with its attributes (collectively in Collective mode).
  h5::Handle create_dataset(hid_t file, const std::string& field, long step, double time) const {
    const std::string name = snapshot_dataset(step, field);
    const std::string what = "creating dataset " + name;
    const Int3 n = decomp.global_cells();
    const hsize_t dims[3] = {to_hsize(n.z), to_hsize(n.y), to_hsize(n.x)};
    h5::Handle space = own(H5Screate_simple(3, dims, nullptr), H5Sclose, what);
    h5::Handle dcpl = own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
    check(H5Pset_obj_track_times(dcpl.get(), false), what);
    // Every element gets written, so filling the storage first would be wasted I/O;
    // early allocation (parallel HDF5's default) makes both modes write identical files.
    check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), what);
    check(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY), what);
    h5::Handle dataset = own(H5Dcreate2(file, name.c_str(), H5T_IEEE_F64LE, space.get(),
                                        H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                             H5Dclose, what);
    write_int64(dataset.get(), "step", step);
    write_float64(dataset.get(), "time", time);
    return dataset;
  }

  // Writes this rank's block into its hyperslab of `dataset`.
  void write_block(hid_t dataset, hid_t dxpl, const double* block) const {
    const std::string what = "writing this rank's block of a snapshot";
    const Int3 n = decomp.local_cells();
    const Int3 o = decomp.offset();
    const hsize_t count[3] = {to_hsize(n.z), to_hsize(n.y), to_hsize(n.x)};
    const hsize_t start[3] = {to_hsize(o.z), to_hsize(o.y), to_hsize(o.x)};
    h5::Handle memory = own(H5Screate_simple(3, count, nullptr), H5Sclose, what);
    h5::Handle file_space = own(H5Dget_space(dataset), H5Sclose, what);
    check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
          what);
    check(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory.get(), file_space.get(), dxpl, block), what);
  }

  void write_collective(long step, double time, const std::vector<const double*>& blocks) const {
#if MPSFW_HDF5_PARALLEL
    const std::string error = capture([&] {
      const h5::QuietErrors quiet;
      h5::Handle fapl = own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "creating a property list");
      check(H5Pset_fapl_mpio(fapl.get(), decomp.comm(), MPI_INFO_NULL), "selecting MPI-IO");
      h5::Handle file = own(H5Fopen(partial.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose,
                            "opening '" + partial + "' with MPI-IO");
      for (size_t f = 0; f < fields.size(); ++f) {
        h5::Handle dataset = create_dataset(file.get(), fields[f], step, time);
        h5::Handle dxpl = own(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "creating a property list");
        check(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "selecting collective I/O");
        write_block(dataset.get(), dxpl.get(), blocks[f]);
      }
      check(file.close(), "closing '" + partial + "'");
    });
    agree_on_error(decomp.comm(), error);
#else
    (void)step, (void)time, (void)blocks;
    throw Error("HDF5 output '" + path + "': collective output needs a parallel HDF5 library");
#endif
  }

  // Ranks take turns in rank order; each opens the file with the default driver,
  // writes its hyperslab and closes it before passing the token on.
  void write_rank_ordered(long step, double time, const std::vector<const double*>& blocks) const {
    const MPI_Comm comm = decomp.comm();
    int token = 0;
    if (rank > 0) {
      MPSFW_MPI_CHECK(MPI_Recv(&token, 1, MPI_INT, rank - 1, kTokenTag, comm, MPI_STATUS_IGNORE));
    }
    const std::string error = capture([&] {
      const h5::QuietErrors quiet;
      h5::Handle file = own(H5Fopen(partial.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose,
                            "opening '" + partial + "'");
      for (size_t f = 0; f < fields.size(); ++f) {
        const std::string name = snapshot_dataset(step, fields[f]);
        h5::Handle dataset = rank == 0 ? create_dataset(file.get(), fields[f], step, time)
                                       : own(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT),
                                             H5Dclose, "opening dataset " + name);
        write_block(dataset.get(), H5P_DEFAULT, blocks[f]);
      }
      check(file.close(), "closing '" + partial + "'");
    });
    if (rank + 1 < decomp.size()) {
      MPSFW_MPI_CHECK(MPI_Send(&token, 1, MPI_INT, rank + 1, kTokenTag, comm));
    }
    // Also tells rank 0 that every rank has closed the file.
    agree_on_error(comm, error);
  }

  // Rank 0, at commit: the finished file goes into place, then its XDMF companion.
  void publish() {
    move_into_place(partial, path);
    renamed = true;
    const std::filesystem::path h5(path);
    XdmfSeries series;
    series.h5_basename = h5.filename().string();
    series.cells = decomp.global_cells();
    series.origin = geometry.origin;
    series.spacing = geometry.spacing;
    series.snapshots = snapshots;
    series.fields = fields;
    write_xdmf(std::filesystem::path(h5).replace_extension(".xmf").string(), series);
  }

  const std::string path;
  const std::string partial;  // the file's name until commit()
  const CartDecomposition& decomp;
  const GridGeometry geometry;
  const OutputMode mode;
  const int rank;
  std::vector<std::string> fields;
  std::vector<XdmfSnapshot> snapshots;
  bool committed = false;
  bool renamed = false;
};

FieldOutput::FieldOutput(std::string path, const CartDecomposition& decomposition,
                         GridGeometry geometry, std::string solver_name, OutputMode mode,
                         std::vector<std::string> fields) {
  const OutputMode resolved = resolve_mode(mode, path);
  if (fields.empty()) throw Error("HDF5 output '" + path + "': no field to write");
  for (const std::string& f : fields) {
    if (f.empty() || f.find('/') != std::string::npos || f.find('.') == 0) {
      throw Error("HDF5 output '" + path + "': '" + f +
                  "' cannot name a field (a group of the file)");
    }
  }
  impl_ = std::make_unique<Impl>(std::move(path), decomposition, geometry, resolved);
  impl_->fields = std::move(fields);
  // Only rank 0 creates the file; broadcasting the outcome makes every rank
  // throw (and none hang) when it cannot be created.
  std::string error;
  if (impl_->rank == 0) error = capture([&] { impl_->create_file(solver_name); });
  agree_on_error(decomposition.comm(), error);
}

FieldOutput::~FieldOutput() = default;

void FieldOutput::write(long step, double time, const double* block) {
  write(step, time, std::vector<const double*>{block});
}

void FieldOutput::write(long step, double time, const std::vector<const double*>& blocks) {
  impl_->require_uncommitted("write");
  if (blocks.size() != impl_->fields.size()) {
    throw Error("HDF5 output '" + impl_->path + "': " + std::to_string(blocks.size()) +
                " blocks for " + std::to_string(impl_->fields.size()) + " fields");
  }
  if (impl_->mode == OutputMode::Collective) {
    impl_->write_collective(step, time, blocks);
  } else {
    impl_->write_rank_ordered(step, time, blocks);
  }
  impl_->snapshots.push_back({step, time});
}

void FieldOutput::commit() {
  impl_->require_uncommitted("commit");
  impl_->committed = true;
  // Every rank closed the file before its last write() returned.
  std::string error;
  if (impl_->rank == 0) error = capture([&] { impl_->publish(); });
  agree_on_error(impl_->decomp.comm(), error);
}

OutputMode FieldOutput::mode() const { return impl_->mode; }

const std::string& FieldOutput::path() const { return impl_->path; }

}  // namespace mpsfw
