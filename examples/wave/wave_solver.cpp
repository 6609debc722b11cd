// wave_solver: the wave example behind mpsfw's solver command line
// (wave_solver IN.h5 [--set key=value ...] [--backend host|cuda|kokkos] [--report run.json]).
#include <mpsfw/runtime/solver_main.hpp>

#include "wave_model.hpp"

int main(int argc, char** argv) {
  return mpsfw::solver_main(argc, argv, wave::wave_spec(), "wave_solver");
}
