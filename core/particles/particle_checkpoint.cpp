#include "particle_checkpoint.hpp"

#include <cstdint>
#include <cstring>

#include "core/base/error.hpp"
#include "core/input/checkpoint.hpp"
#include "core/io/h5_io.hpp"
#include "core/parallel/mpi_check.hpp"
#include "particle_input.hpp"

namespace mpsfw {

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
  return read_owned_particles(input, group, domain, layout, {fields, {}}, ParticleInputRules{});
}

}  // namespace mpsfw
