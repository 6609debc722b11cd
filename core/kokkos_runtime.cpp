#include "kokkos_runtime.hpp"

#include <Kokkos_Core.hpp>

#include "error.hpp"

namespace mpsfw {
namespace {
bool g_stopped = false;
}  // namespace

bool kokkos_on_gpu() {
  return !Kokkos::SpaceAccessibility<Kokkos::DefaultExecutionSpace, Kokkos::HostSpace>::accessible;
}

Backend kokkos_memory() { return kokkos_on_gpu() ? Backend::Cuda : Backend::Host; }

void kokkos_start(int gpu, int threads) {
  if (Kokkos::is_initialized()) return;
  if (g_stopped) throw Error("Kokkos was finalised in this process; it cannot start again");
    // InitArguments (Kokkos 3) became InitializationSettings (Kokkos 4).
#if KOKKOS_VERSION >= 40000
  Kokkos::InitializationSettings settings;
  settings.set_num_threads(threads);
  if (gpu >= 0) settings.set_device_id(gpu);
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments arguments;
  arguments.num_threads = threads;
  arguments.device_id = gpu >= 0 ? gpu : -1;
  Kokkos::initialize(arguments);
#endif
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
