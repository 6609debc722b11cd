#include "mpi_env.hpp"

#include <cstdio>

#include "mpi_check.hpp"

namespace mpsfw {

MpiEnv::MpiEnv(int& argc, char**& argv) {
  int provided = 0;
  MPSFW_MPI_CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
  // Errors come back as codes (and become exceptions) instead of killing the job
  // without a message.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPSFW_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  MPSFW_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  MPSFW_MPI_CHECK(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_));
  MPSFW_MPI_CHECK(MPI_Comm_rank(node_, &node_rank_));
  MPSFW_MPI_CHECK(MPI_Comm_size(node_, &node_size_));
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPSFW_MPI_CHECK(MPI_Get_processor_name(name, &len));
  host_.assign(name, static_cast<size_t>(len));
}

MpiEnv::~MpiEnv() {
  if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
  MPI_Finalize();
}

void MpiEnv::abort_job(const std::string& message, int code) {
  int rank = -1, initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "mpsfw: error on rank %d: %s\n", rank, message.c_str());
  std::fflush(stderr);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace mpsfw
