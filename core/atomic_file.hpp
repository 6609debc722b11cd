#pragma once
// Output files are complete or absent: written under `<path>.partial`, then
// renamed into place (a rename within one folder replaces the file at once).
#include <string>

namespace mpsfw {

std::string partial_path(const std::string& path);  // path + ".partial"
// Renames `partial` onto `path`; on failure removes `partial` and throws
// Error naming `path` and why. A `path` that exists and is not a regular
// file (a device such as /dev/null, a FIFO) is never replaced: an error too.
void move_into_place(const std::string& partial, const std::string& path);
// `text` into `path` through its partial file; a full disk (ENOSPC) or a
// file-size limit (EFBIG, with SIGXFSZ ignored) found by a write or the final
// flush is an error too, and leaves nothing behind: the previous `path` stays.
void write_text_file_atomically(const std::string& path, const std::string& text);

}  // namespace mpsfw
