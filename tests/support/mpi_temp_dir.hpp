#pragma once
// A fresh directory under /tmp shared by every rank of MPI_COMM_WORLD: rank 0
// creates it and broadcasts its name ("" if mkdtemp failed); removal waits
// until every rank is done with it.
#include <mpi.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace mpsfw::testing_support {

inline std::string make_shared_temp_dir(const std::string& prefix) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string dir;
  if (rank == 0) {
    std::string name = "/tmp/" + prefix + "_XXXXXX";
    if (mkdtemp(name.data())) dir = name;
  }
  int length = static_cast<int>(dir.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  dir.resize(static_cast<size_t>(length));
  MPI_Bcast(dir.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  return dir;
}

inline void remove_shared_temp_dir(const std::string& dir) {
  MPI_Barrier(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 && !dir.empty()) std::filesystem::remove_all(dir);
}

}  // namespace mpsfw::testing_support
