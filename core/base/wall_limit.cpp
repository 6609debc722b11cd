#include "wall_limit.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "error.hpp"

namespace mpsfw {
namespace {

constexpr const char* kExpected =
    "expected auto, off, seconds (3600) or [D-]HH:MM:SS (1-00:00:00, 01:30:00, 45:00)";

// Seconds of "3600", "90.5", "45:00", "1:30:00", "2-12:00:00"; negative when
// the text is none of these.
double duration_seconds(const std::string& text) {
  static const std::regex number(R"(\d+(\.\d*)?)");
  static const std::regex clock(R"((?:(\d+)-)?(?:(\d+):)?(\d+):(\d+))");
  std::smatch m;
  if (std::regex_match(text, number)) return std::strtod(text.c_str(), nullptr);
  if (!std::regex_match(text, m, clock)) return -1;
  const auto part = [&](int i) {
    return m[i].matched ? std::strtod(m[i].str().c_str(), nullptr) : 0.0;
  };
  if (part(4) >= 60 || (m[2].matched && part(3) >= 60)) return -1;
  return ((part(1) * 24 + part(2)) * 60 + part(3)) * 60 + part(4);
}

}  // namespace

double run_clock_seconds() {
  static const auto start = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

WallLimit parse_wall_limit(const std::string& text, const std::string& origin,
                           const char* job_end_time, double now_seconds, double now_unix) {
  WallLimit limit;
  if (text == "off") return limit;
  if (text == "auto") {
    if (job_end_time == nullptr || *job_end_time == '\0') return limit;
    char* end = nullptr;
    const double job_end = std::strtod(job_end_time, &end);
    if (*end != '\0' || !std::isfinite(job_end) || job_end <= 0) {
      throw InputError(origin +
                       ": run.wall_limit = auto takes the job's end from SLURM_JOB_END_TIME, "
                       "which is '" +
                       std::string(job_end_time) +
                       "', not a Unix time in seconds; set run.wall_limit (" + kExpected + ")");
    }
    limit.end_seconds = now_seconds + (job_end - now_unix);
    limit.source = "SLURM_JOB_END_TIME = " + std::string(job_end_time);
    return limit;
  }
  const double seconds = duration_seconds(text);
  if (!(seconds > 0)) {
    throw InputError(
        origin + ": run.wall_limit = '" + text + "': " + kExpected +
        (seconds == 0 ? "; a limit of 0 s leaves no time to run (off: no limit)" : ""));
  }
  limit.end_seconds = seconds;
  limit.source = "run.wall_limit = " + text;
  return limit;
}

WallLimit wall_limit_of(const std::string& text, const std::string& origin) {
  const double now_unix =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return parse_wall_limit(text, origin, std::getenv("SLURM_JOB_END_TIME"), run_clock_seconds(),
                          now_unix);
}

double wall_seconds_left(const WallLimit& limit) { return limit.end_seconds - run_clock_seconds(); }

std::string wall_limit_text(const WallLimit& limit) {
  if (!limit.set()) return "none";
  const long left = std::lround(std::max(0.0, wall_seconds_left(limit)));
  const std::string left_text =
      left >= 60 ? std::to_string(left / 60) + " min " + std::to_string(left % 60) + " s"
                 : std::to_string(left) + " s";
  return left_text + " left (" + limit.source + ")";
}

}  // namespace mpsfw
