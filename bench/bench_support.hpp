#pragma once
// What the CUDA benchmarks share: timing with CUDA events, non-trivial field
// data, and a main() that reports a failure and stops every rank.
#include <functional>

#include <mpsfw/core/device/memory.hpp>

namespace mpsfw::bench {

// Median seconds of `repeats` timed calls of `work` (CUDA events on the
// default stream), after two warm-up calls.
double median_event_seconds(int repeats, const std::function<void()>& work);

// Fills `a` with a repeating ramp: timings on zeros can flatter a kernel.
void fill_test_pattern(Array<double>& a);

// MPI_Init, run(argc, argv), MPI_Finalize; an exception prints
// "<name>: <what>" and aborts every rank with exit code 1.
int mpi_bench_main(const char* name, int argc, char** argv, int (*run)(int, char**));

}  // namespace mpsfw::bench
