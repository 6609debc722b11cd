// solver: the one executable users run, for every solver this build compiled
// in (solvers/*/; the input's root attribute `solver` picks one).
//   mpirun -np N solver input.h5 [--set k=v ...] [--backend ...] [--output F] [--report F]
// Errors in the input stop every rank with one message and exit code 1;
// errors during the run abort the whole job (no rank left hanging).
#include <mpsfw/runtime/solver_main.hpp>
#include <mpsfw/solvers/builtin_workloads.hpp>

int main(int argc, char** argv) {
  return mpsfw::solver_main(argc, argv, mpsfw::builtin_workloads());
}
