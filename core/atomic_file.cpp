#include "atomic_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "error.hpp"
#include "paths.hpp"

namespace mpsfw {

std::string partial_path(const std::string& path) { return path + ".partial"; }

void move_into_place(const std::string& partial, const std::string& path) {
  try {
    check_regular_or_absent(path, "renaming the finished '" + partial + "' into place");
  } catch (const Error&) {
    std::remove(partial.c_str());
    throw;
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(partial.c_str());
    throw Error("'" + path + "': renaming the finished '" + partial +
                "' into place failed: " + std::strerror(error));
  }
}

void write_text_file_atomically(const std::string& path, const std::string& text) {
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
  move_into_place(partial, path);
}

}  // namespace mpsfw
