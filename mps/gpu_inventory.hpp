#pragma once
// The GPUs this process may use, found WITHOUT initialising CUDA (a process
// that initialises CUDA before the MPS daemon is up runs without MPS):
// /proc/driver/nvidia/gpus (UUIDs, in PCI order, which is CUDA's order for
// identical GPUs), filtered by CUDA_VISIBLE_DEVICES; nvidia-smi as fallback.
// A GPU split into MIG instances (its /proc/driver/nvidia/capabilities/gpuN/mig
// holds gi* folders) is listed as its instances instead: each is a GPU of its
// own to CUDA (CUDA_VISIBLE_DEVICES=MIG-<uuid>), and gets its own MPS daemon.
// Their UUIDs come from NVML (nvml_inventory.hpp), or `nvidia-smi -L` where
// NVML is missing; without /proc (a container) the list is NVML's, or
// nvidia-smi's.
#include <string>
#include <vector>

#include "launcher.hpp"

namespace mpsfw::mps {

struct GpuInfo {
  std::string uuid;           // "GPU-8f6e...", or a MIG instance's "MIG-..."
  std::string pci_bus;        // "0000:3b:00.0" (a MIG instance: its GPU's)
  std::string mig;            // a MIG instance: "MIG 3g.40gb of GPU-8f6e..."; "" for a whole GPU
  long long free_bytes = -1;  // its free memory as NVML saw it; -1: not known (no NVML)
};

// A MIG instance as `nvidia-smi -L` lists it under its GPU.
struct MigInstance {
  std::string gpu_uuid;  // the physical GPU's "GPU-..."
  std::string profile;   // "3g.40gb"
  std::string uuid;      // "MIG-..." (or the older "MIG-GPU-.../1/0")
};
// The MIG lines of `nvidia-smi -L` output, each under the GPU line above it.
std::vector<MigInstance> parse_mig_instances(const std::string& nvidia_smi_list);

// MPSFW_NVIDIA_PROC_ROOT replaces /proc/driver/nvidia/gpus,
// MPSFW_NVIDIA_CAPABILITIES_ROOT /proc/driver/nvidia/capabilities and
// MPSFW_NVIDIA_SMI the nvidia-smi program (for tests). Throws Error when a
// GPU has MIG instances that nvidia-smi does not name.
std::vector<GpuInfo> visible_gpus(const EnvLookup& env = nullptr);
// Every GPU of the node, whatever CUDA_VISIBLE_DEVICES says.
std::vector<GpuInfo> node_gpus(const EnvLookup& env = nullptr);
// `gpu`'s free memory: as listed, else NVML's (a whole GPU found in /proc
// has none listed: NVML is started only for this question); -1 where neither
// says, or where the test doubles stand in for the driver.
long long free_bytes_of(const GpuInfo& gpu, const EnvLookup& env = nullptr);

// CUDA_VISIBLE_DEVICES applied to `all` (indices or UUID prefixes; an unknown
// entry ends the list, as CUDA does). Throws Error for a prefix that starts
// the UUIDs of several GPUs, naming two of them, and for a GPU named twice
// (0,0; an index and its UUID), naming both entries.
std::vector<GpuInfo> apply_visible_devices(const std::vector<GpuInfo>& all,
                                           const std::string& visible);

}  // namespace mpsfw::mps
