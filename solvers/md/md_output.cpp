#include "md_output.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>

#include "core/base/atomic_file.hpp"
#include "core/base/error.hpp"
#include "core/base/number_text.hpp"
#include "core/input/checkpoint.hpp"
#include "core/io/h5_io.hpp"
#include "core/io/xdmf_writer.hpp"
#include "core/parallel/collective.hpp"
#include "core/parallel/mpi_check.hpp"
#include "core/particles/particle_trajectory.hpp"
#include "core/particles/periodic_edge.hpp"

namespace mpsfw::md {
namespace {

const char* const kAxis[3] = {"x", "y", "z"};

// What a checkpoint keeps per atom for an exact resume (md_output.hpp).
struct ResumeRecord {
  AtomRecord atom;  // positions as the store holds them
  double built[3];  // at the last neighbour build
  std::int64_t rank, slot;
};

ParticleRecords records_of(const std::vector<AtomRecord>& atoms) {
  ParticleRecords r(atom_layout());
  r.append(atoms.data(), atoms.size());
  return r;
}

// Datasets positions, velocities ([N][3] float64) and ids ([N] int64) in `group`.
void write_atoms(hid_t group, const std::vector<AtomRecord>& atoms) {
  write_particle_datasets(group, records_of(atoms), atom_fields());
}

}  // namespace

MdTrajectory::MdTrajectory(const std::string& path, const MdConfig& config, MPI_Comm comm)
    : trajectory_(path, TrajectoryFormat{"md", "atoms", atom_layout(), atom_fields()}, config.box,
                  comm) {}

MdTrajectory::~MdTrajectory() = default;

void MdTrajectory::write_frame(long step, double time, const std::vector<AtomRecord>& local_atoms) {
  trajectory_.write_frame(step, time, records_of(local_atoms));
}

void MdTrajectory::close() { trajectory_.close(); }

const std::string& MdTrajectory::path() const { return trajectory_.path(); }

long MdTrajectory::frames() const { return trajectory_.frames(); }

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
  ParticleRecords mine_records(
      {sizeof(ResumeRecord),
       static_cast<std::ptrdiff_t>(offsetof(ResumeRecord, atom) + offsetof(AtomRecord, id))});
  mine_records.append(local.data(), local.size());
  const ParticleRecords gathered = gather_records(mine_records, comm);
  const auto* first = static_cast<const ResumeRecord*>(gathered.data());
  const std::vector<ResumeRecord> all(first, first + gathered.size());
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
