#pragma once
// The GPUs this process may use, found WITHOUT initialising CUDA (a process
// that initialises CUDA before the MPS daemon is up runs without MPS):
// /proc/driver/nvidia/gpus (UUIDs, in PCI order, which is CUDA's order for
// identical GPUs), filtered by CUDA_VISIBLE_DEVICES; nvidia-smi as fallback.
#include <string>
#include <vector>

#include "launcher.hpp"

namespace mpsfw::mps {

struct GpuInfo {
  std::string uuid;     // "GPU-8f6e..."
  std::string pci_bus;  // "0000:3b:00.0"
};

// MPSFW_NVIDIA_PROC_ROOT replaces /proc/driver/nvidia/gpus (for tests).
std::vector<GpuInfo> visible_gpus(const EnvLookup& env = nullptr);

// CUDA_VISIBLE_DEVICES applied to `all` (indices or UUID prefixes; an unknown
// entry ends the list, as CUDA does).
std::vector<GpuInfo> apply_visible_devices(const std::vector<GpuInfo>& all,
                                           const std::string& visible);

}  // namespace mpsfw::mps
