#pragma once
// Small HDF5 helpers for input files: RAII handles, typed scalar attributes
// of whatever integer/float/string type the writer chose (C, h5py, Fortran),
// reading one block of a 3D dataset or a whole dataset, and writing datasets;
// and the one writer of block-distributed fields (snapshots, checkpoints).
#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <mpsfw/core/mesh/box.hpp>

namespace mpsfw::h5 {

// Owns an HDF5 identifier and closes it with the matching H5?close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(o.id_), closer_(o.closer_) { o.id_ = -1; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      closer_ = o.closer_;
      o.id_ = -1;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void reset() {
    if (id_ >= 0 && closer_ != nullptr) closer_(id_);
    id_ = -1;
  }
  // Closes now and returns the status, for closes whose failure matters (files).
  herr_t close() {
    const herr_t status = id_ >= 0 && closer_ != nullptr ? closer_(id_) : 0;
    id_ = -1;
    return status;
  }

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

// Silences HDF5's own error printing while alive: we report errors ourselves.
class QuietErrors {
 public:
  QuietErrors();
  ~QuietErrors();
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// Once, first thing in a program, before any other HDF5 call: HDF5 prints no
// error stack of its own (mpsfw's one-line messages say what failed and why),
// and runs no cleanup at exit: HDF5 1.10 keeps a file whose close failed (a
// full disk) half closed, and its cleanup at exit then crashes on it. Every
// file mpsfw opens is closed (once) by its Handle, so nothing is lost.
void prepare_library();

// Why the HDF5 call that just failed failed, from HDF5's error stack: the
// system's text when a read or write set errno ("No space left on device",
// "File too large"), else the innermost description; "" if none. When the
// stack names no errno (MPI-IO says only "file write failed") and `path` is
// given, a nearly full file system under `path` or a file-size limit
// (ulimit -f) is added as the likely cause.
std::string error_reason(const std::string& path = "");

// Throws Error "HDF5: <what> failed: <why>" when an HDF5 call failed: a
// negative status, or a negative id (else returns the id).
void check(herr_t status, const std::string& what);
hid_t check_id(hid_t id, const std::string& what);

// A property list of class `cls` (H5P_DATASET_CREATE, H5P_GROUP_CREATE, ...)
// that records no modification times: the same data, the same file bytes.
Handle no_times_plist(hid_t cls);

// A scalar attribute as stored: its class, value and a readable type name.
struct Scalar {
  enum class Kind { Integer, Real, Text, Other } kind = Kind::Other;
  std::int64_t integer = 0;
  double real = 0;
  std::string text;
  std::string type_name;  // "64-bit integer", "string", "3-element array", ...
};

Handle open_file_readonly(const std::string& path);  // throws InputError naming path
// Truncates; throws Error naming `path` and why, also when `path` exists and
// is not a regular file (a device, a FIFO).
Handle create_file(const std::string& path);
Handle open_file_readwrite(const std::string& path);  // an existing file; throws Error
// Closes `file` now (the Handle is then empty, whatever the outcome); a
// failure, such as a full disk met by the final flush, throws Error naming
// `path` and why.
void close_file(Handle& file, const std::string& path);
bool has_group(hid_t loc, const std::string& name);
Handle open_group(hid_t file, const std::string& name);
Handle create_group(hid_t file, const std::string& name);
std::vector<std::string> attribute_names(hid_t object);
std::vector<std::string> member_names(hid_t group);  // groups and datasets
bool has_attribute(hid_t object, const std::string& name);
bool has_dataset(hid_t loc, const std::string& name);
// Throws Error if the attribute cannot be read at all; an array or compound
// comes back as Kind::Other with type_name saying what it is.
Scalar read_scalar(hid_t object, const std::string& name);

void write_attribute(hid_t object, const std::string& name, std::int64_t value);
void write_attribute(hid_t object, const std::string& name, double value);
void write_attribute(hid_t object, const std::string& name, const std::string& value);
// One-dimensional array attributes: int64, and fixed-length ASCII strings.
void write_attribute(hid_t object, const std::string& name,
                     const std::vector<std::int64_t>& values);
void write_attribute(hid_t object, const std::string& name, const std::vector<std::string>& values);

// Dataset shape (slowest dimension first) and float-ness, for validation.
struct DatasetInfo {
  std::vector<std::uint64_t> dims;
  bool is_float = false;
  bool is_integer = false;
  std::string type_name;  // of one element: "64-bit float", "32-bit integer", "string", ...
};
DatasetInfo dataset_info(hid_t group, const std::string& name);
// Reads the block starting at `start` of size `count` (slowest first) as doubles.
void read_block(hid_t group, const std::string& name, std::array<std::uint64_t, 3> start,
                std::array<std::uint64_t, 3> count, double* out);
void write_dataset(hid_t group, const std::string& name, std::array<std::uint64_t, 3> dims,
                   const double* data);

// Whole datasets of any rank (dims slowest first, e.g. {N, 3}; {} is a scalar),
// C order, stored as float64 or int64. `data` holds the product of dims values.
void write_array(hid_t group, const std::string& name, const std::vector<std::uint64_t>& dims,
                 const double* data);
void write_array(hid_t group, const std::string& name, const std::vector<std::uint64_t>& dims,
                 const std::int64_t* data);
// Every element of a numeric dataset, C order, converted by HDF5 (integers to
// doubles; for the int64 read, other integer types). Throws Error on failure.
std::vector<double> read_all_doubles(hid_t group, const std::string& name);
std::vector<std::int64_t> read_all_int64(hid_t group, const std::string& name);

// One rank's block of a global [nz][ny][nx] grid of doubles as a hyperslab:
// the dataset's dims, the block's start and count (slowest first). 64-bit
// throughout: a grid of 1400^3 cells (more than 2^31) counts right.
struct BlockSlab {
  std::array<std::uint64_t, 3> dims{}, start{}, count{};
  std::uint64_t cells() const { return count[0] * count[1] * count[2]; }
  std::uint64_t bytes() const { return cells() * sizeof(double); }
  std::uint64_t dataset_cells() const { return dims[0] * dims[1] * dims[2]; }
};
// The block of `local_cells` at `offset` (x, y, z, as CartDecomposition has
// them) in a grid of `global_cells`; throws Error if it does not lie inside.
BlockSlab block_slab(Int3 global_cells, Int3 offset, Int3 local_cells);

// A dataset of a block-distributed field: its path in the file ("/heat/u0")
// and this rank's cells, x fastest (BlockSlab::cells() values).
struct BlockDataset {
  std::string name;
  const double* block = nullptr;
};

// Collective over `comm`: adds float64 datasets of slab.dims to the existing
// HDF5 file `path` and writes each rank's block into its hyperslab. With
// `collective` (parallel HDF5 only) through MPI-IO, one collective write per
// dataset, after rank 0 reserved the disk space (a full disk met inside
// MPI-IO can stop some ranks only); else rank after rank with the default
// driver (any HDF5). Both write identical files. `decorate(dataset, index)` may add attributes to
// each new dataset (called on every rank when collective, else on rank 0).
// A failure on any rank throws AgreedError on all, "<context>: <what> failed:
// <why>"; every rank has closed the file when this returns.
void write_block_datasets(const std::string& path, MPI_Comm comm, bool collective,
                          const BlockSlab& slab, const std::vector<BlockDataset>& datasets,
                          const std::string& context,
                          const std::function<void(hid_t dataset, size_t index)>& decorate = {});

}  // namespace mpsfw::h5
