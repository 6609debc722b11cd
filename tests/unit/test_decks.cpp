// Decks (--set-file) and the saved state's keys on the command line: a deck
// is read only if it is a regular file (a FIFO nobody writes would block the
// read forever), its paths are kept (no output may replace one), and `step`
// and `time` are refused from --set and decks alike.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "support/parse_error.hpp"
#include <mpsfw/core/input/command_line.hpp>

namespace mpsfw {
namespace {

using test::parse_error;

// A fresh path in the test's folder, removed again at the end.
struct TempPath {
  std::string path;
  explicit TempPath(const std::string& name)
      : path("decks_test_" + std::to_string(::getpid()) + "_" + name) {}
  ~TempPath() { std::remove(path.c_str()); }
};

TEST(Decks, PathsAreKept) {
  TempPath deck("a.txt");
  std::ofstream(deck.path) << "run.steps = 3\n";
  const CommandLine c = parse_command_line({"in.h5", "--set-file", deck.path});
  EXPECT_EQ(c.decks, (std::vector<std::string>{deck.path}));
  EXPECT_EQ(c.overrides, (std::vector<std::string>{"run.steps=3"}));
  EXPECT_EQ(c.origins, (std::vector<std::string>{deck.path + ":1"}));
}

TEST(Decks, AFifoIsRefusedUnread) {
  TempPath fifo("fifo");
  ASSERT_EQ(::mkfifo(fifo.path.c_str(), 0600), 0);
  const std::string error = parse_error({"in.h5", "--set-file", fifo.path});
  EXPECT_NE(error.find(fifo.path + ": is a FIFO (named pipe), not a regular file"),
            std::string::npos)
      << error;
}

TEST(Decks, AFolderIsRefused) {
  EXPECT_NE(parse_error({"in.h5", "--set-file", "."}).find("is a folder, not a regular file"),
            std::string::npos);
}

TEST(StateKeys, RefusedFromSetAndDecks) {
  EXPECT_NE(parse_error({"ck.h5", "--set", "step=5"})
                .find("--set step=5: 'step' is the step of a checkpoint's saved state"),
            std::string::npos);
  EXPECT_NE(parse_error({"ck.h5", "--set=time=2.5"})
                .find("--set time=2.5: 'time' is the time of a checkpoint's saved state"),
            std::string::npos);
  TempPath deck("state.txt");
  std::ofstream(deck.path) << "# from a describe\nrun.steps=9\nstep = 3000\n";
  EXPECT_NE(parse_error({"ck.h5", "--set-file", deck.path})
                .find(deck.path + ":3: 'step' is the step of a checkpoint's saved state"),
            std::string::npos);
  // Keys that merely contain the words are settings.
  EXPECT_EQ(parse_error({"ck.h5", "--set", "run.steps=5", "--set", "md.timestep=1"}), "");
}

}  // namespace
}  // namespace mpsfw
