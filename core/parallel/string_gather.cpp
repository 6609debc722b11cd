#include "string_gather.hpp"

#include <cstdint>

#include "mpi_check.hpp"

namespace mpsfw {

namespace {

// Each rank's length and where its string starts in the joined buffer. MPI
// counts and displacements are int: every rank knows every length, so all
// refuse alike, with an Error, a total beyond that instead of wrapping.
struct Layout {
  std::vector<int> lengths, starts;
  int total = 0;
  explicit Layout(const std::vector<std::int64_t>& all) : lengths(all.size()), starts(all.size()) {
    std::int64_t sum = 0;
    for (std::int64_t n : all) sum += n;
    mpi_count(sum, "gathering every rank's text (bytes)", "shorter texts");
    for (size_t r = 0; r < all.size(); ++r) {
      lengths[r] = static_cast<int>(all[r]);
      starts[r] = total;
      total += lengths[r];
    }
  }
  std::vector<std::string> split(const std::string& joined) const {
    std::vector<std::string> out;
    for (size_t r = 0; r < lengths.size(); ++r)
      out.push_back(joined.substr(static_cast<size_t>(starts[r]), static_cast<size_t>(lengths[r])));
    return out;
  }
};

// Every rank's string length, on every rank.
Layout all_lengths(MPI_Comm comm, const std::string& mine, int ranks) {
  const std::int64_t length = static_cast<std::int64_t>(mine.size());
  std::vector<std::int64_t> lengths(static_cast<size_t>(ranks));
  MPSFW_MPI_CHECK(MPI_Allgather(&length, 1, MPI_INT64_T, lengths.data(), 1, MPI_INT64_T, comm));
  return Layout(lengths);
}

}  // namespace

std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine) {
  int rank = 0, ranks = 1;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  const Layout at = all_lengths(comm, mine, ranks);
  std::string all(rank == 0 ? static_cast<size_t>(at.total) : 0, '\0');
  MPSFW_MPI_CHECK(MPI_Gatherv(mine.data(), at.lengths[static_cast<size_t>(rank)], MPI_CHAR,
                              all.data(), at.lengths.data(), at.starts.data(), MPI_CHAR, 0, comm));
  return rank == 0 ? at.split(all) : std::vector<std::string>{};
}

std::vector<std::string> all_gather_strings(MPI_Comm comm, const std::string& mine) {
  int rank = 0, ranks = 1;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  const Layout at = all_lengths(comm, mine, ranks);
  std::string all(static_cast<size_t>(at.total), '\0');
  MPSFW_MPI_CHECK(MPI_Allgatherv(mine.data(), at.lengths[static_cast<size_t>(rank)], MPI_CHAR,
                                 all.data(), at.lengths.data(), at.starts.data(), MPI_CHAR, comm));
  return at.split(all);
}

}  // namespace mpsfw
