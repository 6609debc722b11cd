// wave_solver: the wave example behind mpsfw's solver command line
// (wave_solver IN.h5 [--set key=value ...] [--backend host|cuda] [--report run.json]).
#include <mpsfw/core/driver/workload.hpp>
#include <mpsfw/runtime/solver_main.hpp>

#include "wave_model.hpp"

int main(int argc, char** argv) {
  mpsfw::WorkloadRegistry workloads;
  workloads.add(wave::wave_spec());
  return mpsfw::solver_main(argc, argv, workloads, "wave_solver");
}
