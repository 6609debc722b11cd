#include "advise_choice.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace mpsfw::advise {
namespace {

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

// Simpler first: fewer ranks per GPU, then no MPS, then the larger cap.
std::tuple<int, int, int> simplicity(const Point& p) {
  return {p.ranks_per_gpu, p.arm == Arm::Mps ? 1 : 0, -p.cap};
}

}  // namespace

std::string to_string(Arm arm) {
  switch (arm) {
    case Arm::OnePerGpu:
      return "one per GPU";
    case Arm::TimeSliced:
      return "time-sliced";
    case Arm::Mps:
      return "MPS";
  }
  return "?";
}

std::string describe(const Point& p) {
  if (p.arm == Arm::OnePerGpu) return "1/GPU";
  std::string text = std::to_string(p.ranks_per_gpu) + " " + to_string(p.arm);
  if (p.arm == Arm::Mps && p.cap > 0) text += " " + std::to_string(p.cap) + "%";
  return text;
}

std::string skip_reason(const Point& p, const Node& node, const RankNeed& need) {
  const int ranks = p.ranks_per_gpu * node.gpus;
  if (ranks > node.cores) {
    return std::to_string(ranks) + " ranks on " + std::to_string(node.cores) + " cores";
  }
  if (p.arm == Arm::Mps && p.ranks_per_gpu > node.clients_per_gpu) {
    return std::to_string(p.ranks_per_gpu) + " MPS clients per GPU, the server takes " +
           std::to_string(node.clients_per_gpu);
  }
  const double host = need.host_bytes * ranks;
  if (node.host_bytes > 0 && host > node.host_bytes) {
    return "host memory: " + gib(host) + " needed, " + gib(node.host_bytes) + " available";
  }
  const double gpu = need.gpu_bytes * p.ranks_per_gpu;
  if (node.gpu_bytes > 0 && gpu > node.gpu_bytes) {
    return "GPU memory: " + gib(gpu) + " needed per GPU, " + gib(node.gpu_bytes) + " available";
  }
  return "";
}

bool keep_climbing(const std::vector<Measured>& arm_points) {
  if (arm_points.empty()) return true;
  if (!arm_points.back().ran) return false;
  double best_before = 0;
  for (size_t k = 0; k + 1 < arm_points.size(); ++k) {
    if (arm_points[k].ran) best_before = std::max(best_before, arm_points[k].throughput);
  }
  return arm_points.back().throughput >= best_before;
}

Choice choose(const std::vector<Measured>& table, double tie) {
  Choice c;
  double best = 0, one = 0;
  for (const Measured& m : table) {
    if (!m.ran) continue;
    best = std::max(best, m.throughput);
    if (m.point.arm == Arm::OnePerGpu) one = std::max(one, m.throughput);
  }
  for (size_t i = 0; i < table.size(); ++i) {
    const Measured& m = table[i];
    if (!m.ran || m.throughput < (1 - tie) * best) continue;
    if (c.index < 0 || simplicity(m.point) < simplicity(table[static_cast<size_t>(c.index)].point))
      c.index = static_cast<int>(i);
  }
  if (c.index < 0) {
    c.why = "no point ran";
    return c;
  }
  const Measured& m = table[static_cast<size_t>(c.index)];
  c.efficiency = one > 0 ? m.throughput / one : 0;
  c.why = m.throughput == best ? "the fastest point"
                               : "within " + std::to_string(static_cast<int>(tie * 100 + 0.5)) +
                                     " % of the fastest, and simpler";
  return c;
}

Forecast forecast(double work, double throughput, int gpus) {
  Forecast f;
  if (throughput <= 0) return f;
  f.seconds = work / throughput;
  f.gpu_hours = f.seconds * gpus / 3600.0;
  return f;
}

}  // namespace mpsfw::advise
