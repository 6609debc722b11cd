#include "gpu_inventory.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "nvml_inventory.hpp"
#include "process.hpp"
#include <mpsfw/core/base/error.hpp>

namespace mpsfw::mps {
namespace {

// A GPU of /proc/driver/nvidia/gpus and its device minor (-1: not given).
struct ProcGpu {
  GpuInfo info;
  int minor = -1;
};

std::string after_label(const std::string& line, size_t label_length) {
  const size_t at = line.find_first_not_of(" \t", label_length);
  return at == std::string::npos ? "" : line.substr(at);
}

std::vector<ProcGpu> from_proc(const std::string& root) {
  std::vector<ProcGpu> gpus;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    std::ifstream info(entry.path() / "information");
    std::string line;
    ProcGpu gpu;
    gpu.info.pci_bus = entry.path().filename().string();
    while (std::getline(info, line)) {
      if (line.rfind("GPU UUID:", 0) == 0) gpu.info.uuid = after_label(line, 9);
      if (line.rfind("Device Minor:", 0) == 0) gpu.minor = std::atoi(after_label(line, 13).c_str());
    }
    if (!gpu.info.uuid.empty()) gpus.push_back(gpu);
  }
  std::sort(gpus.begin(), gpus.end(),
            [](const ProcGpu& a, const ProcGpu& b) { return a.info.pci_bus < b.info.pci_bus; });
  return gpus;
}

// Whether the driver lists MIG GPU instances for device minor `minor`.
bool has_mig_instances(const std::string& capabilities, int minor) {
  if (minor < 0) return false;
  std::error_code ec;
  const std::filesystem::path mig =
      std::filesystem::path(capabilities) / ("gpu" + std::to_string(minor)) / "mig";
  for (const auto& entry : std::filesystem::directory_iterator(mig, ec)) {
    if (entry.path().filename().string().rfind("gi", 0) == 0) return true;
  }
  return false;
}

// The MIG instances of the node: from NVML (`use_nvml`), else from
// `nvidia-smi -L`; *source says which.
std::vector<MigInstance> mig_instances(bool use_nvml, const std::string& nvidia_smi,
                                       std::string* source) {
  std::vector<MigInstance> out;
  if (use_nvml) {
    if (const auto gpus = nvml_gpus()) {
      *source = "NVML";
      for (const GpuInfo& g : *gpus) {
        // g.mig: "MIG <profile> of <GPU uuid>".
        const size_t of = g.mig.find(" of ");
        if (g.mig.rfind("MIG ", 0) != 0 || of == std::string::npos) continue;
        out.push_back({g.mig.substr(of + 4), g.mig.substr(4, of - 4), g.uuid});
      }
      return out;
    }
  }
  *source = "`" + nvidia_smi + " -L`";
  const ProcessResult r = run_process({nvidia_smi, "-L"}, {}, "", 10.0);
  if (r.exit_code == 0) out = parse_mig_instances(r.output);
  return out;
}

// `gpus` with each GPU that has MIG instances replaced by them.
std::vector<GpuInfo> expand_mig(const std::vector<ProcGpu>& gpus, const std::string& capabilities,
                                bool use_nvml, const std::string& nvidia_smi) {
  std::vector<GpuInfo> out;
  std::vector<MigInstance> instances;
  std::string source;
  bool listed = false;
  for (const ProcGpu& g : gpus) {
    if (!has_mig_instances(capabilities, g.minor)) {
      out.push_back(g.info);
      continue;
    }
    if (!listed) {
      instances = mig_instances(use_nvml, nvidia_smi, &source);
      listed = true;
    }
    size_t found = 0;
    for (const MigInstance& m : instances) {
      if (m.gpu_uuid != g.info.uuid) continue;
      out.push_back({m.uuid, g.info.pci_bus, "MIG " + m.profile + " of " + g.info.uuid});
      ++found;
    }
    if (found == 0) {
      throw Error("GPU " + g.info.uuid + " has MIG instances (" + capabilities + "/gpu" +
                  std::to_string(g.minor) + "/mig) but " + (use_nvml ? "neither NVML nor " : "") +
                  "`" + nvidia_smi +
                  " -L` lists any of them: mpsfw needs their MIG-... UUIDs to bind ranks "
                  "to them");
    }
  }
  return out;
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

std::vector<MigInstance> parse_mig_instances(const std::string& text) {
  std::vector<MigInstance> out;
  std::istringstream lines(text);
  std::string line, gpu;
  const auto uuid_in = [](const std::string& l) {
    const size_t at = l.find("(UUID: ");
    if (at == std::string::npos) return std::string();
    const size_t end = l.find(')', at);
    return l.substr(at + 7, end == std::string::npos ? std::string::npos : end - at - 7);
  };
  while (std::getline(lines, line)) {
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (line.compare(first, 4, "GPU ") == 0) {
      gpu = uuid_in(line);
    } else if (line.compare(first, 4, "MIG ") == 0 && !gpu.empty()) {
      std::istringstream words(line.substr(first + 4));
      MigInstance m;
      words >> m.profile;
      m.gpu_uuid = gpu;
      m.uuid = uuid_in(line);
      if (!m.uuid.empty()) out.push_back(m);
    }
  }
  return out;
}

std::vector<GpuInfo> apply_visible_devices(const std::vector<GpuInfo>& all,
                                           const std::string& visible) {
  std::vector<GpuInfo> out;
  std::vector<std::string> entries;  // out[i] was named by entries[i]
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
        if (g.uuid.rfind(item, 0) != 0) continue;
        if (pick != nullptr) {
          throw Error("'" + item + "' starts the UUIDs of two GPUs, " + pick->uuid + " and " +
                      g.uuid + ": give enough of the UUID to name one");
        }
        pick = &g;
      }
    }
    if (pick == nullptr) break;
    // A GPU listed twice would count as two: two daemons, twice the ranks, one GPU.
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i].uuid != pick->uuid) continue;
      throw Error("entries '" + entries[i] + "' and '" + item + "' both name GPU " + pick->uuid +
                  ": list each GPU once");
    }
    out.push_back(*pick);
    entries.push_back(item);
  }
  return out;
}

std::vector<GpuInfo> node_gpus(const EnvLookup& given) {
  const EnvLookup env = given ? given : [](const char* n) { return std::getenv(n); };
  return visible_gpus([&](const char* name) -> const char* {
    return std::string(name) == "CUDA_VISIBLE_DEVICES" ? nullptr : env(name);
  });
}

long long free_bytes_of(const GpuInfo& gpu, const EnvLookup& given) {
  const EnvLookup env = given ? given : [](const char* n) { return std::getenv(n); };
  if (gpu.free_bytes >= 0 || gpu.uuid.empty()) return gpu.free_bytes;
  if (env("MPSFW_NVIDIA_PROC_ROOT") != nullptr || env("MPSFW_NVIDIA_SMI") != nullptr) return -1;
  try {
    if (const auto gpus = nvml_gpus()) {
      for (const GpuInfo& g : *gpus) {
        if (g.uuid == gpu.uuid) return g.free_bytes;
      }
    }
  } catch (const Error&) {
    // A failing NVML call leaves the free memory unknown, as no NVML does.
  }
  return -1;
}

std::vector<GpuInfo> visible_gpus(const EnvLookup& given) {
  const EnvLookup env = given ? given : [](const char* n) { return std::getenv(n); };
  const char* root = env("MPSFW_NVIDIA_PROC_ROOT");
  const char* capabilities = env("MPSFW_NVIDIA_CAPABILITIES_ROOT");
  const char* smi = env("MPSFW_NVIDIA_SMI");
  // NVML where nothing stands in for the driver (tests give doubles of /proc
  // and nvidia-smi); /proc first for whole GPUs: it needs no driver start.
  const bool use_nvml = root == nullptr && smi == nullptr;
  std::vector<GpuInfo> all =
      expand_mig(from_proc(root ? root : "/proc/driver/nvidia/gpus"),
                 capabilities ? capabilities : "/proc/driver/nvidia/capabilities", use_nvml,
                 smi ? smi : "nvidia-smi");
  if (all.empty() && root == nullptr) {
    std::optional<std::vector<GpuInfo>> listed;
    if (use_nvml) listed = nvml_gpus();
    all = listed ? *listed : from_nvidia_smi();
  }
  const char* visible = env("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr) return all;
  try {
    return apply_visible_devices(all, visible);
  } catch (const Error& e) {
    throw Error(std::string("CUDA_VISIBLE_DEVICES=") + visible + ": " + e.what());
  }
}

}  // namespace mpsfw::mps
