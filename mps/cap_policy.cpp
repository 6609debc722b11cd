#include "cap_policy.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>

#include "core/error.hpp"

namespace mpsfw::mps {

int auto_active_thread_percentage(int k, AtpPolicy policy) {
  if (k <= 1) return 100;
  if (policy == AtpPolicy::Even) return 100 / k > 0 ? 100 / k : 1;
  const int doubled = (200 + k - 1) / k;
  return doubled < 100 ? doubled : 100;
}

int expected_sms(int total_sms, int percentage) {
  if (percentage >= 100) return total_sms;
  const int sms = total_sms * percentage / 100 / 2 * 2;
  return sms < 2 ? 2 : sms;
}

std::int64_t parse_memory_size(const std::string& text, const std::string& origin) {
  const auto bad = [&] {
    return InputError(origin + ": expected a size such as 8G, 512M or a number of bytes, got '" +
                      text + "'");
  };
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) throw bad();
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE) throw bad();
  std::int64_t scale = 1;
  const std::string unit = end;
  if (unit == "K" || unit == "k")
    scale = std::int64_t{1} << 10;
  else if (unit == "M" || unit == "m")
    scale = std::int64_t{1} << 20;
  else if (unit == "G" || unit == "g")
    scale = std::int64_t{1} << 30;
  else if (unit == "T" || unit == "t")
    scale = std::int64_t{1} << 40;
  else if (!unit.empty())
    throw bad();
  if (value <= 0 || value > std::numeric_limits<std::int64_t>::max() / scale) throw bad();
  return value * scale;
}

int max_clients_per_gpu(int cuda_version) { return cuda_version >= 13010 ? 60 : 48; }

int parse_active_thread_percentage(const std::string& text, const std::string& origin) {
  if (text == "auto") return 0;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < 1 || v > 100) {
    throw InputError(origin + ": expected auto or an integer in [1, 100], got \"" + text + "\"");
  }
  return static_cast<int>(v);
}

}  // namespace mpsfw::mps
