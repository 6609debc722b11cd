#pragma once
// Options for Kokkos on mpsfw's command line: every argument that starts with
// --kokkos- (Kokkos's own spelling, --kokkos-NAME or --kokkos-NAME=VALUE) is
// kept and handed to Kokkos::initialize on backend kokkos (kokkos_start),
// as every Kokkos application does. The options that choose Kokkos's device
// or host threads are refused: mpsfw's binding (core/device/device.hpp) chooses both,
// and MPS, the halos and the report rely on its choice. Needs neither MPI nor
// Kokkos, so it can be tested alone.
#include <string>
#include <vector>

#include <mpsfw/core/base/backend.hpp>

namespace mpsfw {

// True for an argument Kokkos reads: "--kokkos-" and a name.
bool is_kokkos_option(const std::string& arg);

// Throws InputError naming `arg` when it chooses the device or the host
// threads (--kokkos-device-id, --kokkos-num-threads, their older spellings
// and --kokkos-map-device-id-by): mpsfw sets them from its binding.
void refuse_binding_option(const std::string& arg);

// True for --kokkos-help and --kokkos-tools-help: Kokkos prints them from
// Kokkos::initialize and then ends the process.
bool is_kokkos_help(const std::string& arg);

// Throws InputError "--kokkos-x given, but mpsfw was built without Kokkos"
// when `options` is not empty in a build without Kokkos.
void check_kokkos_built(const std::vector<std::string>& options);

// Throws InputError when `options` would go unused: check_kokkos_built, or
// the run's backend `requested` (from `origin`, e.g. "--backend host"; may be
// "") is not kokkos. Options that ask for help are refused here too: they end
// the process, so they are given before a run (kokkos_print_help).
void check_kokkos_options(const std::vector<std::string>& options, Backend requested,
                          const std::string& origin);

}  // namespace mpsfw
