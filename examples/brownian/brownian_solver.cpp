// brownian_solver: the Brownian example behind mpsfw's solver command line
// (brownian_solver IN.h5 [--set key=value ...] [--backend host|cuda] [--report run.json]).
#include "brownian_workload.hpp"
#include <mpsfw/core/driver/workload.hpp>
#include <mpsfw/runtime/solver_main.hpp>

int main(int argc, char** argv) {
  mpsfw::WorkloadRegistry workloads;
  workloads.add(brownian::brownian_spec());
  return mpsfw::solver_main(argc, argv, workloads, "brownian_solver");
}
