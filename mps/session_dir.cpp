#include "session_dir.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cap_policy.hpp"
#include "control.hpp"
#include "core/error.hpp"
#include "core/text_fields.hpp"
#include "gpu_probe.hpp"
#include "process.hpp"

namespace mpsfw::mps {
namespace fs = std::filesystem;
namespace {

constexpr const char* kReady = "ready";
constexpr const char* kFailed = "failed";
constexpr const char* kStarting = "starting";

// Moves each GPU's log folder of session `dir` to kept_logs_dir(dir)/gpu<N>,
// so that the error can point at logs that outlive the session folder.
// Returns the message with the old folders' paths replaced by the new ones.
std::string keep_logs(const std::string& dir, const std::vector<std::string>& log_dirs,
                      std::string message) {
  std::error_code ec;
  const fs::path kept = kept_logs_dir(dir);
  for (const std::string& log : log_dirs) {
    const fs::path to = kept / fs::path(log).parent_path().filename();
    fs::create_directories(to, ec);
    fs::remove_all(to / "log", ec);
    fs::rename(log, to / "log", ec);
    if (ec) continue;  // the message keeps the old path
    for (size_t at = message.find(log); at != std::string::npos; at = message.find(log, at + 1)) {
      message.replace(at, log.size(), (to / "log").string());
    }
  }
  return message;
}

std::string read_text(const fs::path& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Refuses what MPS would refuse later, with a message that says why.
void check_gpu(const GpuFacts& facts, const std::string& uuid, int ranks, const MpsConfig& config) {
  if (!facts.known) return;
  if (config.pinned_bytes > 0 && config.pinned_bytes * ranks > facts.memory_bytes) {
    throw Error("MPS: mps.pinned_device_mem_limit = " + config.pinned_device_mem_limit +
                " for each of " + std::to_string(ranks) + " ranks does not fit the " +
                std::to_string(facts.memory_bytes >> 20) + " MiB of GPU " + uuid);
  }
  if (facts.compute_mode == 2) {
    throw Error("MPS: GPU " + uuid +
                " is in compute mode Prohibited; MPS needs Default or Exclusive-process");
  }
}

}  // namespace

std::vector<SessionGpu> start_session_daemons(const std::string& dir,
                                              const std::vector<GpuInfo>& gpus,
                                              const std::vector<int>& ranks_per_gpu,
                                              const MpsConfig& config, bool start_servers,
                                              StartTimes* times) {
  StartTimes spent;
  std::vector<SessionGpu> started;
  std::vector<std::string> log_dirs;
  try {
    fs::create_directories(dir);
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
    std::ofstream(fs::path(dir) / kStarting) << getpid() << "\n";
    for (size_t g = 0; g < gpus.size(); ++g) {
      const int ranks = g < ranks_per_gpu.size() ? ranks_per_gpu[g] : 0;
      if (ranks == 0) continue;
      SessionGpu s;
      s.index = static_cast<int>(g);
      s.uuid = gpus[g].uuid;
      s.mig = gpus[g].mig;
      const fs::path gdir = fs::path(dir) / ("gpu" + std::to_string(g));
      s.pipe_dir = (gdir / "pipe").string();
      s.log_dir = (gdir / "log").string();
      fs::create_directories(s.pipe_dir);
      fs::create_directories(s.log_dir);
      log_dirs.push_back(s.log_dir);
      s.cap = cap_for(config, ranks);
      auto start = std::chrono::steady_clock::now();
      s.daemon_pid = start_daemon({s.pipe_dir, s.log_dir}, s.uuid, config.timeout_seconds);
      spent.daemon_start += seconds_since(start);
      started.push_back(s);
      start = std::chrono::steady_clock::now();
      // Defaults first: they hold for servers started after them.
      const ControlClient control({s.pipe_dir, s.log_dir}, config.timeout_seconds);
      control.send("set_default_active_thread_percentage " + std::to_string(s.cap));
      if (!config.pinned_device_mem_limit.empty()) {
        control.send("set_default_device_pinned_mem_limit 0 " + config.pinned_device_mem_limit);
      }
      spent.daemon_config += seconds_since(start);
      if (start_servers) {
        start = std::chrono::steady_clock::now();
        control.send("start_server -uid " + std::to_string(getuid()));
        spent.server_start += seconds_since(start);
      }
    }
    // A child process asks CUDA what each GPU is (while its server starts).
    for (SessionGpu& s : started) {
      const auto start = std::chrono::steady_clock::now();
      std::vector<std::string> others;
      for (const GpuInfo& g : gpus)
        if (g.uuid != s.uuid) others.push_back(g.uuid);
      const GpuFacts facts = probe_gpu(s.uuid, others);
      spent.probe += seconds_since(start);
      const size_t g = static_cast<size_t>(s.index);
      check_gpu(facts, s.uuid, g < ranks_per_gpu.size() ? ranks_per_gpu[g] : 0, config);
      s.total_sms = facts.known ? facts.sms : 0;
      for (size_t o = 0; o < others.size() && o < 64; ++o)
        if (facts.peers & (std::uint64_t{1} << o)) s.peers.push_back(others[o]);
    }
  } catch (const std::exception& e) {
    // start_daemon stopped the one that failed; the logs outlive the folder.
    for (const SessionGpu& s : started)
      stop_daemon({s.pipe_dir, s.log_dir}, config.timeout_seconds);
    throw Error(keep_logs(dir, log_dirs, e.what()));
  }
  if (times != nullptr) *times = spent;
  return started;
}

namespace {

std::string joined_peers(const std::vector<std::string>& peers) {
  std::string text;
  for (const std::string& p : peers) text += (text.empty() ? "" : ",") + p;
  return text.empty() ? "-" : text;
}

std::vector<std::string> split_peers(const std::string& text) {
  std::vector<std::string> peers;
  if (text == "-") return peers;
  for (const std::string& p : split_fields(text, ','))
    if (!p.empty()) peers.push_back(p);
  return peers;
}

}  // namespace

void write_ready(const std::string& dir, const SessionRecord& record) {
  std::ostringstream out;
  out << "leader " << record.leader << "\n";
  for (const SessionGpu& g : record.gpus) {
    out << "gpu " << g.index << " " << g.uuid << " " << g.daemon_pid << " " << g.cap << " "
        << g.total_sms << " " << g.pipe_dir << " " << g.log_dir << " " << joined_peers(g.peers)
        << " " << (g.mig.empty() ? "-" : g.mig) << "\n";
  }
  const fs::path tmp = fs::path(dir) / "ready.partial";
  {
    std::ofstream f(tmp);
    f << out.str();
    if (!f) throw Error("MPS: cannot write " + tmp.string());
  }
  fs::rename(tmp, fs::path(dir) / kReady);
}

void write_failed(const std::string& dir, long leader, const std::string& reason) {
  std::error_code ec;
  if (fs::exists(dir, ec)) std::ofstream(fs::path(dir) / kFailed) << leader << " " << reason;
}

bool read_ready(const std::string& dir, SessionRecord* record) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / kReady, ec)) return false;
  SessionRecord r;
  std::istringstream lines(read_text(fs::path(dir) / kReady));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::string kind;
    f >> kind;
    if (kind == "leader") {
      f >> r.leader;
    } else if (kind == "gpu") {
      SessionGpu g;
      std::string peers;
      f >> g.index >> g.uuid >> g.daemon_pid >> g.cap >> g.total_sms >> g.pipe_dir >> g.log_dir >>
          peers;
      g.peers = split_peers(peers);
      std::getline(f >> std::ws, g.mig);
      if (g.mig == "-") g.mig.clear();
      r.gpus.push_back(g);
    }
  }
  *record = r;
  return true;
}

std::string read_failed(const std::string& dir, bool live_only) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / kFailed, ec)) return "";
  std::istringstream text(read_text(fs::path(dir) / kFailed));
  long leader = -1;
  text >> leader;
  if (live_only && !process_alive(leader)) return "";
  std::string reason;
  std::getline(text >> std::ws, reason, '\0');
  while (!reason.empty() && std::isspace(static_cast<unsigned char>(reason.back())))
    reason.pop_back();
  return reason.empty() ? "unknown reason" : reason;
}

void remove_session(const std::string& dir, double timeout_seconds, bool clients_released) {
  std::error_code ec;
  for (const auto& gpu : fs::directory_iterator(dir, ec)) {
    if (fs::is_directory(gpu.path() / "pipe", ec)) {
      stop_daemon({(gpu.path() / "pipe").string(), (gpu.path() / "log").string()}, timeout_seconds,
                  clients_released);
    }
  }
  fs::remove_all(dir, ec);
}

long read_starting(const std::string& dir) {
  std::ifstream f(fs::path(dir) / kStarting);
  long pid = -1;
  return f >> pid ? pid : -1;
}

namespace {
// <root>/mpsfw-mps-J-H -> <root>/<kind>-J-H
std::string beside_session(const std::string& dir, const std::string& kind) {
  const fs::path d(dir);
  std::string name = d.filename().string();
  const std::string prefix = "mpsfw-mps-";
  if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
  return (d.parent_path() / (kind + "-" + name)).string();
}
}  // namespace

std::string kept_logs_dir(const std::string& dir) { return beside_session(dir, "mpsfw-logs"); }

std::string session_lock_path(const std::string& dir) { return beside_session(dir, "mpsfw-lock"); }

std::vector<std::string> list_sessions(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    if (e.is_directory(ec) && e.path().filename().string().rfind("mpsfw-mps-", 0) == 0) {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace mpsfw::mps
