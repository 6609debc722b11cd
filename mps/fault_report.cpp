#include "fault_report.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace mpsfw::mps {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool contains(const std::string& lowered, const char* word) {
  return lowered.find(word) != std::string::npos;
}

// Numbers that follow "pid", "process" or "client" (after spaces, ':' or '{'):
// PIDs, never the timestamp's digits or a context id.
std::vector<long> pids_in(const std::string& line) {
  const std::string l = lower(line);
  std::vector<long> out;
  for (const char* word : {"pid", "process", "client"}) {
    const size_t n = std::string(word).size();
    for (size_t at = l.find(word); at != std::string::npos; at = l.find(word, at + n)) {
      size_t i = at + n;
      while (i < l.size() && (l[i] == ' ' || l[i] == ':' || l[i] == '{')) ++i;
      size_t j = i;
      while (j < l.size() && std::isdigit(static_cast<unsigned char>(l[j]))) ++j;
      if (j > i && j - i < 10) {
        const long pid = std::stol(l.substr(i, j - i));
        if (std::find(out.begin(), out.end(), pid) == out.end()) out.push_back(pid);
      }
    }
  }
  return out;
}

void add_unique(std::vector<long>* to, const std::vector<long>& pids) {
  for (long p : pids) {
    if (std::find(to->begin(), to->end(), p) == to->end()) to->push_back(p);
  }
}

std::string trimmed(const std::string& line) {
  // Drop the "[date time Server pid] " prefix: the message is what matters.
  const size_t close = line.find("] ");
  return line.front() == '[' && close != std::string::npos ? line.substr(close + 2) : line;
}

std::string ranks_of(const std::vector<long>& pids, const std::map<long, int>& rank_of_pid) {
  std::string out;
  for (long p : pids) {
    const auto it = rank_of_pid.find(p);
    out += (out.empty() ? "" : ", ") +
           (it == rank_of_pid.end()
                ? "pid " + std::to_string(p) + " (not a rank of this job)"
                : "rank " + std::to_string(it->second) + " (pid " + std::to_string(p) + ")");
  }
  return out;
}

}  // namespace

bool find_server_fault(const std::string& server_log, ServerFault* fault) {
  std::istringstream lines(server_log);
  std::string line, culprit_line, other_line;
  std::vector<long> culprits, others;
  ServerFault f;
  while (std::getline(lines, line)) {
    const std::string l = lower(line);
    if (contains(l, "encountered a fatal")) {
      if (culprit_line.empty()) culprit_line = trimmed(line);
      add_unique(&culprits, pids_in(line));
    } else if (contains(l, "to be torn down")) {
      add_unique(&f.torn_down, pids_in(line));
    } else if (contains(l, "fault") || contains(l, "xid") || contains(l, "exception")) {
      other_line = trimmed(line);
      others = pids_in(line);
    }
  }
  if (culprit_line.empty() && other_line.empty()) return false;
  f.line = culprit_line.empty() ? other_line : culprit_line;
  f.faulting = culprit_line.empty() ? others : culprits;
  *fault = f;
  return true;
}

std::string describe_server_fault(const ServerFault& fault,
                                  const std::map<long, int>& rank_of_pid) {
  std::string out = "server.log: \"" + fault.line + "\"";
  if (!fault.faulting.empty())
    out += "; faulting client per the server: " + ranks_of(fault.faulting, rank_of_pid);
  std::vector<long> victims;
  for (long p : fault.torn_down) {
    if (std::find(fault.faulting.begin(), fault.faulting.end(), p) == fault.faulting.end()) {
      victims.push_back(p);
    }
  }
  if (!victims.empty()) out += "; torn down with it: " + ranks_of(victims, rank_of_pid);
  // The node's other clients (other GPUs' servers) were not touched: they run
  // on until the job is aborted.
  std::vector<long> untouched;
  for (const auto& [pid, rank] : rank_of_pid) {
    const auto in = [pid = pid](const std::vector<long>& v) {
      return std::find(v.begin(), v.end(), pid) != v.end();
    };
    if (!in(fault.faulting) && !in(fault.torn_down)) untouched.push_back(pid);
  }
  if (!untouched.empty()) {
    out += "; not torn down (other GPUs, unaffected until the job is aborted): " +
           ranks_of(untouched, rank_of_pid);
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
