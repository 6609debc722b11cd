#include "collective.hpp"

#include <cstdio>
#include <vector>

#include "mpi_check.hpp"
#include <mpsfw/core/base/error.hpp>

namespace mpsfw {

std::string error_of(const std::function<void()>& step, const std::string& context) {
  try {
    step();
  } catch (const AgreedError& e) {
    return e.what();
  } catch (const std::exception& e) {
    const std::string what = e.what()[0] != '\0' ? e.what() : "unknown error";
    return context.empty() ? what : context + ": " + what;
  }
  return {};
}

std::string first_error(MPI_Comm comm, const std::string& local_error) {
  int rank = 0, size = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &size));
  // `size` stands for "this rank did not fail".
  const int mine = local_error.empty() ? size : rank;
  int first = size;
  MPSFW_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return "";
  int length = static_cast<int>(local_error.size());
  MPSFW_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, first, comm));
  std::string text = local_error;
  text.resize(static_cast<size_t>(length));
  MPSFW_MPI_CHECK(MPI_Bcast(text.data(), length, MPI_CHAR, first, comm));
  return text;
}

void agree_on_error(MPI_Comm comm, const std::string& local_error) {
  const std::string message = first_error(comm, local_error);
  if (!message.empty()) throw AgreedError(message);
}

void run_collectively(MPI_Comm comm, const std::function<void()>& step) {
  std::string local_error;
  try {
    step();
  } catch (const std::exception& e) {
    local_error = e.what();
    if (local_error.empty()) local_error = "unknown error";
  }
  const std::string message = first_error(comm, local_error);
  if (message.empty()) return;
  int rank = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    std::fprintf(stderr, "mpsfw: error: %s\n", message.c_str());
    std::fflush(stderr);
  }
  throw ReportedError();
}

}  // namespace mpsfw
