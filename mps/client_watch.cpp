#include "client_watch.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace mpsfw::mps {

std::vector<long> process_tree(long root) {
  std::multimap<long, long> children;  // parent -> child
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;
    // pid (comm) state ppid ...: comm may hold spaces and parentheses.
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long parent = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &parent) == 2) {
      children.emplace(parent, std::stol(name));
    }
  }
  std::vector<long> tree = {root};
  for (std::size_t i = 0; i < tree.size(); ++i) {
    const auto [first, last] = children.equal_range(tree[i]);
    for (auto c = first; c != last; ++c) tree.push_back(c->second);
  }
  return tree;
}

bool tree_is_client(const ControlClient& control, long root) {
  const std::vector<long> tree = process_tree(root);
  for (long server : control.server_pids()) {
    for (long client : control.client_pids(server)) {
      if (std::find(tree.begin(), tree.end(), client) != tree.end()) return true;
    }
  }
  return false;
}

}  // namespace mpsfw::mps
