#pragma once
// "Did you mean": the candidates closest to a misspelt name, by edit
// distance, for errors that name an unknown key, option or solver.
#include <string>
#include <vector>

namespace mpsfw {

// The candidates closest to `name` in edits (insertions, deletions,
// substitutions, swaps of neighbours), at most `most` of them, if they are
// within a third of its length; none when nothing is that close. A name
// without a dot matches "group.name" exactly (the group left out).
std::vector<std::string> nearest_names(const std::string& name,
                                       const std::vector<std::string>& candidates, size_t most = 3);

// " (did you mean 'a' or 'b'?)", or "" without a near name.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace mpsfw
