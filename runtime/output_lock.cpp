#include "output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/driver/report.hpp>

namespace mpsfw {
namespace {

// The holder's line in a lock file, "" when empty or unreadable.
std::string holder_of(int fd) {
  char text[512];
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return "";
  std::string holder(text, static_cast<size_t>(n));
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
  return holder;
}

// Whether `fd` is still the file at `path`: a holder that finished removed
// it between our open and our flock, and a lock on a removed file guards
// nothing.
bool still_at(int fd, const std::string& path) {
  struct stat opened {
  }, named{};
  return ::fstat(fd, &opened) == 0 && ::stat(path.c_str(), &named) == 0 &&
         opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

}  // namespace

std::string lock_path_of(const std::string& output) { return output + ".lock"; }

void OutputLocks::take(const std::string& output, const std::string& origin) {
  const std::string path = lock_path_of(output);
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      throw Error(origin + ": cannot create the lock file '" + path + "': " + std::strerror(errno));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      const std::string holder = holder_of(fd);
      ::close(fd);
      if (error == EWOULDBLOCK) {
        throw InputError(origin + ": '" + output + "' is being written by another run (" +
                         (holder.empty() ? "starting" : holder) + "; lock file '" + path +
                         "'); give this run other output names or wait for that one to end");
      }
      throw Error(origin + ": cannot lock '" + path + "': " + std::strerror(error));
    }
    if (!still_at(fd, path)) {
      ::close(fd);
      continue;
    }
    const std::string previous = holder_of(fd);
    if (!previous.empty()) {
      warnings_.push_back("took over the lock '" + path + "' of a run that ended without " +
                          "removing it (" + previous + ")");
    }
    const std::string job = batch_job_id();
    const std::string me = "host " + host_ + ", PID " + std::to_string(::getpid()) +
                           (job.empty() ? "" : ", job " + job) + "\n";
    if (::ftruncate(fd, 0) != 0 ||
        ::pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
      const int error = errno;
      ::unlink(path.c_str());
      ::close(fd);
      throw Error(origin + ": cannot write the lock file '" + path + "': " + std::strerror(error));
    }
    held_.push_back({path, fd});
    return;
  }
}

OutputLocks::~OutputLocks() {
  // Removed while still locked: a run waiting on this lock then finds the
  // file gone (still_at) and locks a new one.
  for (const Held& h : held_) {
    ::unlink(h.path.c_str());
    ::close(h.fd);
  }
}

}  // namespace mpsfw
