#include "timers.hpp"

#include "mpi_check.hpp"

namespace mpsfw {

void PhaseTimers::add(const std::string& phase, double seconds) {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == phase) {
      seconds_[i] += seconds;
      return;
    }
  }
  names_.push_back(phase);
  seconds_.push_back(seconds);
}

double PhaseTimers::seconds(const std::string& phase) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == phase) return seconds_[i];
  }
  return 0.0;
}

std::vector<PhaseStats> PhaseTimers::reduce(MPI_Comm comm) const {
  const int n = static_cast<int>(seconds_.size());
  std::vector<double> mins(seconds_.size()), maxs(seconds_.size()), sums(seconds_.size());
  MPSFW_MPI_CHECK(MPI_Allreduce(seconds_.data(), mins.data(), n, MPI_DOUBLE, MPI_MIN, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(seconds_.data(), maxs.data(), n, MPI_DOUBLE, MPI_MAX, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(seconds_.data(), sums.data(), n, MPI_DOUBLE, MPI_SUM, comm));
  int ranks = 1;
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  std::vector<PhaseStats> out;
  for (size_t i = 0; i < names_.size(); ++i) {
    out.push_back({names_[i], mins[i], sums[i] / ranks, maxs[i]});
  }
  return out;
}

}  // namespace mpsfw
