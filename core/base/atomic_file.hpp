#pragma once
// Output files are complete or absent: written under `<path>.partial`, then
// flushed to disk and renamed into place (a rename within one folder replaces
// the file at once; the flush first means a crash of the node cannot leave
// the final name on an empty or partly written file).
#include <string>
#include <vector>

namespace mpsfw {

std::string partial_path(const std::string& path);  // path + ".partial"
// Flushes `partial` to disk (fsync), renames it onto `path` and flushes the
// folder, so the new name survives a crash too. Every committed file goes
// through here. On failure removes `partial` and throws Error naming `path`
// and why. A `path` that exists and is not a regular file (a device such as
// /dev/null, a FIFO) is never replaced: an error too.
void move_into_place(const std::string& partial, const std::string& path);
// `text` into `path` through its partial file; a full disk (ENOSPC) or a
// file-size limit (EFBIG, with SIGXFSZ ignored) found by a write or the final
// flush is an error too, and leaves nothing behind: the previous `path` stays.
void write_text_file_atomically(const std::string& path, const std::string& text);
// The first half of write_text_file_atomically: `text` into partial_path(path)
// only, for a file that goes into place with others (move_group_into_place).
void write_partial_text_file(const std::string& path, const std::string& text);

// Moves the partial file of each of `paths` into place, in order, as one
// commit: afterwards the paths hold all their new files or all their previous
// ones (a crash in between can still leave some new, some previous). Every
// path is checked before anything moves; each previous file is kept as
// `<path>.previous` until all moved, and put back if a later move fails. On
// failure no partial file is left and Error says which path failed (and
// anything that could not be put back).
void move_group_into_place(const std::vector<std::string>& paths);

}  // namespace mpsfw
