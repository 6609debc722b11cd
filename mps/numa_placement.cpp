#include "numa_placement.hpp"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace mpsfw::mps {

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::istringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    const size_t dash = part.find('-');
    char* end = nullptr;
    const long first = std::strtol(part.c_str(), &end, 10);
    if (end == part.c_str() || first < 0) continue;
    long last = first;
    if (dash != std::string::npos) {
      const char* from = part.c_str() + dash + 1;
      last = std::strtol(from, &end, 10);
      if (end == from || last < first) continue;
    }
    for (long c = first; c <= last && c < CPU_SETSIZE; ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

std::vector<int> cpus_near(const std::string& pci_bus, const EnvLookup& given) {
  const EnvLookup env = given ? given : [](const char* n) { return std::getenv(n); };
  if (pci_bus.empty()) return {};
  const char* root = env("MPSFW_SYSFS_ROOT");
  std::string bus = pci_bus;
  for (char& c : bus) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::ifstream list(std::string(root ? root : "/sys") + "/bus/pci/devices/" + bus +
                     "/local_cpulist");
  std::string text;
  std::getline(list, text);
  return parse_cpu_list(text);
}

std::string place_near(const std::vector<int>& near, int ranks_sharing) {
  if (near.empty()) return "";
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return "";
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online <= 0 || CPU_COUNT(&mine) != online) return "";  // the launcher chose already
  cpu_set_t close;
  CPU_ZERO(&close);
  for (int c : near)
    if (CPU_ISSET(c, &mine)) CPU_SET(c, &close);
  const int count = CPU_COUNT(&close);
  if (count == 0 || count < ranks_sharing || count == online) return "";
  if (sched_setaffinity(0, sizeof close, &close) != 0) return "";
  return "pinned to the " + std::to_string(count) + " CPUs near its GPU (of " +
         std::to_string(online) + ")";
}

}  // namespace mpsfw::mps
