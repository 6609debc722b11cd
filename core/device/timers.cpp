#include "timers.hpp"

#include <algorithm>
#include <utility>

#include <mpsfw/core/base/text_fields.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>
#include <mpsfw/core/parallel/string_gather.hpp>

namespace mpsfw {

size_t PhaseTimers::index_of(const std::string& phase) {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == phase) return i;
  }
  names_.push_back(phase);
  seconds_.push_back(0.0);
  return names_.size() - 1;
}

void PhaseTimers::add(const std::string& phase, double seconds) {
  seconds_[index_of(phase)] += seconds;
}

void PhaseTimers::add(const char* phase, std::chrono::steady_clock::time_point start,
                      std::chrono::steady_clock::time_point end) {
  const size_t i = index_of(phase);
  seconds_[i] += std::chrono::duration<double>(end - start).count();
  if (!recording_) return;
  if (spans_.size() >= limit_) {
    ++dropped_;
    return;
  }
  spans_.push_back({static_cast<int>(i), std::chrono::duration<double>(start - origin_).count(),
                    std::chrono::duration<double>(end - origin_).count()});
}

void PhaseTimers::start_timeline(std::chrono::steady_clock::time_point origin, std::size_t limit) {
  recording_ = true;
  origin_ = origin;
  limit_ = limit;
  spans_.clear();
  spans_.reserve(limit < 4096 ? limit : 4096);
  dropped_ = 0;
}

double PhaseTimers::seconds(const std::string& phase) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == phase) return seconds_[i];
  }
  return 0.0;
}

namespace {

// Collective: every rank's phase names, merged in the order they first
// appear (rank 0's first, then each later rank's new ones).
std::vector<std::string> all_phases(MPI_Comm comm, const std::vector<std::string>& mine) {
  std::string text;
  for (const std::string& name : mine) text += name + '\n';
  std::vector<std::string> names;
  for (const std::string& theirs : all_gather_strings(comm, text)) {
    for (const std::string& name : split_fields(theirs, '\n')) {
      if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(name);
    }
  }
  return names;
}

}  // namespace

std::vector<PhaseStats> PhaseTimers::reduce(MPI_Comm comm) const {
  // Ranks may time different phases (one with MPI faces, its neighbour with
  // none): a phase a rank never timed counts as 0 s there.
  const std::vector<std::string> names = all_phases(comm, names_);
  const int n = static_cast<int>(names.size());
  std::vector<double> mine(names.size()), mins(names.size()), maxs(names.size()),
      sums(names.size());
  for (size_t i = 0; i < names.size(); ++i) mine[i] = seconds(names[i]);
  MPSFW_MPI_CHECK(MPI_Allreduce(mine.data(), mins.data(), n, MPI_DOUBLE, MPI_MIN, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(mine.data(), maxs.data(), n, MPI_DOUBLE, MPI_MAX, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(mine.data(), sums.data(), n, MPI_DOUBLE, MPI_SUM, comm));
  int ranks = 1;
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  std::vector<double> every(names.size() * static_cast<size_t>(ranks));
  MPSFW_MPI_CHECK(MPI_Allgather(mine.data(), n, MPI_DOUBLE, every.data(), n, MPI_DOUBLE, comm));
  std::vector<PhaseStats> out;
  for (size_t i = 0; i < names.size(); ++i) {
    std::vector<double> per_rank(static_cast<size_t>(ranks));
    for (size_t r = 0; r < per_rank.size(); ++r) per_rank[r] = every[r * names.size() + i];
    out.push_back({names[i], mins[i], sums[i] / ranks, maxs[i], std::move(per_rank)});
  }
  return out;
}

}  // namespace mpsfw
