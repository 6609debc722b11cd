#pragma once
// The node's GPUs as NVML sees them (libnvidia-ml.so.1, loaded at run time:
// no link-time dependency, no CUDA context, safe before the MPS daemon is
// up): each whole GPU, or its MIG instances where it is split, with UUID and
// PCI bus id, in PCI order. gpu_inventory.cpp's first source; /proc and
// nvidia-smi remain the fallback where NVML is missing or fails.
#include <optional>
#include <string>
#include <vector>

#include "gpu_inventory.hpp"

namespace mpsfw::mps {

// Every GPU of the node (CUDA_VISIBLE_DEVICES not applied), or nullopt where
// `library` does not load or NVML does not start. Throws Error when NVML
// starts but a call fails (a broken driver is not a machine without GPUs).
std::optional<std::vector<GpuInfo>> nvml_gpus(const std::string& library = "libnvidia-ml.so.1");

}  // namespace mpsfw::mps
