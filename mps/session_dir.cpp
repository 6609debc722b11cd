#include "session_dir.hpp"

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
#include "gpu_probe.hpp"
#include "process.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/text_fields.hpp>

namespace mpsfw::mps {
namespace fs = std::filesystem;
namespace {

constexpr const char* kReady = "ready";
constexpr const char* kFailed = "failed";
constexpr const char* kStarting = "starting";
constexpr const char* kReadyPartial = "ready.partial";
constexpr const char* kPrefix = "mpsfw-mps-";
// The first word of each record file, and the version of its layout.
constexpr const char* kMark = "mpsfw-session";
constexpr int kVersion = 1;

// Letters, digits, '.', '_' and '-' only: job and host end up in a path.
std::string path_safe(const std::string& text) {
  std::string out;
  for (char c : text)
    out +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  return out;
}

// The first line of each record file we write.
std::string record_head() {
  return std::string(kMark) + " " + std::to_string(kVersion) + " " + session_host() + "\n";
}

// What the first line of a record file says: version 0 (an older mpsfw's
// record, or not ours) unless it starts with kMark.
struct RecordHead {
  int version = 0;
  std::string host;
};

RecordHead head_of(const std::string& text) {
  RecordHead head;
  std::istringstream line(text.substr(0, text.find('\n')));
  std::string mark;
  if (line >> mark && mark == kMark && line >> head.version >> head.host) return head;
  return RecordHead{};
}

// `text` without its first line when that is a record head.
std::string body_of(const std::string& text) {
  if (head_of(text).version == 0) return text;
  const size_t end = text.find('\n');
  return end == std::string::npos ? "" : text.substr(end + 1);
}

// A folder itself, not a symbolic link to one.
bool real_folder(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(path, ec));
}

// The files a control daemon and mpsfw write in a log folder: all that
// keep_logs replaces of an earlier failure's kept logs.
constexpr const char* kLogFiles[] = {"control.log", "server.log", "mpsfw-launch.log"};

// Moves each GPU's log folder of session `dir` to kept_logs_dir(dir)/gpu<N>,
// so that the error can point at logs that outlive the session folder.
// Returns the message with the old folders' paths replaced by the new ones.
// An earlier failure's logs there are replaced file by file; a folder that
// holds anything else is kept, and the new logs go beside it as log.<pid>.
std::string keep_logs(const std::string& dir, const std::vector<std::string>& log_dirs,
                      std::string message) {
  std::error_code ec;
  const fs::path kept = kept_logs_dir(dir);
  for (const std::string& log : log_dirs) {
    const fs::path to = kept / fs::path(log).parent_path().filename();
    fs::create_directories(to, ec);
    const fs::path old = to / "log";
    // Never through a symbolic link: only in folders of our own.
    if (real_folder(kept) && real_folder(to) && real_folder(old)) {
      for (const char* name : kLogFiles) fs::remove(old / name, ec);
      fs::remove(old, ec);  // only if now empty
    }
    const fs::path target =
        fs::exists(fs::symlink_status(old, ec)) ? to / ("log." + std::to_string(getpid())) : old;
    fs::rename(log, target, ec);
    if (ec) continue;  // the message keeps the old path
    for (size_t at = message.find(log); at != std::string::npos; at = message.find(log, at + 1)) {
      message.replace(at, log.size(), target.string());
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

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// Sets the daemon's default pinned-memory limit (device 0: the daemon sees
// only its GPU) and returns it as the daemon reads it back. The daemon answers
// nothing and exits 0 whatever the value (it took "64K" for 64M), so only the
// read-back says whether it holds what was sent.
std::string set_pinned_limit(const ControlClient& control, const std::string& uuid,
                             const MpsConfig& config) {
  const std::string command =
      "set_default_device_pinned_mem_limit 0 " + config.pinned_device_mem_limit;
  const ProcessResult set = control.send(command);
  const ProcessResult got = control.send("get_default_device_pinned_mem_limit 0");
  const std::string shown = trimmed(got.output);
  if (set.exit_code == 0 && trimmed(set.output).empty() && got.exit_code == 0 &&
      (shown == config.pinned_device_mem_limit ||
       shown == pinned_limit_as_shown(config.pinned_bytes))) {
    return shown;
  }
  throw Error("MPS: the control daemon for GPU " + uuid +
              " does not hold mps.pinned_device_mem_limit = " + config.pinned_device_mem_limit +
              ": after '" + command + "' (exit " + std::to_string(set.exit_code) +
              (trimmed(set.output).empty() ? "" : ", answer '" + trimmed(set.output) + "'") +
              ") it reads back '" + shown + "' (exit " + std::to_string(got.exit_code) +
              "), expected " + pinned_limit_as_shown(config.pinned_bytes) + "; see " +
              control.dirs().log + "/control.log");
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
    std::ofstream(fs::path(dir) / kStarting) << record_head() << getpid() << "\n";
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
        started.back().pinned = set_pinned_limit(control, s.uuid, config);
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
  out << record_head() << "leader " << record.leader << "\n";
  for (const SessionGpu& g : record.gpus) {
    out << "gpu " << g.index << " " << g.uuid << " " << g.daemon_pid << " " << g.cap << " "
        << g.total_sms << " " << g.pipe_dir << " " << g.log_dir << " " << joined_peers(g.peers)
        << " " << (g.pinned.empty() ? "-" : g.pinned) << " " << (g.mig.empty() ? "-" : g.mig)
        << "\n";
  }
  const fs::path tmp = fs::path(dir) / kReadyPartial;
  {
    std::ofstream f(tmp);
    f << out.str();
    if (!f) throw Error("MPS: cannot write " + tmp.string());
  }
  fs::rename(tmp, fs::path(dir) / kReady);
}

void write_failed(const std::string& dir, long leader, const std::string& reason) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    std::ofstream(fs::path(dir) / kFailed) << record_head() << leader << " " << reason;
  }
}

bool read_ready(const std::string& dir, SessionRecord* record) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / kReady, ec)) return false;
  const std::string text = read_text(fs::path(dir) / kReady);
  const int version = head_of(text).version;
  if (version > kVersion) {
    throw Error("MPS: " + dir + "/ready is a session record of version " + std::to_string(version) +
                ", written by a newer mpsfw; this one reads version " + std::to_string(kVersion) +
                " and older");
  }
  SessionRecord r;
  std::istringstream lines(body_of(text));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::string kind;
    f >> kind;
    if (kind == "leader") {
      f >> r.leader;
    } else if (kind == "gpu") {
      SessionGpu g;
      std::string peers, pinned = "-";
      f >> g.index >> g.uuid >> g.daemon_pid >> g.cap >> g.total_sms >> g.pipe_dir >> g.log_dir >>
          peers;
      if (version >= 1) f >> pinned;  // older records have no such field
      g.peers = split_peers(peers);
      g.pinned = pinned == "-" ? "" : pinned;
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
  std::istringstream text(body_of(read_text(fs::path(dir) / kFailed)));
  long leader = -1;
  text >> leader;
  if (live_only && !process_alive(leader)) return "";
  std::string reason;
  std::getline(text >> std::ws, reason, '\0');
  while (!reason.empty() && std::isspace(static_cast<unsigned char>(reason.back())))
    reason.pop_back();
  return reason.empty() ? "unknown reason" : reason;
}

long read_starting(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / kStarting, ec)) return -1;
  std::istringstream text(body_of(read_text(fs::path(dir) / kStarting)));
  long pid = -1;
  return text >> pid ? pid : -1;
}

namespace {

std::vector<fs::directory_entry> entries_of(const fs::path& dir) {
  std::vector<fs::directory_entry> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) out.push_back(e);
  return out;
}

bool gpu_folder_name(const std::string& name) {
  return name.size() > 3 && name.rfind("gpu", 0) == 0 &&
         name.find_first_not_of("0123456789", 3) == std::string::npos;
}

bool record_name(const std::string& name) {
  return name == kReady || name == kFailed || name == kStarting || name == kReadyPartial;
}

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// "mpsctl stop --session DIR/" names DIR.
fs::path folder_path(const std::string& dir) {
  fs::path path = fs::path(dir).lexically_normal();
  return path.has_filename() ? path : path.parent_path();
}

// Named mpsfw-mps-<job>-<this host>, from the name alone.
bool named_for_this_host(const std::string& name) {
  const std::string host = "-" + session_host();
  return name.rfind(kPrefix, 0) == 0 && name.size() > std::string(kPrefix).size() + host.size() &&
         ends_with(name, host);
}

std::string first_line(const fs::path& file) {
  std::ifstream f(file);
  std::string line;
  std::getline(f, line);
  return line;
}

// The host the first of our record files in `dir` names; "" without one.
std::string record_host(const fs::path& dir) {
  for (const char* record : {kReady, kFailed, kStarting}) {
    const RecordHead head = head_of(first_line(dir / record));
    if (head.version > 0) return head.host;
  }
  return "";
}

// Whether `text` is one whole number and nothing else (an older mpsfw's
// starting file: the PID that brought the session up).
bool just_a_number(const std::string& text) {
  std::istringstream in(text);
  long value = 0;
  std::string rest;
  return static_cast<bool>(in >> value) && !(in >> rest);
}

// "" when `dir` is a session an older mpsfw wrote (records without a head)
// whose rank is dead: its ready file has one "leader PID" line naming a
// process that no longer runs here (not 0: mpsctl's sessions have no owning
// rank to outlive) and "gpu" lines whose pipe and log folders are this
// folder's gpu<N>/pipe and gpu<N>/log, nothing else; a starting file, if
// any, holds a PID only; no failed file. Its daemons are then ours by their
// pipe folder, found and stopped as a session's of today. Otherwise why not.
std::string why_not_older_session(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(dir / kReady, ec))) return "it has no ready file";
  if (fs::exists(fs::symlink_status(dir / kFailed, ec))) return "it has a failed file";
  const fs::file_status starting = fs::symlink_status(dir / kStarting, ec);
  if (fs::exists(starting) &&
      (!fs::is_regular_file(starting) || (head_of(read_text(dir / kStarting)).version == 0 &&
                                          !just_a_number(read_text(dir / kStarting))))) {
    return "its starting file holds more than a PID";
  }
  const fs::path here = fs::weakly_canonical(dir, ec);
  std::istringstream lines(read_text(dir / kReady));
  std::string line;
  long leader = -1;
  int leaders = 0, gpus = 0;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::string kind, uuid, pipe, log;
    long index = -1, daemon = 0, cap = 0, sms = 0;
    if (!(f >> kind)) continue;
    if (kind == "leader" && f >> leader) {
      ++leaders;
    } else if (kind == "gpu" && f >> index >> uuid >> daemon >> cap >> sms >> pipe >> log &&
               index >= 0) {
      const fs::path gpu = here / ("gpu" + std::to_string(index));
      if (fs::weakly_canonical(pipe, ec) != gpu / "pipe" ||
          fs::weakly_canonical(log, ec) != gpu / "log") {
        return "its ready file names daemon folders outside it (" + pipe + ")";
      }
      ++gpus;
    } else {
      return "its ready file holds a line that is no session record's: '" + line + "'";
    }
  }
  if (leaders != 1 || gpus == 0) return "its ready file is not a session record";
  if (leader == 0) return "it was started by an older mpsctl (no owning rank to have ended)";
  if (leader < 0 || process_alive(leader)) {
    return "its leader, PID " + std::to_string(leader) + ", still runs";
  }
  return "";
}

// "" when `dir` is named as a session of this host and its records (or its
// emptiness: the leader's folder before the starting file) say it is ours;
// otherwise why not.
std::string why_not_ours(const fs::path& dir) {
  const std::string name = dir.filename().string();
  if (name.rfind(kPrefix, 0) != 0 || name.size() == std::string(kPrefix).size() ||
      path_safe(name) != name) {
    return std::string("its name is not ") + kPrefix + "<job>-<host>, the name of mpsfw's " +
           "session folders";
  }
  if (!named_for_this_host(name)) {
    return "its name does not end in -" + session_host() +
           ": a session of another host, or not a session (stop it on its own host)";
  }
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(dir, ec);
  if (fs::is_symlink(status)) return "it is a symbolic link, not a session folder";
  if (!fs::is_directory(status)) return "it is not a folder";
  bool recorded = false;
  for (const char* record : {kReady, kFailed, kStarting}) {
    const fs::file_status file = fs::symlink_status(dir / record, ec);
    if (!fs::exists(file)) continue;
    recorded = true;
    if (!fs::is_regular_file(file)) return std::string("its ") + record + " is not a plain file";
    const RecordHead head = head_of(first_line(dir / record));
    // An older mpsfw's session of a dead rank is ours to clean up.
    const std::string older = head.version == 0 ? why_not_older_session(dir) : "";
    if (head.version != kVersion && (head.version != 0 || !older.empty())) {
      return std::string("its ") + record + " file does not begin with '" + kMark + " " +
             std::to_string(kVersion) + " <host>', so this mpsfw did not write it" +
             (head.version == 0
                  ? ", nor is it an older mpsfw's session of a dead rank (" + older + ")"
                  : std::string()) +
             " (an older or newer mpsfw's session: quit its daemons with that version, or by "
             "hand, and remove it yourself)";
    }
    if (head.version == 0) continue;  // an older session: no host in its records
    if (head.host != session_host()) {
      return std::string("its ") + record + " file names host " + head.host + ", not this one (" +
             session_host() + ")";
    }
  }
  if (!recorded && !entries_of(dir).empty()) {
    return "it holds no ready, failed or starting file, as every mpsfw session does";
  }
  return "";
}

// "'a', 'b/c' and N more": what `paths` names, for a message.
std::string listed(const std::vector<std::string>& paths) {
  std::string text;
  for (size_t i = 0; i < paths.size() && i < 3; ++i) {
    text += (i == 0 ? "'" : ", '") + paths[i] + "'";
  }
  if (paths.size() > 3) text += " and " + std::to_string(paths.size() - 3) + " more";
  return text;
}

// What `dir` holds that a session never does, relative to it. A session
// holds our record files and gpu<N>/{pipe,log} folders, and these only the
// daemon's and our files (sockets, a FIFO, pid, lock and log files): no
// folders, no symbolic links.
std::vector<std::string> foreign_entries(const fs::path& dir) {
  std::vector<std::string> foreign;
  std::error_code ec;
  for (const auto& e : entries_of(dir)) {
    const std::string name = e.path().filename().string();
    const fs::file_status status = e.symlink_status(ec);
    if (record_name(name) && fs::is_regular_file(status)) continue;
    if (!gpu_folder_name(name) || !fs::is_directory(status)) {
      foreign.push_back(name);
      continue;
    }
    for (const auto& sub : entries_of(e.path())) {
      const std::string sub_name = name + "/" + sub.path().filename().string();
      if (!(sub.path().filename() == "pipe" || sub.path().filename() == "log") ||
          !fs::is_directory(sub.symlink_status(ec))) {
        foreign.push_back(sub_name);
        continue;
      }
      for (const auto& file : entries_of(sub.path())) {
        const fs::file_status type = file.symlink_status(ec);
        if (fs::is_directory(type) || fs::is_symlink(type)) {
          foreign.push_back(sub_name + "/" + file.path().filename().string());
        }
      }
    }
  }
  return foreign;
}

// Removes the entries foreign_entries allows, one by one (the records last,
// so that an interrupted removal leaves a folder still known as ours), then
// the folder. fs::remove takes a folder only when it is empty: whatever
// appeared meanwhile stays, and the Error names it.
void remove_entries(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : entries_of(dir)) {
    if (!gpu_folder_name(e.path().filename().string()) || !real_folder(e.path())) continue;
    for (const char* sub : {"pipe", "log"}) {
      const fs::path folder = e.path() / sub;
      if (!real_folder(folder)) continue;
      for (const auto& file : entries_of(folder)) {
        if (!fs::is_directory(file.symlink_status(ec))) fs::remove(file.path(), ec);
      }
      fs::remove(folder, ec);
    }
    fs::remove(e.path(), ec);
  }
  for (const char* record : {kReadyPartial, kStarting, kFailed, kReady}) {
    if (fs::is_regular_file(fs::symlink_status(dir / record, ec))) fs::remove(dir / record, ec);
  }
  ec.clear();
  if (!fs::remove(dir, ec) || ec) {
    std::vector<std::string> left;
    for (const auto& e : entries_of(dir)) left.push_back(e.path().filename().string());
    throw Error("MPS: could not remove " + dir.string() + " (" + ec.message() + ")" +
                (left.empty() ? "" : "; it still holds " + listed(left)));
  }
}

}  // namespace

void remove_session(const std::string& dir, double timeout_seconds, bool clients_released,
                    ExitWait* waited) {
  std::error_code ec;
  const fs::path path = folder_path(dir);
  if (!fs::exists(fs::symlink_status(path, ec))) return;
  const std::string why = why_not_ours(path);
  if (!why.empty()) throw Error("MPS: not removing " + dir + ": " + why + "; nothing was touched");
  // Every GPU's daemon gets its stop even when another's fails: one error
  // must not leave the rest running.
  std::string failed;
  for (const auto& gpu : entries_of(path)) {
    if (!gpu_folder_name(gpu.path().filename().string()) || !real_folder(gpu.path() / "pipe")) {
      continue;
    }
    try {
      stop_daemon({(gpu.path() / "pipe").string(), (gpu.path() / "log").string()}, timeout_seconds,
                  clients_released, waited);
    } catch (const std::exception& e) {
      if (failed.empty()) failed = e.what();
    }
  }
  if (!failed.empty()) throw Error("MPS: stopping the daemons of " + dir + ": " + failed);
  const std::vector<std::string> foreign = foreign_entries(path);
  if (!foreign.empty()) {
    throw Error("MPS: stopped the daemons of " + dir + " but did not remove it: it holds " +
                listed(foreign) + ", which mpsfw never writes there (move that away, then " +
                "remove the session with mpsctl stop --session " + dir + ")");
  }
  remove_entries(path);
}

namespace {
// <root>/mpsfw-mps-J-H -> <root>/<kind>-J-H
std::string beside_session(const std::string& dir, const std::string& kind) {
  const fs::path d(dir);
  std::string name = d.filename().string();
  if (name.rfind(kPrefix, 0) == 0) name = name.substr(std::string(kPrefix).size());
  return (d.parent_path() / (kind + "-" + name)).string();
}
}  // namespace

std::string kept_logs_dir(const std::string& dir) { return beside_session(dir, "mpsfw-logs"); }

std::string session_lock_path(const std::string& dir) { return beside_session(dir, "mpsfw-lock"); }

std::string session_host() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return path_safe(name);
}

std::string session_name(const std::string& job) {
  return kPrefix + path_safe(job) + "-" + session_host();
}

std::vector<std::string> list_sessions(const std::string& root, int* other_hosts) {
  std::vector<std::string> out;
  int others = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0 || !e.is_directory(ec)) continue;
    const std::string host = record_host(e.path());
    if (named_for_this_host(name) && (host.empty() || host == session_host())) {
      out.push_back(e.path().string());
    } else {
      ++others;
    }
  }
  std::sort(out.begin(), out.end());
  if (other_hosts != nullptr) *other_hosts = others;
  return out;
}

}  // namespace mpsfw::mps
