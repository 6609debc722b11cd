#include "string_gather.hpp"

#include "mpi_check.hpp"

namespace mpsfw {

namespace {

// Each rank's length and where its string starts in the joined buffer.
struct Layout {
  std::vector<int> lengths, starts;
  int total = 0;
  Layout(const std::vector<int>& all) : lengths(all), starts(all.size()) {
    for (size_t r = 0; r < all.size(); ++r) {
      starts[r] = total;
      total += all[r];
    }
  }
  std::vector<std::string> split(const std::string& joined) const {
    std::vector<std::string> out;
    for (size_t r = 0; r < lengths.size(); ++r)
      out.push_back(joined.substr(static_cast<size_t>(starts[r]), static_cast<size_t>(lengths[r])));
    return out;
  }
};

}  // namespace

std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine) {
  int rank = 0, ranks = 1;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<size_t>(ranks));
  MPSFW_MPI_CHECK(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm));
  const Layout at(lengths);
  std::string all(rank == 0 ? static_cast<size_t>(at.total) : 0, '\0');
  MPSFW_MPI_CHECK(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), at.lengths.data(),
                              at.starts.data(), MPI_CHAR, 0, comm));
  return rank == 0 ? at.split(all) : std::vector<std::string>{};
}

std::vector<std::string> all_gather_strings(MPI_Comm comm, const std::string& mine) {
  int ranks = 1;
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<size_t>(ranks));
  MPSFW_MPI_CHECK(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm));
  const Layout at(lengths);
  std::string all(static_cast<size_t>(at.total), '\0');
  MPSFW_MPI_CHECK(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), at.lengths.data(),
                                 at.starts.data(), MPI_CHAR, comm));
  return at.split(all);
}

}  // namespace mpsfw
