#pragma once
// A trajectory of particles: every rank's records gathered to rank 0, which
// writes alone (any HDF5, serial or parallel), sorted by id where the records
// have one; complete or absent (written as `<path>.partial`, renamed into
// place when closed, with an XDMF file beside it: out.h5 -> out.xmf) that
// shows every frame as points over time in ParaView/VisIt. An output named
// *.h5md is written as H5MD instead (h5md_trajectory.hpp), with no XDMF file.
//   /               attributes solver (string), box_x, box_y, box_z (float64),
//                   <count> (int64: particles of the first frame), frames (int64)
//   /frames/<k>     frame k = 0, 1, ... as 8 digits, e.g. /frames/00000002;
//                   attributes step (int64), time (float64), <count> (int64)
//     positions     float64 [N][3]
//     <dataset>     one per written field: float64 or int64, [N][components]
//                   ([N] for one component)
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "particle_store.hpp"
#include "written_field.hpp"
#include <mpsfw/core/io/h5_io.hpp>

namespace mpsfw {

struct TrajectoryFormat {
  std::string solver;               // the root attribute `solver`
  std::string count = "particles";  // the name of the particle-count attributes
  RecordLayout layout;              // the records' (position first)
  std::vector<WrittenField> fields;
};

// Group of frame `frame` (0, 1, ...): "/frames/00000002".
std::string trajectory_frame_group(long frame);

// Every rank's records on rank 0, sorted by id where the layout has one (the
// other ranks get none). Collective.
ParticleRecords gather_records(const ParticleRecords& local, MPI_Comm comm);

class ParticleTrajectory {
 public:
  // Collective over `comm`: rank 0 creates `path`.partial with the root
  // attributes. Throws Error naming `path` on every rank if it cannot.
  ParticleTrajectory(const std::string& path, TrajectoryFormat format, const double box[3],
                     MPI_Comm comm);
  // Local: a trajectory never closed (a failed run) leaves no file behind.
  ~ParticleTrajectory();
  ParticleTrajectory(const ParticleTrajectory&) = delete;
  ParticleTrajectory& operator=(const ParticleTrajectory&) = delete;

  // Collective: gathers the records of every rank and appends one frame.
  void write_frame(long step, double time, const ParticleRecords& local);
  // Collective: renames the file into place and writes the XDMF file. Nothing
  // may be written after.
  void close();

  const std::string& path() const;
  long frames() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Datasets positions and each written field of `records` in `group`.
void write_particle_datasets(hid_t group, const ParticleRecords& records,
                             const std::vector<WrittenField>& fields);

}  // namespace mpsfw
