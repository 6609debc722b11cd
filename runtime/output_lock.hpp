#pragma once
// One writer per output: a run holds `<output>.lock` beside each file it
// writes, so a second job given the same output is refused before it starts
// instead of failing mid-run on the first's `.partial` or mixing snapshots
// into one file. The lock is flock(2) on that file, held while the run lasts:
// the kernel releases it when the process ends however it ends, so a lock
// left by a killed job is stale by construction and is taken over (with a
// warning naming the job that left it). The file holds the holder's host,
// PID and batch job id, which the refusal names. On NFS, Linux maps flock to
// NFS byte-range locks (lockd): jobs on different nodes exclude each other
// where the mount supports locking (not with `nolock`).
#include <string>
#include <utility>
#include <vector>

namespace mpsfw {

class OutputLocks {
 public:
  // `host`: this process's host name, written into each lock.
  explicit OutputLocks(std::string host) : host_(std::move(host)) {}
  ~OutputLocks();  // releases every lock: removes its file, then unlocks
  OutputLocks(const OutputLocks&) = delete;
  OutputLocks& operator=(const OutputLocks&) = delete;

  // Locks `output` (`origin` names the option, as in paths.hpp). Throws
  // InputError naming the lock file and the job holding it when another
  // process holds it; Error when the lock file cannot be made. A lock left
  // by an ended job adds a line to warnings().
  void take(const std::string& output, const std::string& origin);
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct Held {
    std::string path;
    int fd;
  };
  std::string host_;
  std::vector<Held> held_;
  std::vector<std::string> warnings_;
};

// Where the lock of `output` lives: "<output>.lock".
std::string lock_path_of(const std::string& output);

}  // namespace mpsfw
