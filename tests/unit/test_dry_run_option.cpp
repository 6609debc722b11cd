// --dry-run on the command line: kept for a run, refused with the
// options that run nothing (--write-input, --describe, --list-keys), where it
// would otherwise be silently unused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/parse_error.hpp"
#include <mpsfw/core/input/command_line.hpp>

namespace mpsfw {
namespace {

using test::parse_error;

TEST(DryRunOption, SetForARun) {
  EXPECT_TRUE(parse_command_line({"in.h5", "--dry-run"}).dry_run);
  EXPECT_TRUE(parse_command_line({"--dry-run", "in.h5", "--set", "run.steps=5"}).dry_run);
  EXPECT_FALSE(parse_command_line({"in.h5"}).dry_run);
}

TEST(DryRunOption, RefusedWhereNothingRuns) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--dry-run", "--write-input", "x.h5"},
        std::vector<std::string>{"--dry-run", "--describe", "x.h5"},
        std::vector<std::string>{"--dry-run", "--list-keys"}}) {
    const std::string error = parse_error(args);
    EXPECT_NE(error.find("--dry-run checks a run"), std::string::npos) << args[1] << ": " << error;
  }
}

TEST(DryRunOption, NeedsAnInput) {
  EXPECT_NE(parse_error({"--dry-run"}).find("no input file given"), std::string::npos);
}

}  // namespace
}  // namespace mpsfw
