#include "nvml_inventory.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include <mpsfw/core/base/error.hpp>

namespace mpsfw::mps {
namespace {

// NVML's C interface, as far as it is used here (nvml.h of the driver's
// API: functions return 0 for success; nvmlPciInfo_t's layout).
using Return = int;
using Device = struct NvmlDevice*;
struct PciInfo {
  char bus_id_legacy[16];
  unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
struct MemoryInfo {  // nvmlMemory_t
  unsigned long long total, free, used;
};
constexpr unsigned kUuidBytes = 96, kNameBytes = 96;

struct Nvml {
  void* library = nullptr;
  Return (*init)() = nullptr;
  Return (*shutdown)() = nullptr;
  const char* (*error_string)(Return) = nullptr;
  Return (*count)(unsigned*) = nullptr;
  Return (*handle)(unsigned, Device*) = nullptr;
  Return (*uuid)(Device, char*, unsigned) = nullptr;
  Return (*name)(Device, char*, unsigned) = nullptr;
  Return (*pci)(Device, PciInfo*) = nullptr;
  Return (*mig_mode)(Device, unsigned*, unsigned*) = nullptr;
  Return (*mig_count)(Device, unsigned*) = nullptr;
  Return (*mig_handle)(Device, unsigned, Device*) = nullptr;
  Return (*memory)(Device, MemoryInfo*) = nullptr;

  // Free bytes of `d`, -1 where NVML does not say (no context is made).
  long long free_bytes(Device d) const {
    MemoryInfo m{};
    return memory != nullptr && memory(d, &m) == 0 ? static_cast<long long>(m.free) : -1;
  }

  ~Nvml() {
    if (shutdown != nullptr) shutdown();
    if (library != nullptr) dlclose(library);
  }
  template <class F>
  bool find(F* f, const char* symbol) {
    *f = reinterpret_cast<F>(dlsym(library, symbol));
    return *f != nullptr;
  }
  void check(Return r, const char* call) const {
    if (r == 0) return;
    throw Error(std::string("NVML: ") + call +
                " failed: " + (error_string != nullptr ? error_string(r) : std::to_string(r)));
  }
};

constexpr Return kNotSupported = 3;  // NVML_ERROR_NOT_SUPPORTED
constexpr Return kNotFound = 6;      // NVML_ERROR_NOT_FOUND

// "0000:3b:00.0", as /proc/driver/nvidia/gpus names it.
std::string bus_id(const PciInfo& p) {
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.0", p.domain, p.bus, p.device);
  return text;
}

// "3g.40gb" from a MIG device's name ("NVIDIA H100 80GB HBM3 MIG 3g.40gb").
std::string mig_profile(const std::string& name) {
  const size_t at = name.rfind("MIG ");
  return at == std::string::npos ? name : name.substr(at + 4);
}

}  // namespace

std::optional<std::vector<GpuInfo>> nvml_gpus(const std::string& library) {
  Nvml nvml;
  nvml.library = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (nvml.library == nullptr) return std::nullopt;
  if (!nvml.find(&nvml.init, "nvmlInit_v2") || !nvml.find(&nvml.count, "nvmlDeviceGetCount_v2") ||
      !nvml.find(&nvml.handle, "nvmlDeviceGetHandleByIndex_v2") ||
      !nvml.find(&nvml.uuid, "nvmlDeviceGetUUID") || !nvml.find(&nvml.name, "nvmlDeviceGetName") ||
      !nvml.find(&nvml.pci, "nvmlDeviceGetPciInfo_v3")) {
    return std::nullopt;
  }
  nvml.find(&nvml.error_string, "nvmlErrorString");
  nvml.find(&nvml.mig_mode, "nvmlDeviceGetMigMode");
  nvml.find(&nvml.mig_count, "nvmlDeviceGetMaxMigDeviceCount");
  nvml.find(&nvml.mig_handle, "nvmlDeviceGetMigDeviceHandleByIndex");
  nvml.find(&nvml.memory, "nvmlDeviceGetMemoryInfo");
  if (nvml.init() != 0) return std::nullopt;  // no driver loaded: no GPU to list
  nvml.find(&nvml.shutdown, "nvmlShutdown");
  unsigned count = 0;
  nvml.check(nvml.count(&count), "nvmlDeviceGetCount_v2");
  std::vector<GpuInfo> gpus;
  for (unsigned i = 0; i < count; ++i) {
    Device d = nullptr;
    nvml.check(nvml.handle(i, &d), "nvmlDeviceGetHandleByIndex_v2");
    char uuid[kUuidBytes] = {};
    nvml.check(nvml.uuid(d, uuid, kUuidBytes), "nvmlDeviceGetUUID");
    PciInfo pci{};
    nvml.check(nvml.pci(d, &pci), "nvmlDeviceGetPciInfo_v3");
    const GpuInfo whole{uuid, bus_id(pci), "", nvml.free_bytes(d)};
    unsigned current = 0, pending = 0;
    const Return mode =
        nvml.mig_mode != nullptr ? nvml.mig_mode(d, &current, &pending) : kNotSupported;
    if (mode != kNotSupported) nvml.check(mode, "nvmlDeviceGetMigMode");
    if (mode != 0 || current == 0 || nvml.mig_count == nullptr || nvml.mig_handle == nullptr) {
      gpus.push_back(whole);
      continue;
    }
    // MIG on: its instances are the GPUs (none yet: the whole GPU is listed,
    // as /proc lists it).
    const size_t before = gpus.size();
    unsigned slots = 0;
    nvml.check(nvml.mig_count(d, &slots), "nvmlDeviceGetMaxMigDeviceCount");
    for (unsigned k = 0; k < slots; ++k) {
      Device m = nullptr;
      const Return r = nvml.mig_handle(d, k, &m);
      if (r == kNotFound) continue;  // an empty slot
      nvml.check(r, "nvmlDeviceGetMigDeviceHandleByIndex");
      char mig_uuid[kUuidBytes] = {}, name[kNameBytes] = {};
      nvml.check(nvml.uuid(m, mig_uuid, kUuidBytes), "nvmlDeviceGetUUID (MIG)");
      nvml.check(nvml.name(m, name, kNameBytes), "nvmlDeviceGetName (MIG)");
      gpus.push_back({mig_uuid, whole.pci_bus, "MIG " + mig_profile(name) + " of " + whole.uuid,
                      nvml.free_bytes(m)});
    }
    if (gpus.size() == before) gpus.push_back(whole);
  }
  std::stable_sort(gpus.begin(), gpus.end(),
                   [](const GpuInfo& a, const GpuInfo& b) { return a.pci_bus < b.pci_bus; });
  return gpus;
}

}  // namespace mpsfw::mps
