#include "particle_files.hpp"

#include <utility>

#include "periodic_edge.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {

ParticleFiles::ParticleFiles(std::string group, const double box[3], const Params* params,
                             ResumeLayout layout, MPI_Comm comm)
    : group_(std::move(group)),
      box_{box[0], box[1], box[2]},
      params_(params),
      layout_(std::move(layout)),
      comm_(comm) {}

ParticleFiles::~ParticleFiles() = default;

ParticleRecords ParticleFiles::records(const ListedParticleStore& store) const {
  ParticleRecords r = store.download_records();
  for (std::size_t i = 0; i < r.size(); ++i) {
    for (int d = 0; d < 3; ++d) r.position(i)[d] = wrapped(r.position(i)[d], box_[d]);
  }
  return r;
}

void ParticleFiles::open_output(const std::string& path, const ListedParticleStore& store,
                                long step, double time) {
  trajectory_ = std::make_unique<ParticleTrajectory>(
      path, TrajectoryFormat{group_, "particles", store.record_layout(), store.written_fields()},
      box_, comm_);
  write_output(store, step, time);
}

void ParticleFiles::write_output(const ListedParticleStore& store, long step, double time) {
  trajectory_->write_frame(step, time, records(store));
}

void ParticleFiles::close_output() {
  trajectory_->close();
  trajectory_.reset();
}

void ParticleFiles::write_checkpoint(const std::string& path, const ListedParticleStore& store,
                                     const NeighbourSchedule& lists, long step, double time) const {
  if (params_ == nullptr) throw Error(group_ + ": a checkpoint needs the run's parameters");
  write_resumable_checkpoint(path, *params_, step, time, {}, group_, box_, store.written_fields(),
                             resume_rows_of(store, lists), layout_, comm_);
}

bool ParticleFiles::assign_from_input(const std::string& input, const Subdomain& domain,
                                      ListedParticleStore& store, const ParticleInputFields& fields,
                                      std::optional<ResumeState>* exact) const {
  if (input.empty()) return false;
  int rank = 0, ranks = 1;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm_, &rank));
  MPSFW_MPI_CHECK(MPI_Comm_size(comm_, &ranks));
  *exact = read_resume_state(input, group_, store.record_layout(), fields, ParticleInputRules{},
                             rank, ranks, layout_);
  if (*exact) {
    store.assign_records((*exact)->records);
    return true;
  }
  auto mine = read_owned_particles(input, group_, domain, store.record_layout(), fields,
                                   ParticleInputRules{});
  if (!mine) return false;
  store.assign_records(*mine);
  return true;
}

}  // namespace mpsfw
