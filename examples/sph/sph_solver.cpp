// sph_solver: the SPH example behind mpsfw's solver command line
// (sph_solver IN.h5 [--set key=value ...] [--backend host|cuda] [--report run.json]).
#include "sph_workload.hpp"
#include <mpsfw/core/driver/workload.hpp>
#include <mpsfw/runtime/solver_main.hpp>

int main(int argc, char** argv) {
  mpsfw::WorkloadRegistry workloads;
  workloads.add(sph::sph_spec());
  return mpsfw::solver_main(argc, argv, workloads, "sph_solver");
}
