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

#include "h5_io.hpp"
#include "h5md_file.hpp"
#include "xdmf_writer.hpp"
#include <mpsfw/core/base/atomic_file.hpp>
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/paths.hpp>
#include <mpsfw/core/parallel/collective.hpp>

#ifndef MPSFW_HDF5_PARALLEL
#error "MPSFW_HDF5_PARALLEL must be defined to 0 or 1 by the build"
#endif

namespace mpsfw {

bool hdf5_is_parallel() { return MPSFW_HDF5_PARALLEL != 0; }

namespace {

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
        xmf(xdmf_path_of(path)),
        decomp(decomposition),
        geometry(grid),
        mode(output_mode),
        rank(decomposition.rank()) {}
  // Local cleanup only (other ranks may not be unwinding): no HDF5 handle is open
  // between calls, so all there is to do is drop an unfinished file (publish()
  // leaves no partial .xmf behind when it fails).
  ~Impl() {
    if (rank == 0 && !placed) std::remove(partial.c_str());
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

  // Rank 0, at commit: the finished file and its XDMF companion go into place
  // together, the data first (a first run killed between the two renames leaves
  // an O.h5 without O.xmf, not an O.xmf naming a file that is not there).
  void publish() {
    XdmfSeries series;
    series.h5_basename = std::filesystem::path(path).filename().string();
    series.cells = decomp.global_cells();
    series.origin = geometry.origin;
    series.spacing = geometry.spacing;
    series.snapshots = snapshots;
    series.fields = fields;
    write_partial_text_file(xmf, xdmf_text(series));
    move_group_into_place({path, xmf});
    placed = true;
  }

  const std::string path;
  const std::string partial;  // the file's name until commit()
  const std::string xmf;      // path with the extension replaced by .xmf
  const CartDecomposition& decomp;
  const GridGeometry geometry;
  const OutputMode mode;
  const int rank;
  std::vector<std::string> fields;
  std::vector<XdmfSnapshot> snapshots;
  bool committed = false;
  bool placed = false;
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
  if (impl_->rank == 0) {
    error = error_of([&] {
      if (is_h5md_path(impl_->path)) {
        throw InputError("run.output_file = " + impl_->path +
                         ": H5MD (.h5md) holds particle trajectories; a grid's snapshots are "
                         "HDF5 with an XDMF file beside them: name it .h5");
      }
      impl_->create_file(solver_name);
    });
  }
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
  const CartDecomposition& d = impl_->decomp;
  const h5::BlockSlab slab = h5::block_slab(d.global_cells(), d.offset(), d.local_cells());
  std::vector<h5::BlockDataset> datasets;
  for (size_t f = 0; f < blocks.size(); ++f) {
    datasets.push_back({snapshot_dataset(step, impl_->fields[f]), blocks[f]});
  }
  const auto stamp = [&](hid_t dataset, size_t) {
    impl_->write_int64(dataset, "step", step);
    impl_->write_float64(dataset, "time", time);
  };
  h5::write_block_datasets(impl_->partial, d.comm(), impl_->mode == OutputMode::Collective, slab,
                           datasets, "HDF5 output '" + impl_->path + "'", stamp);
  impl_->snapshots.push_back({step, time});
}

void FieldOutput::commit() {
  impl_->require_uncommitted("commit");
  impl_->committed = true;
  // Every rank closed the file before its last write() returned.
  std::string error;
  if (impl_->rank == 0) error = error_of([&] { impl_->publish(); });
  agree_on_error(impl_->decomp.comm(), error);
}

OutputMode FieldOutput::mode() const { return impl_->mode; }

const std::string& FieldOutput::path() const { return impl_->path; }

}  // namespace mpsfw
