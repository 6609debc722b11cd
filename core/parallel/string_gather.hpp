#pragma once
// Strings of every rank, collected: for reports (to rank 0) and for decisions
// every rank makes alike (to all).
#include <mpi.h>

#include <string>
#include <vector>

namespace mpsfw {

// Both throw Error on every rank alike when the strings add up to more than
// 2^31 - 1 bytes (what one MPI call counts).
// Collective: every rank's `mine`, in rank order, on rank 0; empty elsewhere.
std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine);
// Collective: every rank's `mine`, in rank order, on every rank.
std::vector<std::string> all_gather_strings(MPI_Comm comm, const std::string& mine);

}  // namespace mpsfw
