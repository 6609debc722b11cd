#include "cap_policy.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <mpsfw/core/base/error.hpp>

namespace mpsfw::mps {

int auto_active_thread_percentage(int k, AtpPolicy policy) {
  if (k <= 1) return 100;
  if (policy == AtpPolicy::Even) return 100 / k > 0 ? 100 / k : 1;
  const int doubled = (200 + k - 1) / k;
  return doubled < 100 ? doubled : 100;
}

int balanced_active_thread_percentage(double share, AtpPolicy policy) {
  if (!(share > 0)) return 1;
  // The rounding of auto_active_thread_percentage, exact where share = 1/k:
  // 1e-9 absorbs share's own rounding (200 * (1/3) is not 200/3 in doubles).
  const double scaled = (policy == AtpPolicy::Even ? 100 : 200) * share;
  const int cap = policy == AtpPolicy::Even ? static_cast<int>(std::floor(scaled + 1e-9))
                                            : static_cast<int>(std::ceil(scaled - 1e-9));
  return std::min(100, std::max(1, cap));
}

int expected_sms(int total_sms, int percentage) {
  if (percentage >= 100) return total_sms;
  const int sms = total_sms * percentage / 100 / 2 * 2;
  return sms < 2 ? 2 : sms;
}

std::int64_t parse_pinned_mem_limit(const std::string& text, const std::string& origin) {
  const auto bad = [&] {
    return InputError(origin +
                      ": mps.pinned_device_mem_limit takes a whole number followed by M or G "
                      "(MiB or GiB, the form nvidia-cuda-mps-control accepts), e.g. 512M or 8G; "
                      "got '" +
                      text + "'");
  };
  const size_t digits = text.find_first_not_of("0123456789");
  if (digits == 0 || digits == std::string::npos || digits + 1 != text.size() || text[0] == '0')
    throw bad();
  const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
  if (unit != 'M' && unit != 'G') throw bad();
  const int shift = unit == 'G' ? 30 : 20;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE || value > (std::numeric_limits<std::int64_t>::max() >> shift)) throw bad();
  return static_cast<std::int64_t>(value) << shift;
}

std::string pinned_limit_as_shown(std::int64_t bytes) {
  return bytes >= (std::int64_t{1} << 30) ? std::to_string(bytes >> 30) + "G"
                                          : std::to_string(bytes >> 20) + "M";
}

int max_clients_per_gpu(int cuda_version) { return cuda_version >= 13010 ? 60 : 48; }

int parse_active_thread_percentage(const std::string& text, const std::string& origin,
                                   bool allow_balanced) {
  if (text == "auto") return 0;
  if (allow_balanced && text == "balanced") return kBalancedCaps;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < 1 || v > 100) {
    throw InputError(origin + ": expected auto" + (allow_balanced ? ", balanced" : "") +
                     " or an integer in [1, 100], got \"" + text + "\"");
  }
  return static_cast<int>(v);
}

}  // namespace mpsfw::mps
