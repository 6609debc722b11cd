#include "nearest_names.hpp"

#include <algorithm>
#include <utility>

namespace mpsfw {
namespace {

// Optimal string alignment distance: a swap of two neighbours is one edit.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::vector<std::string> nearest_names(const std::string& name,
                                       const std::vector<std::string>& candidates, size_t most) {
  const size_t limit = std::max<size_t>(1, name.size() / 3);
  std::vector<std::pair<size_t, std::string>> near;
  for (const std::string& c : candidates) {
    // A key written without its group ("nx" for "heat.nx") is as near as can be.
    const size_t dot = c.rfind('.');
    const bool group_left_out = name.find('.') == std::string::npos && dot != std::string::npos &&
                                c.substr(dot + 1) == name;
    const size_t d = group_left_out ? 0 : edit_distance(name, c);
    if (d <= limit) near.emplace_back(d, c);
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> names;  // the closest only, as git's suggestions are
  for (size_t i = 0; i < near.size() && i < most && near[i].first == near[0].first; ++i) {
    names.push_back(near[i].second);
  }
  return names;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  const std::vector<std::string> near = nearest_names(name, candidates);
  if (near.empty()) return "";
  std::string text = " (did you mean ";
  for (size_t i = 0; i < near.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + ("'" + near[i] + "'");
  }
  return text + "?)";
}

}  // namespace mpsfw
