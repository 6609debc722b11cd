// Files committed together (move_group_into_place): all new or all
// previous, also when the second rename fails after the first succeeded.
#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <mpsfw/core/base/atomic_file.hpp>
#include <mpsfw/core/base/error.hpp>

namespace mpsfw {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

class OutputGroupTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string name = fs::temp_directory_path().string() + "/mpsfw_output_group_XXXXXX";
    ASSERT_NE(mkdtemp(name.data()), nullptr);
    dir_ = name;
    a_ = dir_ + "/O.h5";
    b_ = dir_ + "/O.xmf";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Nothing but the pair (and what the test put there) is left in the folder.
  void expect_only(std::initializer_list<std::string> names) const {
    size_t n = 0;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      ++n;
      const std::string name = entry.path().filename().string();
      EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << "left: " << name;
    }
    EXPECT_EQ(n, names.size());
  }

  std::string dir_, a_, b_;
};

TEST_F(OutputGroupTest, NewPairReplacesThePreviousOne) {
  write_text(a_, "old a");
  write_text(b_, "old b");
  write_text(partial_path(a_), "new a");
  write_partial_text_file(b_, "new b");
  move_group_into_place({a_, b_});
  EXPECT_EQ(read_text(a_), "new a");
  EXPECT_EQ(read_text(b_), "new b");
  expect_only({"O.h5", "O.xmf"});
}

// rename(folder, file) fails (ENOTDIR) after the check of the paths passed:
// the first file, already in place, must go back.
TEST_F(OutputGroupTest, SecondRenameFailingPutsTheFirstBack) {
  for (const bool previous : {true, false}) {
    SCOPED_TRACE(previous ? "with a previous pair" : "without a previous O.h5");
    fs::remove(a_);
    if (previous) write_text(a_, "old a");
    write_text(b_, "old b");
    write_text(partial_path(a_), "new a");
    fs::create_directory(partial_path(b_));
    try {
      move_group_into_place({a_, b_});
      ADD_FAILURE() << "no Error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("'" + b_ + "': renaming"), std::string::npos)
          << e.what();
    }
    if (previous) {
      EXPECT_EQ(read_text(a_), "old a");
    } else {
      EXPECT_FALSE(fs::exists(a_)) << "the new O.h5 stayed without its O.xmf";
    }
    EXPECT_EQ(read_text(b_), "old b");
    if (previous) {
      expect_only({"O.h5", "O.xmf"});
    } else {
      expect_only({"O.xmf"});
    }
  }
}

TEST_F(OutputGroupTest, PathThatIsNoFileMovesNothing) {
  write_text(a_, "old a");
  fs::create_directory(b_);
  write_text(partial_path(a_), "new a");
  write_text(partial_path(b_), "new b");
  try {
    move_group_into_place({a_, b_});
    ADD_FAILURE() << "no Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'" + b_ + "' exists and is a folder"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_text(a_), "old a");
  expect_only({"O.h5", "O.xmf"});
}

}  // namespace
}  // namespace mpsfw
