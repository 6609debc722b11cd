#include "mps_config.hpp"

#include <cctype>
#include <cstdlib>

#include <mpsfw/core/base/error.hpp>

namespace mpsfw::mps {

const char* to_string(Enable e) {
  switch (e) {
    case Enable::Auto:
      return "auto";
    case Enable::On:
      return "on";
    case Enable::Off:
      return "off";
  }
  return "?";
}

std::vector<ParamSpec> mps_schema() {
  const auto text = [](const char* key, const char* fallback, std::vector<std::string> choices,
                       const char* meaning) {
    return text_param("mps", key, false, fallback, std::move(choices), meaning);
  };
  return {
      text("enable", "auto", {"auto", "on", "off"},
           "auto: MPS when ranks share a GPU; on: MPS or fail; off: never"),
      text("active_thread_percentage", "auto", {},
           "auto, balanced or 1..100: share of a GPU's SMs each rank may use (balanced: in "
           "proportion to the rank's work, after atp_policy's rule)"),
      text("atp_policy", "double", {"double", "even"},
           "auto cap for k ranks per GPU: double = min(100, ceil(200/k)), even = floor(100/k)"),
      text("pinned_device_mem_limit", "", {},
           "device memory per rank: a whole number and M or G, e.g. 8G; empty: no limit"),
      text("directory", "", {}, "root of the job's MPS folders; empty: $TMPDIR or /tmp"),
      real_param("mps", "timeout_seconds", false, "30", 0, true,
                 "longest wait for a daemon or for the node leader", 3600),
      text("cpu_placement", "near_gpu", {"near_gpu", "launcher"},
           "near_gpu: a rank the launcher left free to run on every CPU is pinned to the CPUs "
           "of its GPU's NUMA node; launcher: every rank stays where the launcher put it"),
  };
}

MpsConfig mps_config_from(const Params& p) {
  MpsConfig c;
  const std::string& e = p.text("mps.enable");
  c.enable = e == "on" ? Enable::On : (e == "off" ? Enable::Off : Enable::Auto);
  const ParamValue& atp = p.value("mps.active_thread_percentage");
  const int percentage = parse_active_thread_percentage(atp.text, atp.origin, true);
  c.balanced = percentage == kBalancedCaps;
  c.active_thread_percentage = c.balanced ? 0 : percentage;
  c.policy = p.text("mps.atp_policy") == "even" ? AtpPolicy::Even : AtpPolicy::Double;
  c.pinned_device_mem_limit = p.text("mps.pinned_device_mem_limit");
  if (!c.pinned_device_mem_limit.empty()) {
    c.pinned_bytes = parse_pinned_mem_limit(c.pinned_device_mem_limit,
                                            p.value("mps.pinned_device_mem_limit").origin);
    // As the daemon shows it: "8g" is sent and exported as "8G".
    c.pinned_device_mem_limit.back() = static_cast<char>(
        std::toupper(static_cast<unsigned char>(c.pinned_device_mem_limit.back())));
  }
  c.directory = p.text("mps.directory");
  c.timeout_seconds = p.real("mps.timeout_seconds");
  c.place_near_gpu = p.text("mps.cpu_placement") == "near_gpu";
  return c;
}

MpsConfig read_mps_config(const InputAttributes* input, const std::vector<std::string>& overrides,
                          const std::vector<std::string>& origins, std::string* error) {
  try {
    Params params(mps_schema());
    if (input) params.read(*input, nullptr);  // the full read later warns
    for (size_t i = 0; i < overrides.size(); ++i) {
      if (overrides[i].rfind("mps.", 0) == 0) {
        params.apply_override(overrides[i], i < origins.size() ? origins[i] : "");
      }
    }
    params.finalize();
    return mps_config_from(params);
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    MpsConfig off;
    off.enable = Enable::Off;  // never start MPS from a configuration we could not read
    return off;
  }
}

int cap_for(const MpsConfig& config, int ranks_sharing) {
  if (config.balanced) return 100;
  return config.active_thread_percentage > 0
             ? config.active_thread_percentage
             : auto_active_thread_percentage(ranks_sharing, config.policy);
}

}  // namespace mpsfw::mps
