#pragma once
// Running the heat solver inside a test: a configuration from overrides of
// heat_template(), and a run on any communicator that returns the gathered field.
#include <mpi.h>

#include <string>
#include <vector>

#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/solvers/heat/heat_config.hpp>
#include <mpsfw/solvers/heat/heat_solver.hpp>

namespace mpsfw::testing_support {

inline heat::HeatConfig heat_config(const std::vector<std::string>& overrides) {
  return heat::heat_config_from(heat::heat_params_from_overrides(overrides));
}

inline int node_rank_and_size(MPI_Comm comm, int* size) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int rank = 0;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_size(node, size);
  MPI_Comm_free(&node);
  return rank;
}

// Collective over `comm`: the final field on rank 0 of comm ([nz][ny][nx]).
inline std::vector<double> run_and_gather(const heat::HeatConfig& config, MPI_Comm comm,
                                          Backend backend) {
  int node_size = 1;
  const int node_rank = node_rank_and_size(comm, &node_size);
  const DeviceBinding device = bind_device(backend, node_rank, node_size, CudaGate::without_mps());
  heat::HeatSolver solver(config, comm, device, mpi_is_cuda_aware());
  mpsfw::run_time_loop(solver, nullptr);
  return solver.gather_global();
}

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

}  // namespace mpsfw::testing_support
