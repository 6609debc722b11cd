#include "particle_checkpoint.hpp"

#include <cstdint>
#include <cstring>

#include "core/checkpoint.hpp"
#include "core/error.hpp"
#include "core/h5_io.hpp"
#include "core/mpi_check.hpp"

namespace mpsfw {
namespace {

std::string shape_text(const std::vector<std::uint64_t>& dims) {
  std::string text = "[";
  for (size_t k = 0; k < dims.size(); ++k) text += (k > 0 ? "][" : "") + std::to_string(dims[k]);
  return text + "]";
}

// The rows of dataset `name` in `group`, checked to be [rows][components]
// ([rows] for one component) of numbers.
std::uint64_t checked_rows(const std::string& file, hid_t group, const std::string& path,
                           const std::string& name, int components, std::int64_t rows) {
  const std::string where = file + ": dataset " + path + "/" + name;
  if (!h5::has_dataset(group, name)) {
    throw InputError(where + " is missing: a particle state holds positions and every field");
  }
  const h5::DatasetInfo info = h5::dataset_info(group, name);
  const bool shaped = components == 1 ? info.dims.size() == 1
                                      : info.dims.size() == 2 &&
                                            info.dims[1] == static_cast<std::uint64_t>(components);
  if (!shaped || !(info.is_float || info.is_integer) ||
      (rows >= 0 && info.dims[0] != static_cast<std::uint64_t>(rows))) {
    const std::string n = rows >= 0 ? std::to_string(rows) : "N";
    throw InputError(where + " is " + shape_text(info.dims) + " of " + info.type_name +
                     "; expected numbers [" + n + "]" +
                     (components == 1 ? "" : "[" + std::to_string(components) + "]"));
  }
  return info.dims[0];
}

}  // namespace

void write_particle_checkpoint(const std::string& path, const Params& params, long step,
                               double time, const std::vector<std::string>& overrides,
                               const std::string& group, const ParticleRecords& local,
                               const std::vector<WrittenField>& fields, MPI_Comm comm) {
  int rank = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const ParticleRecords all = gather_records(local, comm);
  write_checkpoint_file(path, params, step, time, overrides, comm, [&](const std::string& partial) {
    if (rank != 0) return;
    h5::Handle file = h5::open_file_readwrite(partial);
    {
      h5::Handle g = h5::has_group(file.get(), group) ? h5::open_group(file.get(), group)
                                                      : h5::create_group(file.get(), group);
      write_particle_datasets(g.get(), all, fields);
    }
    h5::close_file(file, partial);  // a full disk may show only here
  });
}

std::optional<ParticleRecords> read_particles(const std::string& input, const std::string& group,
                                              const Subdomain& domain, RecordLayout layout,
                                              const std::vector<WrittenField>& fields) {
  if (input.empty()) return std::nullopt;
  h5::Handle file = h5::open_file_readonly(input);
  if (!h5::has_group(file.get(), group)) return std::nullopt;
  h5::Handle g = h5::open_group(file.get(), group);
  if (!h5::has_dataset(g.get(), "positions")) return std::nullopt;
  const std::string path = "/" + group;
  const auto n = static_cast<std::int64_t>(checked_rows(input, g.get(), path, "positions", 3, -1));
  const std::vector<double> x = h5::read_all_doubles(g.get(), "positions");
  ParticleRecords all(layout);
  all.resize(static_cast<size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) std::memcpy(all.position(i), &x[3 * i], 3 * sizeof(double));
  for (const WrittenField& f : fields) {
    checked_rows(input, g.get(), path, f.dataset, f.components, n);
    const size_t c = static_cast<size_t>(f.components);
    if (f.integer) {
      const std::vector<std::int64_t> v = h5::read_all_int64(g.get(), f.dataset);
      for (std::int64_t i = 0; i < n; ++i)
        std::memcpy(static_cast<char*>(all.record(i)) + f.offset, &v[c * i], 8 * c);
    } else {
      const std::vector<double> v = h5::read_all_doubles(g.get(), f.dataset);
      for (std::int64_t i = 0; i < n; ++i)
        std::memcpy(static_cast<char*>(all.record(i)) + f.offset, &v[c * i], 8 * c);
    }
  }
  ParticleRecords mine(layout);
  for (std::int64_t i = 0; i < n; ++i) {
    if (domain.contains(all.position(i))) mine.append(all.record(i));
  }
  return mine;
}

}  // namespace mpsfw
