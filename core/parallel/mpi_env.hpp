#pragma once
// The MPI environment of one process: initialised in the constructor, finalised
// in the destructor. Gives the world and node-local communicators.
#include <mpi.h>

#include <string>

namespace mpsfw {

class MpiEnv {
 public:
  MpiEnv(int& argc, char**& argv);
  ~MpiEnv();
  MpiEnv(const MpiEnv&) = delete;
  MpiEnv& operator=(const MpiEnv&) = delete;

  MPI_Comm world() const { return MPI_COMM_WORLD; }
  MPI_Comm node() const { return node_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int node_rank() const { return node_rank_; }
  int node_size() const { return node_size_; }
  // Processor (host) name of this rank.
  const std::string& host() const { return host_; }

  // Ends the whole job: prints `message` with this rank's number to stderr and
  // calls MPI_Abort, so no other rank is left waiting in a collective.
  [[noreturn]] static void abort_job(const std::string& message, int code = 1);

 private:
  MPI_Comm node_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, node_rank_ = 0, node_size_ = 1;
  std::string host_;
};

}  // namespace mpsfw
