#pragma once
// Checks on output paths, made before a run starts so a typo costs no compute.
#include <string>

namespace mpsfw {

// Throws InputError (prefixed by `origin`, e.g. "--output out/x.h5") unless a
// file can be created at `path`: its folder exists and is writable, and `path`
// is not a folder.
void check_can_create(const std::string& path, const std::string& origin);

// True when both paths exist and name the same file.
bool same_file(const std::string& a, const std::string& b);

}  // namespace mpsfw
