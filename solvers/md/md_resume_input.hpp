#pragma once
// A checkpoint's /md/resume (md_output.hpp): how the interrupted run's ranks
// held their atoms. A run on the same ranks, rank grid and backend takes its
// atoms back in the same order with their positions at the last list build,
// rebuilds the very same lists and ghosts, then moves the atoms to where the
// run stopped: it goes on bit for bit. Any other run starts from /md/positions.
#include <optional>
#include <string>
#include <vector>

#include "atom_record.hpp"
#include "core/mesh/box.hpp"
#include "md_config.hpp"

namespace mpsfw::md {

struct MdResumeState {
  std::vector<AtomRecord> atoms;  // this rank's, in its store's order, at the last list build
  std::vector<double> positions;  // [3 * i + d]: where they were when the run stopped
  double moved = 0;               // the rank's max_displacement() then
  long steps_on_lists = 0;
};

// This rank's state when c.input_file has a /md/resume written by `ranks`
// ranks as `rank_grid` on `backend` ("host", "cuda"); nullopt when it has
// none or another layout. Every rank reads the whole file. Throws InputError
// naming the file and dataset when /md/resume does not fit /md/ids.
std::optional<MdResumeState> resume_state(const MdConfig& c, int rank, int ranks, Int3 rank_grid,
                                          const std::string& backend);

}  // namespace mpsfw::md
