#include "h5_io.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>
#include <mpsfw/core/base/paths.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

#ifndef MPSFW_HDF5_PARALLEL
#error "MPSFW_HDF5_PARALLEL must be defined to 0 or 1 by the build"
#endif

namespace mpsfw::h5 {
namespace {

[[noreturn]] void fail(const std::string& what) {
  const std::string reason = error_reason();
  throw Error("HDF5: " + what + " failed" + (reason.empty() ? "" : ": " + reason));
}

}  // namespace

void check(herr_t status, const std::string& what) {
  if (status < 0) fail(what);
}

hid_t check_id(hid_t id, const std::string& what) {
  if (id < 0) fail(what);
  return id;
}

namespace {

struct Reason {
  std::string innermost;
  int error_number = 0;  // of the innermost entry that names one
};

// The low-level I/O entries read "... errno = 28, error message = '...' ...".
herr_t keep_reason(unsigned /*n*/, const H5E_error2_t* entry, void* out) {
  Reason& r = *static_cast<Reason*>(out);
  if (entry->desc == nullptr || entry->desc[0] == '\0') return 0;
  const std::string desc = entry->desc;
  r.innermost = desc;
  const size_t at = desc.find("errno = ");
  if (at != std::string::npos) {
    const int number = std::atoi(desc.c_str() + at + 8);
    if (number > 0) r.error_number = number;
  }
  return 0;
}

}  // namespace

Handle no_times_plist(hid_t cls) {
  Handle p(check_id(H5Pcreate(cls), "H5Pcreate"), H5Pclose);
  check(H5Pset_obj_track_times(p.get(), 0), "H5Pset_obj_track_times");
  return p;
}

namespace {

herr_t collect_name(hid_t, const char* name, const H5A_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->emplace_back(name);
  return 0;
}

herr_t collect_link(hid_t, const char* name, const H5L_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->emplace_back(name);
  return 0;
}

std::string describe_type(hid_t type) {
  switch (H5Tget_class(type)) {
    case H5T_INTEGER:
      return std::to_string(8 * H5Tget_size(type)) + "-bit integer";
    case H5T_FLOAT:
      return std::to_string(8 * H5Tget_size(type)) + "-bit float";
    case H5T_STRING:
      return "string";
    case H5T_ENUM:
      return "boolean or enum";
    case H5T_COMPOUND:
      return "compound";
    default:
      return "non-numeric type";
  }
}

std::string describe(hid_t type, hid_t space) {
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n != 1) return std::to_string(n) + "-element array";
  return describe_type(type);
}

}  // namespace

void prepare_library() {
  H5dont_atexit();
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

std::string error_reason(const std::string& path) {
  Reason r;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, keep_reason, &r);
  if (r.error_number != 0) return std::strerror(r.error_number);
  if (path.empty()) return r.innermost;
  std::string hint;
  std::string folder = std::filesystem::path(path).parent_path().string();
  if (folder.empty()) folder = ".";
  struct statvfs fs {};
  if (::statvfs(folder.c_str(), &fs) == 0) {
    const double free_bytes = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
    if (free_bytes < 1024.0 * 1024.0) {
      hint =
          "the file system of '" + folder + "' has " + byte_text(free_bytes) + " free (disk full?)";
    }
  }
  struct rlimit limit {};
  if (hint.empty() && ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    hint =
        "files are limited to " + byte_text(static_cast<double>(limit.rlim_cur)) + " (ulimit -f)";
  }
  if (hint.empty()) return r.innermost;
  return r.innermost.empty() ? hint : r.innermost + "; " + hint;
}

QuietErrors::QuietErrors() {
  H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}
QuietErrors::~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

Handle open_file_readonly(const std::string& path) {
  QuietErrors quiet;
  if (::access(path.c_str(), R_OK) != 0) {
    throw InputError(path + ": cannot open: " + std::strerror(errno));
  }
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id < 0) throw InputError(path + ": cannot open: not an HDF5 file (or a damaged one)");
  return Handle(id, H5Fclose);
}

Handle create_file(const std::string& path) {
  QuietErrors quiet;
  check_regular_or_absent(path, "creating HDF5 file");
  // No modification time in the root group's header either.
  Handle fcpl = no_times_plist(H5P_FILE_CREATE);
  const hid_t id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT);
  if (id < 0) {
    const std::string reason = error_reason(path);
    throw Error(path + ": cannot create HDF5 file" + (reason.empty() ? "" : ": " + reason));
  }
  return Handle(id, H5Fclose);
}

void close_file(Handle& file, const std::string& path) {
  QuietErrors quiet;
  if (file.close() < 0) {
    const std::string reason = error_reason(path);
    throw Error(path + ": closing the HDF5 file failed" + (reason.empty() ? "" : ": " + reason));
  }
}

Handle open_file_readwrite(const std::string& path) {
  QuietErrors quiet;
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (id < 0) {
    const std::string reason = error_reason(path);
    throw Error(path + ": cannot open HDF5 file for writing" +
                (reason.empty() ? "" : ": " + reason));
  }
  return Handle(id, H5Fclose);
}

namespace {
// The kind of object at `name` under `loc`, or H5I_BADID if there is none.
H5I_type_t object_type(hid_t loc, const std::string& name) {
  QuietErrors quiet;
  if (H5Lexists(loc, name.c_str(), H5P_DEFAULT) <= 0) return H5I_BADID;
  const hid_t obj = H5Oopen(loc, name.c_str(), H5P_DEFAULT);
  if (obj < 0) return H5I_BADID;
  const H5I_type_t type = H5Iget_type(obj);
  H5Oclose(obj);
  return type;
}
}  // namespace

bool has_group(hid_t loc, const std::string& name) { return object_type(loc, name) == H5I_GROUP; }

bool has_dataset(hid_t loc, const std::string& name) {
  return object_type(loc, name) == H5I_DATASET;
}

Handle open_group(hid_t file, const std::string& name) {
  return Handle(check_id(H5Gopen2(file, name.c_str(), H5P_DEFAULT), "open group " + name),
                H5Gclose);
}

Handle create_group(hid_t file, const std::string& name) {
  Handle gcpl = no_times_plist(H5P_GROUP_CREATE);
  return Handle(check_id(H5Gcreate2(file, name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT),
                         "create group " + name),
                H5Gclose);
}

std::vector<std::string> attribute_names(hid_t object) {
  std::vector<std::string> names;
  check(H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &names),
        "list attributes");
  return names;
}

std::vector<std::string> member_names(hid_t group) {
  std::vector<std::string> names;
  check(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_link, &names),
        "list group members");
  return names;
}

bool has_attribute(hid_t object, const std::string& name) {
  return H5Aexists(object, name.c_str()) > 0;
}

Scalar read_scalar(hid_t object, const std::string& name) {
  QuietErrors quiet;
  Handle attr(check_id(H5Aopen(object, name.c_str(), H5P_DEFAULT), "open attribute " + name),
              H5Aclose);
  Handle type(check_id(H5Aget_type(attr.get()), "attribute type"), H5Tclose);
  Handle space(check_id(H5Aget_space(attr.get()), "attribute space"), H5Sclose);
  Scalar s;
  s.type_name = describe(type.get(), space.get());
  if (H5Sget_simple_extent_npoints(space.get()) != 1) return s;
  switch (H5Tget_class(type.get())) {
    case H5T_INTEGER: {
      long long v = 0;
      check(H5Aread(attr.get(), H5T_NATIVE_LLONG, &v), "read attribute " + name);
      s.kind = Scalar::Kind::Integer;
      s.integer = v;
      break;
    }
    case H5T_FLOAT: {
      check(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &s.real), "read attribute " + name);
      s.kind = Scalar::Kind::Real;
      break;
    }
    case H5T_STRING: {
      s.kind = Scalar::Kind::Text;
      if (H5Tis_variable_str(type.get()) > 0) {
        // h5py's default for Python str: variable length, UTF-8.
        Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
        check(H5Tset_size(mem.get(), H5T_VARIABLE), "string type");
        check(H5Tset_cset(mem.get(), H5Tget_cset(type.get())), "string type");
        char* text = nullptr;
        check(H5Aread(attr.get(), mem.get(), &text), "read attribute " + name);
        s.text = text ? text : "";
        H5free_memory(text);
      } else {
        const size_t size = H5Tget_size(type.get());
        std::string buf(size, '\0');
        Handle mem(H5Tcopy(type.get()), H5Tclose);
        check(H5Aread(attr.get(), mem.get(), buf.data()), "read attribute " + name);
        s.text = buf.substr(0, buf.find('\0'));
        // Fortran-style space padding.
        while (!s.text.empty() && s.text.back() == ' ') s.text.pop_back();
      }
      break;
    }
    default:
      break;
  }
  return s;
}

namespace {
// An attribute replaced by `data`: a scalar, or with `count`, a 1-D array of that many.
void write_raw(hid_t object, const std::string& name, hid_t file_type, hid_t mem_type,
               const void* data, std::optional<hsize_t> count = std::nullopt) {
  if (H5Aexists(object, name.c_str()) > 0) check(H5Adelete(object, name.c_str()), "delete " + name);
  Handle space(check_id(count ? H5Screate_simple(1, &*count, nullptr) : H5Screate(H5S_SCALAR),
                        "create dataspace of attribute " + name),
               H5Sclose);
  Handle attr(
      check_id(H5Acreate2(object, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
               "create attribute " + name),
      H5Aclose);
  check(H5Awrite(attr.get(), mem_type, data), "write attribute " + name);
}
}  // namespace

void write_attribute(hid_t object, const std::string& name, std::int64_t value) {
  const long long v = value;
  write_raw(object, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &v);
}

void write_attribute(hid_t object, const std::string& name, double value) {
  write_raw(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

void write_attribute(hid_t object, const std::string& name, const std::string& value) {
  // Variable-length UTF-8, the same as h5py writes for a Python str.
  Handle type(check_id(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
  check(H5Tset_size(type.get(), H5T_VARIABLE), "H5Tset_size");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
  const char* text = value.c_str();
  write_raw(object, name, type.get(), type.get(), &text);
}

void write_attribute(hid_t object, const std::string& name,
                     const std::vector<std::int64_t>& values) {
  write_raw(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, values.data(), values.size());
}

void write_attribute(hid_t object, const std::string& name,
                     const std::vector<std::string>& values) {
  size_t width = 1;
  for (const std::string& v : values) width = std::max(width, v.size() + 1);
  std::vector<char> packed(width * values.size(), '\0');
  for (size_t i = 0; i < values.size(); ++i)
    std::copy(values[i].begin(), values[i].end(), packed.begin() + static_cast<long>(i * width));
  Handle type(check_id(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
  check(H5Tset_size(type.get(), width), "H5Tset_size");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), "H5Tset_strpad");
  write_raw(object, name, type.get(), type.get(), packed.data(), values.size());
}

DatasetInfo dataset_info(hid_t group, const std::string& name) {
  Handle ds(check_id(H5Dopen2(group, name.c_str(), H5P_DEFAULT), "open dataset " + name), H5Dclose);
  Handle type(check_id(H5Dget_type(ds.get()), "dataset type"), H5Tclose);
  Handle space(check_id(H5Dget_space(ds.get()), "dataset space"), H5Sclose);
  DatasetInfo info;
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank > 0) {
    std::vector<hsize_t> dims(static_cast<size_t>(rank));
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    info.dims.assign(dims.begin(), dims.end());
  }
  info.is_float = H5Tget_class(type.get()) == H5T_FLOAT;
  info.is_integer = H5Tget_class(type.get()) == H5T_INTEGER;
  info.type_name = describe_type(type.get());
  return info;
}

void read_block(hid_t group, const std::string& name, std::array<std::uint64_t, 3> start,
                std::array<std::uint64_t, 3> count, double* out) {
  Handle ds(check_id(H5Dopen2(group, name.c_str(), H5P_DEFAULT), "open dataset " + name), H5Dclose);
  Handle file_space(check_id(H5Dget_space(ds.get()), "dataset space"), H5Sclose);
  const hsize_t h_start[3] = {start[0], start[1], start[2]};
  const hsize_t h_count[3] = {count[0], count[1], count[2]};
  check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, h_start, nullptr, h_count, nullptr),
        "select block of " + name);
  Handle mem_space(check_id(H5Screate_simple(3, h_count, nullptr), "H5Screate_simple"), H5Sclose);
  check(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, mem_space.get(), file_space.get(), H5P_DEFAULT, out),
        "read dataset " + name);
}

void write_dataset(hid_t group, const std::string& name, std::array<std::uint64_t, 3> dims,
                   const double* data) {
  const hsize_t h_dims[3] = {dims[0], dims[1], dims[2]};
  Handle space(check_id(H5Screate_simple(3, h_dims, nullptr), "H5Screate_simple"), H5Sclose);
  Handle dcpl = no_times_plist(H5P_DATASET_CREATE);
  Handle ds(check_id(H5Dcreate2(group, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                                dcpl.get(), H5P_DEFAULT),
                     "create dataset " + name),
            H5Dclose);
  check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
        "write dataset " + name);
}

namespace {

void write_any(hid_t group, const std::string& name, const std::vector<std::uint64_t>& dims,
               hid_t file_type, hid_t mem_type, const void* data) {
  const std::vector<hsize_t> h_dims(dims.begin(), dims.end());
  hsize_t count = 1;
  for (hsize_t d : h_dims) count *= d;
  Handle space(check_id(dims.empty() ? H5Screate(H5S_SCALAR)
                                     : H5Screate_simple(static_cast<int>(h_dims.size()),
                                                        h_dims.data(), nullptr),
                        "create dataspace of " + name),
               H5Sclose);
  Handle dcpl = no_times_plist(H5P_DATASET_CREATE);
  Handle ds(check_id(H5Dcreate2(group, name.c_str(), file_type, space.get(), H5P_DEFAULT,
                                dcpl.get(), H5P_DEFAULT),
                     "create dataset " + name),
            H5Dclose);
  if (count == 0) return;  // nothing to write (and `data` may be null)
  check(H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "write dataset " + name);
}

template <class T>
std::vector<T> read_any(hid_t group, const std::string& name, hid_t mem_type) {
  Handle ds(check_id(H5Dopen2(group, name.c_str(), H5P_DEFAULT), "open dataset " + name), H5Dclose);
  Handle space(check_id(H5Dget_space(ds.get()), "dataset space"), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  if (n < 0) throw Error("HDF5: size of dataset " + name + " failed");
  std::vector<T> out(static_cast<size_t>(n));
  if (n == 0) return out;
  check(H5Dread(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()),
        "read dataset " + name);
  return out;
}

}  // namespace

void write_array(hid_t group, const std::string& name, const std::vector<std::uint64_t>& dims,
                 const double* data) {
  write_any(group, name, dims, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data);
}

void write_array(hid_t group, const std::string& name, const std::vector<std::uint64_t>& dims,
                 const std::int64_t* data) {
  write_any(group, name, dims, H5T_STD_I64LE, H5T_NATIVE_INT64, data);
}

std::vector<double> read_all_doubles(hid_t group, const std::string& name) {
  return read_any<double>(group, name, H5T_NATIVE_DOUBLE);
}

std::vector<std::int64_t> read_all_int64(hid_t group, const std::string& name) {
  return read_any<std::int64_t>(group, name, H5T_NATIVE_INT64);
}

BlockSlab block_slab(Int3 global_cells, Int3 offset, Int3 local_cells) {
  BlockSlab s;
  for (int d = 0; d < 3; ++d) {
    const std::int64_t n = global_cells[d], at = offset[d], count = local_cells[d];
    if (n < 1 || at < 0 || count < 0 || at + count > n) {
      throw Error("a block of " + std::to_string(count) + " cells at " + std::to_string(at) +
                  " does not lie in " + std::to_string(n) + " cells (dimension " +
                  std::to_string(d) + ")");
    }
    // HDF5 counts the slowest dimension first: [z][y][x].
    const size_t h = static_cast<size_t>(2 - d);
    s.dims[h] = static_cast<std::uint64_t>(n);
    s.start[h] = static_cast<std::uint64_t>(at);
    s.count[h] = static_cast<std::uint64_t>(count);
  }
  return s;
}

namespace {

// Keeps the rank-ordered token apart from any other traffic on the communicator.
constexpr int kTokenTag = 7301;

// Failures of writing one file, named after the caller's context.
struct BlockWriter {
  const std::string& path;
  const std::string& context;
  const BlockSlab& slab;

  [[noreturn]] void fail(const std::string& what) const {
    const std::string reason = error_reason(path);
    throw Error(context + ": " + what + " failed" + (reason.empty() ? "" : ": " + reason));
  }
  void check(herr_t status, const std::string& what) const {
    if (status < 0) fail(what);
  }
  Handle own(hid_t id, Handle::Closer close, const std::string& what) const {
    if (id < 0) fail(what);
    return Handle(id, close);
  }

  Handle create(hid_t file, const std::string& name) const {
    const std::string what = "creating dataset " + name;
    const hsize_t dims[3] = {slab.dims[0], slab.dims[1], slab.dims[2]};
    Handle space = own(H5Screate_simple(3, dims, nullptr), H5Sclose, what);
    Handle dcpl = no_times_plist(H5P_DATASET_CREATE);
    // Every element gets written, so filling the storage first would be wasted
    // I/O; early allocation (parallel HDF5's default) makes both ways of
    // writing give identical files.
    check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), what);
    check(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY), what);
    // A state's group may hold no attribute of the input: made with its dataset.
    Handle lcpl = own(H5Pcreate(H5P_LINK_CREATE), H5Pclose, what);
    check(H5Pset_create_intermediate_group(lcpl.get(), 1), what);
    return own(H5Dcreate2(file, name.c_str(), H5T_IEEE_F64LE, space.get(), lcpl.get(), dcpl.get(),
                          H5P_DEFAULT),
               H5Dclose, what);
  }

  void write(hid_t dataset, hid_t dxpl, const BlockDataset& data) const {
    const std::string what = "writing this rank's block of " + data.name;
    const hsize_t start[3] = {slab.start[0], slab.start[1], slab.start[2]};
    const hsize_t count[3] = {slab.count[0], slab.count[1], slab.count[2]};
    Handle memory = own(H5Screate_simple(3, count, nullptr), H5Sclose, what);
    Handle file_space = own(H5Dget_space(dataset), H5Sclose, what);
    check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
          what);
    check(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory.get(), file_space.get(), dxpl, data.block),
          what);
  }
};

#if MPSFW_HDF5_PARALLEL
// Rank 0, before a collective write of `bytes` into `path`: that much disk
// space at the end of the file, where HDF5 puts new datasets. A full disk, a
// quota or ulimit -f met inside MPI-IO may fail on some ranks only, and
// HDF5's collective close then waits forever for the others; met here, it
// is agreed like any error. Where the file system cannot reserve space the
// write goes on unguarded. HDF5 cuts the file to what it used when closing.
void reserve_space(const BlockWriter& w, std::uint64_t bytes) {
  const int fd = ::open(w.path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) w.fail("opening '" + w.path + "' to reserve space");
  struct stat st {};
  int error = ::fstat(fd, &st) == 0 ? 0 : errno;
  if (error == 0 && ::fallocate(fd, 0, st.st_size, static_cast<off_t>(bytes)) != 0) error = errno;
  ::close(fd);
  if (error == 0 || error == EOPNOTSUPP || error == ENOSYS) return;
  throw Error(w.context + ": reserving " + byte_text(static_cast<double>(bytes)) + " in '" +
              w.path + "' for the datasets failed: " + std::strerror(error));
}
#endif

}  // namespace

void write_block_datasets(const std::string& path, MPI_Comm comm, bool collective,
                          const BlockSlab& slab, const std::vector<BlockDataset>& datasets,
                          const std::string& context,
                          const std::function<void(hid_t dataset, size_t index)>& decorate) {
  const BlockWriter w{path, context, slab};
  int rank = 0, ranks = 1;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  if (collective) {
#if MPSFW_HDF5_PARALLEL
    // The datasets and a little for their headers and attributes.
    const std::uint64_t bytes = datasets.size() * (slab.dataset_cells() * sizeof(double) + 4096);
    agree_on_error(comm, rank == 0 ? error_of([&] { reserve_space(w, bytes); }) : "");
    // MPI-IO gets the ranks without their Cartesian topology: the OMPIO of
    // Open MPI releases still in use groups a Cartesian communicator's writers
    // by their coordinates and now and then leaves a stretch of the dataset
    // unwritten (3 ranks split along z lose cells); a plain communicator of the
    // same ranks in the same order writes it all.
    MPI_Comm plain = MPI_COMM_NULL;
    MPSFW_MPI_CHECK(MPI_Comm_split(comm, 0, rank, &plain));
    const std::string error = error_of([&] {
      const QuietErrors quiet;
      Handle fapl = w.own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "creating a property list");
      w.check(H5Pset_fapl_mpio(fapl.get(), plain, MPI_INFO_NULL), "selecting MPI-IO");
      Handle file = w.own(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose,
                          "opening '" + path + "' with MPI-IO");
      Handle dxpl = w.own(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "creating a property list");
      w.check(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "selecting collective I/O");
      for (size_t i = 0; i < datasets.size(); ++i) {
        Handle dataset = w.create(file.get(), datasets[i].name);
        if (decorate) decorate(dataset.get(), i);
        w.write(dataset.get(), dxpl.get(), datasets[i]);
      }
      w.check(file.close(), "closing '" + path + "'");
    });
    MPSFW_MPI_CHECK(MPI_Comm_free(&plain));
#else
    const std::string error =
        context +
        ": collective output needs a parallel HDF5 library, but mpsfw was built "
        "against a serial one";
#endif
    agree_on_error(comm, error);
    return;
  }
  // Ranks take turns in rank order; each opens the file with the default
  // driver, writes its hyperslabs and closes it before passing the token on.
  int token = 0;
  if (rank > 0) {
    MPSFW_MPI_CHECK(MPI_Recv(&token, 1, MPI_INT, rank - 1, kTokenTag, comm, MPI_STATUS_IGNORE));
  }
  const std::string error = error_of([&] {
    const QuietErrors quiet;
    Handle file =
        w.own(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose, "opening '" + path + "'");
    for (size_t i = 0; i < datasets.size(); ++i) {
      const std::string& name = datasets[i].name;
      Handle dataset;
      if (rank == 0) {
        dataset = w.create(file.get(), name);
        if (decorate) decorate(dataset.get(), i);
      } else {
        dataset = w.own(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT), H5Dclose,
                        "opening dataset " + name);
      }
      w.write(dataset.get(), H5P_DEFAULT, datasets[i]);
    }
    w.check(file.close(), "closing '" + path + "'");
  });
  if (rank + 1 < ranks) {
    MPSFW_MPI_CHECK(MPI_Send(&token, 1, MPI_INT, rank + 1, kTokenTag, comm));
  }
  // Also tells rank 0 that every rank has closed the file.
  agree_on_error(comm, error);
}

}  // namespace mpsfw::h5
