#include "fault_report.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

namespace mpsfw::mps {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool speaks_of_fault(const std::string& line) {
  const std::string l = lower(line);
  for (const char* word : {"fault", "exception", "xid", "terminat"}) {
    if (l.find(word) != std::string::npos) return true;
  }
  return false;
}

std::vector<long> numbers_in(const std::string& line) {
  std::vector<long> out;
  for (size_t i = 0; i < line.size();) {
    if (std::isdigit(static_cast<unsigned char>(line[i]))) {
      size_t j = i;
      while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
      if (j - i < 10) out.push_back(std::stol(line.substr(i, j - i)));
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string describe_server_fault(const std::string& server_log,
                                  const std::map<long, int>& rank_of_pid) {
  std::istringstream lines(server_log);
  std::string line, last;
  std::vector<std::pair<int, long>> named;  // (rank, pid), first mention first
  while (std::getline(lines, line)) {
    if (!speaks_of_fault(line)) continue;
    last = line;
    for (long n : numbers_in(line)) {
      const auto it = rank_of_pid.find(n);
      if (it == rank_of_pid.end()) continue;
      const std::pair<int, long> entry{it->second, n};
      if (std::find(named.begin(), named.end(), entry) == named.end()) named.push_back(entry);
    }
  }
  if (last.empty()) return "";
  std::string out = "server.log: \"" + last + "\"";
  if (!named.empty()) {
    out += "; it names ";
    for (size_t i = 0; i < named.size(); ++i) {
      out += (i ? ", " : "") + std::string("rank ") + std::to_string(named[i].first) + " (pid " +
             std::to_string(named[i].second) + ")";
    }
  }
  return out;
}

bool is_mps_victim_error(const std::string& message) {
  for (const char* name : {"cudaErrorMpsClientTerminated", "cudaErrorMpsServerNotReady",
                           "cudaErrorMpsRpcFailure", "cudaErrorMpsConnectionFailed"}) {
    if (message.find(name) != std::string::npos) return true;
  }
  return false;
}

}  // namespace mpsfw::mps
