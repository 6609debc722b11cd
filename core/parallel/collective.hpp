#pragma once
// Making all ranks agree on a failure that may happen on only some of them, so
// that no rank goes on into a collective call the others have left.
#include <mpi.h>

#include <functional>
#include <string>

namespace mpsfw {

// Runs `step`, which may fail on this rank only, and returns "" or its error
// message, for first_error / agree_on_error: after "`context`: " when context
// is given, except an AgreedError's, which says where already.
std::string error_of(const std::function<void()>& step, const std::string& context = "");

// Collective: the lowest failing rank's message, or "" when `local_error` is
// empty on every rank.
std::string first_error(MPI_Comm comm, const std::string& local_error);

// Collective: throws AgreedError(first failing rank's message) on every rank if
// any rank passed a non-empty `local_error`.
void agree_on_error(MPI_Comm comm, const std::string& local_error);

// Runs a step that may fail on some ranks (reading input, allocating memory).
// Either every rank goes on, or rank 0 prints the first failing rank's message
// once and every rank throws ReportedError, so the job ends cleanly with a
// non-zero code and no rank hangs.
void run_collectively(MPI_Comm comm, const std::function<void()>& step);

}  // namespace mpsfw
