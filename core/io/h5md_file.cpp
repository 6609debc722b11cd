#include "h5md_file.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/build_info.hpp>

namespace mpsfw {

namespace {

// The login name of the user running the program: H5MD asks for an author.
std::string author_name() {
  const passwd* entry = getpwuid(getuid());
  if (entry != nullptr && entry->pw_name != nullptr && entry->pw_name[0] != '\0')
    return entry->pw_name;
  const char* user = std::getenv("USER");
  return user != nullptr && user[0] != '\0' ? user : "unknown";
}

hid_t file_type(bool integer) { return integer ? H5T_STD_I64LE : H5T_IEEE_F64LE; }

// An empty dataset of shape [0] + item_dims that grows along its first
// dimension, one frame a chunk.
void create_growing(hid_t group, const std::string& name, std::vector<hsize_t> item_dims,
                    hid_t type) {
  std::vector<hsize_t> dims = {0}, most = {H5S_UNLIMITED}, chunk = {1};
  for (hsize_t d : item_dims) {
    dims.push_back(d);
    most.push_back(d);
    chunk.push_back(d == 0 ? 1 : d);
  }
  h5::Handle space(
      h5::check_id(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), most.data()),
                   "dataspace of " + name),
      H5Sclose);
  h5::Handle dcpl = h5::no_times_plist(H5P_DATASET_CREATE);
  h5::check(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()),
            "chunks of " + name);
  h5::Handle ds(h5::check_id(H5Dcreate2(group, name.c_str(), type, space.get(), H5P_DEFAULT,
                                        dcpl.get(), H5P_DEFAULT),
                             "create dataset " + name),
                H5Dclose);
}

// One more frame at the end of the growing dataset `name`.
void append_frame(hid_t group, const std::string& name, hid_t memory_type, const void* item) {
  h5::Handle ds(h5::check_id(H5Dopen2(group, name.c_str(), H5P_DEFAULT), "open dataset " + name),
                H5Dclose);
  h5::Handle old_space(h5::check_id(H5Dget_space(ds.get()), "dataspace of " + name), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(old_space.get());
  if (rank < 1) throw Error("HDF5: dataset " + name + " is not a time series");
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  H5Sget_simple_extent_dims(old_space.get(), dims.data(), nullptr);
  std::vector<hsize_t> start(dims.size(), 0), count = dims;
  start[0] = dims[0];
  count[0] = 1;
  ++dims[0];
  h5::check(H5Dset_extent(ds.get(), dims.data()), "extend dataset " + name);
  h5::Handle space(h5::check_id(H5Dget_space(ds.get()), "dataspace of " + name), H5Sclose);
  h5::check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                                nullptr),
            "select the new frame of " + name);
  h5::Handle memory(h5::check_id(H5Screate_simple(rank, count.data(), nullptr),
                                 "dataspace of a frame of " + name),
                    H5Sclose);
  h5::check(H5Dwrite(ds.get(), memory_type, memory.get(), space.get(), H5P_DEFAULT, item),
            "write a frame of " + name);
}

void append_step_and_time(hid_t element, long step, double time) {
  const std::int64_t s = step;
  append_frame(element, "step", H5T_NATIVE_INT64, &s);
  append_frame(element, "time", H5T_NATIVE_DOUBLE, &time);
}

}  // namespace

bool is_h5md_path(const std::string& path) {
  const std::string suffix = ".h5md";
  return path.size() > suffix.size() &&
         path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void write_h5md_metadata(hid_t file) {
  h5::Handle h5md = h5::create_group(file, "h5md");
  h5::write_attribute(h5md.get(), "version", std::vector<std::int64_t>{1, 1});
  h5::Handle author = h5::create_group(h5md.get(), "author");
  h5::write_attribute(author.get(), "name", author_name());
  h5::Handle creator = h5::create_group(h5md.get(), "creator");
  h5::write_attribute(creator.get(), "name", std::string("mpsfw"));
  h5::write_attribute(creator.get(), "version", std::string(version()));
}

void create_time_series(hid_t group, const std::string& name,
                        const std::vector<std::uint64_t>& item_dims, bool integer) {
  h5::Handle element = h5::create_group(group, name);
  create_growing(element.get(), "step", {}, H5T_STD_I64LE);
  create_growing(element.get(), "time", {}, H5T_IEEE_F64LE);
  create_growing(element.get(), "value", {item_dims.begin(), item_dims.end()}, file_type(integer));
}

void append_time_series(hid_t group, const std::string& name, long step, double time,
                        const double* item) {
  h5::Handle element = h5::open_group(group, name);
  append_step_and_time(element.get(), step, time);
  append_frame(element.get(), "value", H5T_NATIVE_DOUBLE, item);
}

void append_time_series(hid_t group, const std::string& name, long step, double time,
                        const std::int64_t* item) {
  h5::Handle element = h5::open_group(group, name);
  append_step_and_time(element.get(), step, time);
  append_frame(element.get(), "value", H5T_NATIVE_INT64, item);
}

}  // namespace mpsfw
