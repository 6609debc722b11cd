#pragma once
// Output files are complete or absent: written under `<path>.partial`, then
// renamed into place (a rename within one folder replaces the file at once).
#include <string>

namespace mpsfw {

std::string partial_path(const std::string& path);  // path + ".partial"
// Renames `partial` onto `path`; on failure removes `partial` and throws
// Error naming `path` and why.
void move_into_place(const std::string& partial, const std::string& path);
// `text` into `path` through its partial file; a full disk found by the
// final flush is an error too, and leaves nothing behind.
void write_text_file_atomically(const std::string& path, const std::string& text);

}  // namespace mpsfw
