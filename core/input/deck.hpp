#pragma once
// Decks: text files of key = value lines, the settings of a run. A deck is
// given with --set-file beside an input, or is the input itself
// (`solver run.deck`, its `solver = heat` line naming the workload): a run
// from a deck starts from the solver's defaults and has no datasets.
#include <string>
#include <vector>

#include <mpsfw/core/io/input_file.hpp>

namespace mpsfw {

// One group.key=value a line, as --set takes it (spaces around '=' allowed),
// blank lines and lines starting with '#' skipped. Appends the settings to
// `overrides` and "FILE:LINE" to `origins`. Throws InputError naming the file
// (and the line) when it is not a regular file (a FIFO would block the read
// forever), cannot be read, a line is not key=value or sets a state key
// (refuse_state_key).
void read_deck(const std::string& path, std::vector<std::string>* overrides,
               std::vector<std::string>* origins);

// The root keys `step` and `time` are a checkpoint's saved state, not
// settings: throws InputError naming `origin` when `assignment` sets one
// (only a checkpoint being written sets them, through Params directly).
void refuse_state_key(const std::string& assignment, const std::string& origin);

// Whether `path` is a deck rather than an HDF5 file: a regular text file whose
// first line that is not blank or a comment is key = value.
bool is_deck(const std::string& path);

// The input of a run: an HDF5 file's attributes, or for a deck none (and no
// datasets) with its settings inserted before `overrides`, so that --set-file
// and --set on the command line win over it. Throws InputError naming the
// file; a file that is neither says what an input may be.
InputAttributes read_input(const std::string& path, std::vector<std::string>* overrides,
                           std::vector<std::string>* origins);

}  // namespace mpsfw
