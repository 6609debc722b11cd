#include "node_roll_call.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "process.hpp"
#include "session_dir.hpp"
#include <mpsfw/core/base/error.hpp>

namespace mpsfw::mps {

namespace {

bool read_line(const std::string& path, std::string* line) {
  std::ifstream in(path);
  return static_cast<bool>(std::getline(in, *line));
}

// Written under another name, then renamed: a reader sees all of it or none.
void write_whole(const std::string& path, const std::string& text) {
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial);
    out << text << "\n";
    if (!out) throw Error("mpsfw-run: cannot write " + partial);
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    throw Error("mpsfw-run: cannot rename " + partial + " to " + path);
  }
}

}  // namespace

NodeRollCall::NodeRollCall(const std::string& root, const std::string& job, int local_rank,
                           int local_size)
    : dir_(root + "/mpsfw-run-" + session_name(job).substr(std::string("mpsfw-mps-").size())),
      local_rank_(local_rank),
      local_size_(local_size),
      launcher_(::getppid()) {
  if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) {
    throw Error("mpsfw-run: cannot create " + dir_);
  }
}

std::string NodeRollCall::file(int rank, const char* what) const {
  return dir_ + "/rank" + std::to_string(rank) + "." + what;
}

void NodeRollCall::arrive() { write_whole(file(local_rank_, "pid"), std::to_string(getpid())); }

void NodeRollCall::depart(const RankEnd& end) {
  // The folder is gone when the node's first rank gave up waiting (its
  // program failed) and reported this rank as still running: nothing to say.
  std::ostringstream line;
  line << "exit " << end.exit_code << " client " << end.client << " pid " << end.pid;
  try {
    write_whole(file(local_rank_, "done"), line.str());
  } catch (const Error&) {
    std::error_code ec;
    if (std::filesystem::is_directory(dir_, ec)) throw;
  }
}

std::vector<RankEnd> NodeRollCall::wait_for_all(double arrive_seconds,
                                                const std::function<bool()>& give_up) const {
  std::vector<RankEnd> ends;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < local_size_; ++r) {
    RankEnd end;
    end.local_rank = r;
    for (;;) {
      std::string line;
      if (read_line(file(r, "done"), &line)) {
        std::istringstream in(line);
        std::string word;
        in >> word >> end.exit_code >> word >> end.client >> word >> end.pid;
        break;
      }
      std::string pid;
      const bool arrived = read_line(file(r, "pid"), &pid);
      const double waited =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (arrived ? !process_alive(std::stol(pid))
                  : waited > arrive_seconds || !process_alive(launcher_)) {
        break;  // killed, or never came: exit_code stays kKilled
      }
      if (give_up && give_up()) {
        end.exit_code = kStillRunning;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ends.push_back(end);
  }
  return ends;
}

void NodeRollCall::remove_when_all_gone(double arrive_seconds) const {
  int ends[2];
  if (::pipe(ends) != 0) throw Error("mpsfw-run: pipe failed");
  const pid_t child = ::fork();
  if (child < 0) throw Error("mpsfw-run: fork failed");
  if (child == 0) {
    ::setsid();
    // Nothing of the wrapper's held open: not the launcher's output pipes
    // (it waits for them to close), not the MPS watchdog's pipe (its end of
    // file is what stops the daemons).
    const int null = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
    std::vector<int> open;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
      open.push_back(std::atoi(e.path().filename().c_str()));
    }
    for (int fd : open) {
      if (fd > 2 && fd != ends[0]) ::close(fd);
    }
    char byte;
    while (::read(ends[0], &byte, 1) > 0) {
    }                                         // end of file: this rank's wrapper has ended
    if (::access(dir_.c_str(), F_OK) == 0) {  // else it removed the folder itself
      wait_for_all(arrive_seconds);
      remove();
    }
    ::_exit(0);
  }
  ::close(ends[0]);
  // Held by this wrapper only: not by the program it runs (closed at exec).
  ::fcntl(ends[1], F_SETFD, FD_CLOEXEC);
}

void NodeRollCall::remove() const {
  for (int r = 0; r < local_size_; ++r) {
    for (const char* what : {"pid", "done"}) std::remove(file(r, what).c_str());
  }
  ::rmdir(dir_.c_str());  // only if empty: nothing of anyone else's goes
}

}  // namespace mpsfw::mps
