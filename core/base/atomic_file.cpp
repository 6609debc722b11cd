#include "atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "error.hpp"
#include "paths.hpp"

namespace mpsfw {
namespace {

// fsync of the file or folder at `path`: 0, or the errno of what failed.
int sync_to_disk(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return errno;
  int error = ::fsync(fd) == 0 ? 0 : errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  return error;
}

}  // namespace

std::string partial_path(const std::string& path) { return path + ".partial"; }

void move_into_place(const std::string& partial, const std::string& path) {
  try {
    check_regular_or_absent(path, "renaming the finished '" + partial + "' into place");
  } catch (const Error&) {
    std::remove(partial.c_str());
    throw;
  }
  // The data first: a crash after the rename must find it on disk.
  const int unsynced = sync_to_disk(partial, O_RDONLY);
  if (unsynced != 0) {
    std::remove(partial.c_str());
    throw Error("'" + path + "': flushing the finished '" + partial +
                "' to disk failed: " + std::strerror(unsynced));
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(partial.c_str());
    throw Error("'" + path + "': renaming the finished '" + partial +
                "' into place failed: " + std::strerror(error));
  }
  // Then the folder, which holds the new name. A folder some file systems
  // cannot sync (EINVAL) or we may not read (EACCES) keeps the rename as
  // durable as the file system makes it.
  std::string folder = path.substr(0, path.find_last_of('/') + 1);
  if (folder.empty()) folder = ".";
  const int error = sync_to_disk(folder, O_RDONLY | O_DIRECTORY);
  if (error != 0 && error != EINVAL && error != EACCES) {
    throw Error("'" + path + "': flushing its folder '" + folder +
                "' to disk after the rename failed: " + std::strerror(error));
  }
}

void write_partial_text_file(const std::string& path, const std::string& text) {
  const std::string partial = partial_path(path);
  // Before opening: a FIFO would block the open, a device would take the text.
  check_regular_or_absent(path, "writing '" + partial + "'");
  check_regular_or_absent(partial, "writing '" + path + "'");
  std::FILE* f = std::fopen(partial.c_str(), "w");
  if (!f) throw Error("'" + path + "': cannot create '" + partial + "': " + std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int error = ok ? 0 : errno;
  if (std::fclose(f) != 0 && ok) {  // the flush can be what finds the disk full
    ok = false;
    error = errno;
  }
  if (!ok) {
    std::remove(partial.c_str());
    throw Error("'" + path + "': cannot write '" + partial +
                "': " + std::strerror(error != 0 ? error : EIO));
  }
}

void write_text_file_atomically(const std::string& path, const std::string& text) {
  write_partial_text_file(path, text);
  move_into_place(partial_path(path), path);
}

namespace {

std::string previous_path(const std::string& path) { return path + ".previous"; }

// Keeps the file at `path` (if any) as its previous_path, a second name of the
// same file, so that it can be put back after `path` was replaced. A file
// system without hard links gets a rename: `path` is then absent until its
// new file comes. Returns whether a file was kept.
bool keep_previous(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0) return false;
  const std::string kept = previous_path(path);
  std::remove(kept.c_str());  // left by a commit that was killed
  if (::link(path.c_str(), kept.c_str()) == 0 || std::rename(path.c_str(), kept.c_str()) == 0) {
    return true;
  }
  throw Error("'" + path + "': keeping the previous file as '" + kept +
              "' failed: " + std::strerror(errno));
}

// Undoes one file of a group: its previous file back at `path`, or none.
// Returns "" or what could not be undone.
std::string put_back(const std::string& path, bool kept) {
  const std::string previous = previous_path(path);
  if (!kept) {
    if (std::remove(path.c_str()) == 0 || errno == ENOENT) return "";
    return "; removing the new '" + path + "' failed (" + std::strerror(errno) + ")";
  }
  if (std::rename(previous.c_str(), path.c_str()) != 0) {
    return "; putting back the previous '" + path + "' failed (" + std::strerror(errno) +
           "): it is kept as '" + previous + "'";
  }
  // A rename between two names of one file (the path was never replaced)
  // does nothing: drop the second name.
  std::remove(previous.c_str());
  return "";
}

}  // namespace

void move_group_into_place(const std::vector<std::string>& paths) {
  const auto drop_partials = [&] {
    for (const std::string& p : paths) std::remove(partial_path(p).c_str());
  };
  try {
    for (const std::string& p : paths) {
      check_regular_or_absent(p, "renaming the finished '" + partial_path(p) + "' into place");
    }
  } catch (const Error&) {
    drop_partials();
    throw;
  }
  std::vector<bool> kept(paths.size(), false);
  size_t touched = 0;  // the files whose path may hold their new file
  try {
    for (size_t i = 0; i < paths.size(); ++i) {
      kept[i] = keep_previous(paths[i]);
      // The failing file counts too: move_into_place may fail after its rename.
      touched = i + 1;
      move_into_place(partial_path(paths[i]), paths[i]);
    }
  } catch (const Error& e) {
    drop_partials();
    std::string undo;
    for (size_t j = touched; j-- > 0;) undo += put_back(paths[j], kept[j]);
    throw Error(e.what() + undo);
  }
  for (size_t j = 0; j < paths.size(); ++j) {
    if (kept[j]) std::remove(previous_path(paths[j]).c_str());
  }
}

}  // namespace mpsfw
