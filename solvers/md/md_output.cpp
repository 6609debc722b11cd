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

#include <mpsfw/core/base/atomic_file.hpp>
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>
#include <mpsfw/core/input/checkpoint.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/core/io/xdmf_writer.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>
#include <mpsfw/core/particles/particle_resume.hpp>
#include <mpsfw/core/particles/particle_trajectory.hpp>
#include <mpsfw/core/particles/periodic_edge.hpp>

namespace mpsfw::md {
namespace {

const char* const kAxis[3] = {"x", "y", "z"};

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
                      double time, const ResumeRows& mine, const ResumeLayout& layout,
                      MPI_Comm comm) {
  std::vector<std::string> overrides = {"md.initial=dataset"};
  for (int d = 0; d < 3; ++d) {
    overrides.push_back(std::string("md.box_") + kAxis[d] + "=" + exact_number(c.box[d]));
  }
  write_resumable_checkpoint(path, params, step, time, overrides, "md", c.box, atom_fields(), mine,
                             layout, comm);
}

}  // namespace mpsfw::md
