#pragma once
// The Kokkos runtime of the Kokkos backend, started and stopped by
// bind_device and release_device (core/device/device.hpp): after mpsfw's session has
// bound the device (under MPS the rank's GPU is device 0 of the
// CUDA_VISIBLE_DEVICES mpsfw set), with that device, and stopped before the
// device is released and the MPS daemons go. Kokkos allows one initialize and
// one finalize per process: start is idempotent, and nothing starts again
// after stop. Built from kokkos_runtime.cpp with Kokkos, kokkos_off.cpp without.
#include <string>
#include <vector>

#include <mpsfw/core/base/backend.hpp>

namespace mpsfw {

// Where the Kokkos backend's fields live: Cuda when the Kokkos installation's
// default execution space runs on the GPU, else Host.
Backend kokkos_memory();
// True when Kokkos's default execution space is a GPU one (fields in device
// memory, a CUDA device to bind).
bool kokkos_on_gpu();

// Initialises Kokkos once (on CUDA device `gpu` when kokkos_on_gpu(); with
// `threads` host threads otherwise), with the user's `options` for Kokkos
// (--kokkos-NAME[=VALUE], core/device/kokkos_options.hpp: none that choose the device
// or the threads). Throws Error if Kokkos was finalised.
void kokkos_start(int gpu, int threads, const std::vector<std::string>& options = {});
// Kokkos's help for `options` (--kokkos-help, --kokkos-tools-help with the
// tool's options), printed by Kokkos::initialize; Kokkos 4 then ends the
// process, Kokkos 3 goes on and is finalised here. Call before MPI starts.
void kokkos_print_help(const std::vector<std::string>& options);
// Finalises Kokkos if it was started (every Kokkos object must be gone).
void kokkos_stop();

// "Kokkos 4.7.2, execution space Cuda" (version and default execution space).
std::string kokkos_description();

}  // namespace mpsfw
