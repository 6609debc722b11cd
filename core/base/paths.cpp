#include "paths.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "atomic_file.hpp"
#include "error.hpp"

namespace mpsfw {
namespace {

namespace fs = std::filesystem;

// "a character device", ...: what a path is when it is not a regular file.
std::string kind_of(fs::file_type type) {
  switch (type) {
    case fs::file_type::directory:
      return "a folder";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::fifo:
      return "a FIFO (named pipe)";
    case fs::file_type::socket:
      return "a socket";
    default:
      return "not a regular file";
  }
}

// The absolute path with every existing link and "." / ".." resolved.
fs::path resolved(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path).lexically_normal() : p;
}

}  // namespace

std::string program_name(const char* argv0, const std::string& fallback) {
  const std::string called = argv0 != nullptr ? argv0 : "";
  const std::string name = called.substr(called.find_last_of('/') + 1);
  return name.empty() ? fallback : name;
}

std::string not_regular_kind(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status) || fs::is_regular_file(status)) return "";
  return kind_of(status.type());
}

void check_regular_or_absent(const std::string& path, const std::string& origin) {
  const std::string kind = not_regular_kind(path);
  if (kind.empty()) return;
  throw Error(origin + ": '" + path + "' exists and is " + kind +
              ", not a regular file; mpsfw replaces only regular files (choose another name)");
}

void check_can_create(const std::string& path, const std::string& origin) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(origin + ": '" + path + "' is a folder");
  for (const std::string& p : {path, partial_path(path)}) {
    const std::string kind = not_regular_kind(p);
    if (!kind.empty()) {
      throw InputError(origin + ": '" + p + "' exists and is " + kind +
                       ", not a regular file; mpsfw writes a new file and renames it into "
                       "place, which would replace it: choose another name");
    }
  }
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  if (!fs::is_directory(folder, ec)) {
    throw InputError(origin + ": folder '" + folder.string() + "' does not exist");
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    throw InputError(origin + ": cannot write in folder '" + folder.string() +
                     "': " + std::strerror(errno));
  }
}

bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec) && !ec;
  return resolved(a) == resolved(b);
}

void check_distinct_files(const std::vector<NamedPath>& files) {
  for (size_t i = 0; i < files.size(); ++i) {
    for (size_t j = i + 1; j < files.size(); ++j) {
      if (!same_file(files[i].path, files[j].path)) continue;
      const std::string shown = files[i].path == files[j].path
                                    ? "'" + files[i].path + "'"
                                    : "'" + files[i].path + "' (also '" + files[j].path + "')";
      throw InputError(files[i].origin + " and " + files[j].origin + " name one file, " + shown +
                       ": one would replace the other; choose different names");
    }
  }
}

}  // namespace mpsfw
