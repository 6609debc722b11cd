#include "gpu_inventory.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "process.hpp"

namespace mpsfw::mps {
namespace {

std::vector<GpuInfo> from_proc(const std::string& root) {
  std::vector<GpuInfo> gpus;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    std::ifstream info(entry.path() / "information");
    std::string line;
    GpuInfo gpu;
    gpu.pci_bus = entry.path().filename().string();
    while (std::getline(info, line)) {
      if (line.rfind("GPU UUID:", 0) == 0) {
        gpu.uuid = line.substr(line.find_first_not_of(" \t", 9));
      }
    }
    if (!gpu.uuid.empty()) gpus.push_back(gpu);
  }
  std::sort(gpus.begin(), gpus.end(),
            [](const GpuInfo& a, const GpuInfo& b) { return a.pci_bus < b.pci_bus; });
  return gpus;
}

std::vector<GpuInfo> from_nvidia_smi() {
  std::vector<GpuInfo> gpus;
  const ProcessResult r = run_process(
      {"nvidia-smi", "--query-gpu=pci.bus_id,uuid", "--format=csv,noheader"}, {}, "", 10.0);
  if (r.exit_code != 0) return gpus;
  std::istringstream lines(r.output);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t comma = line.find(',');
    if (comma == std::string::npos) continue;
    GpuInfo g;
    g.pci_bus = line.substr(0, comma);
    g.uuid = line.substr(line.find_first_not_of(' ', comma + 1));
    gpus.push_back(g);
  }
  return gpus;
}

}  // namespace

std::vector<GpuInfo> apply_visible_devices(const std::vector<GpuInfo>& all,
                                           const std::string& visible) {
  std::vector<GpuInfo> out;
  std::istringstream items(visible);
  std::string item;
  while (std::getline(items, item, ',')) {
    item.erase(0, item.find_first_not_of(' '));
    const GpuInfo* pick = nullptr;
    if (!item.empty() && std::all_of(item.begin(), item.end(), ::isdigit)) {
      const size_t i = std::stoul(item);
      if (i < all.size()) pick = &all[i];
    } else if (!item.empty()) {
      for (const GpuInfo& g : all) {
        if (g.uuid.rfind(item, 0) == 0) pick = &g;
      }
    }
    if (pick == nullptr) break;
    out.push_back(*pick);
  }
  return out;
}

std::vector<GpuInfo> visible_gpus(const EnvLookup& given) {
  const EnvLookup env = given ? given : [](const char* n) { return std::getenv(n); };
  const char* root = env("MPSFW_NVIDIA_PROC_ROOT");
  std::vector<GpuInfo> all = from_proc(root ? root : "/proc/driver/nvidia/gpus");
  if (all.empty() && root == nullptr) all = from_nvidia_smi();
  const char* visible = env("CUDA_VISIBLE_DEVICES");
  return visible ? apply_visible_devices(all, visible) : all;
}

}  // namespace mpsfw::mps
