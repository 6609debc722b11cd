#pragma once
// Checks on output paths, made before a run starts so a typo costs no compute
// and no file is lost: outputs are written as `<path>.partial` and renamed
// into place (atomic_file.hpp), so a path must be free for a regular file and
// no two outputs may be one file.
#include <string>
#include <vector>

namespace mpsfw {

// Throws InputError (prefixed by `origin`, e.g. "--output out/x.h5") unless a
// file can be created at `path`: its folder exists and is writable, and
// neither `path` nor its `.partial` file exists as anything but a regular
// file (a folder, a device such as /dev/null, a FIFO, a socket): renaming a
// finished file onto it would replace it.
void check_can_create(const std::string& path, const std::string& origin);

// Throws Error (prefixed by `origin`) when `path` exists and is not a
// regular file: the last guard before a rename onto it.
void check_regular_or_absent(const std::string& path, const std::string& origin);

// "" when `path` is absent or a regular file (links followed), else what it
// is: "a folder", "a FIFO (named pipe)", "a character device", ...
std::string not_regular_kind(const std::string& path);

// The name a program was called by (argv[0] without its folder), for its
// help and errors: mpsfw-solver when installed, solver in the build tree;
// `fallback` when argv[0] is empty.
std::string program_name(const char* argv0, const std::string& fallback);

// True when both paths name one file: both exist and are the same file (also
// through links), or they are the same path once made absolute and resolved
// ("./a.h5" and "a.h5").
bool same_file(const std::string& a, const std::string& b);

// A file a run writes and what named it: {"--report r.json", "r.json"},
// {"in.h5: attribute /run/checkpoint_file", "ck.h5"}.
struct NamedPath {
  std::string origin;
  std::string path;
};

// Throws InputError naming both origins and the path when two entries of
// `files` are one file (same_file), so that one output would replace another.
// Empty paths are skipped.
void check_distinct_files(const std::vector<NamedPath>& files);

}  // namespace mpsfw
