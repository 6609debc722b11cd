#include "kokkos_runtime.hpp"

#include <Kokkos_Core.hpp>

#include <mpsfw/core/base/error.hpp>

namespace mpsfw {
namespace {

bool g_stopped = false;

// Kokkos::initialize from a command line: the one form that takes the user's
// options in every Kokkos version (InitArguments became InitializationSettings
// in Kokkos 4, and neither reads options).
void initialize_with(std::vector<std::string> words) {
  words.insert(words.begin(), "mpsfw");
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(words.size());
  Kokkos::initialize(argc, argv.data());
}

}  // namespace

bool kokkos_on_gpu() {
  return !Kokkos::SpaceAccessibility<Kokkos::DefaultExecutionSpace, Kokkos::HostSpace>::accessible;
}

Backend kokkos_memory() { return kokkos_on_gpu() ? Backend::Cuda : Backend::Host; }

void kokkos_start(int gpu, int threads, const std::vector<std::string>& options) {
  if (Kokkos::is_initialized()) return;
  if (g_stopped) throw Error("Kokkos was finalised in this process; it cannot start again");
#if KOKKOS_VERSION >= 30700
  const std::string threads_option = "--kokkos-num-threads=";
#else
  const std::string threads_option = "--kokkos-threads=";
#endif
  // The binding's settings after the user's options, which hold none of them
  // (refuse_binding_option).
  std::vector<std::string> words = options;
  words.push_back(threads_option + std::to_string(threads));
  if (gpu >= 0) words.push_back("--kokkos-device-id=" + std::to_string(gpu));
  initialize_with(words);
}

void kokkos_print_help(const std::vector<std::string>& options) {
  initialize_with(options);
  Kokkos::finalize();
  g_stopped = true;
}

void kokkos_stop() {
  if (!Kokkos::is_initialized()) return;
  Kokkos::finalize();
  g_stopped = true;
}

std::string kokkos_description() {
  const int v = KOKKOS_VERSION;
  return "Kokkos " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100) + ", execution space " + Kokkos::DefaultExecutionSpace::name();
}

}  // namespace mpsfw
