// Output safety: paths that are not regular files are refused and
// never renamed over, two outputs naming one file are refused with both
// origins, and a file-size limit (EFBIG with SIGXFSZ ignored) is an error
// that keeps the previous file, for text files and HDF5 files alike, without
// a crash at exit.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <mpsfw/core/base/atomic_file.hpp>
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/paths.hpp>
#include <mpsfw/core/input/checkpoint.hpp>
#include <mpsfw/core/io/h5_io.hpp>

namespace mpsfw {
namespace {

// As the solver does, before any other HDF5 call of this program.
const bool kPrepared = (h5::prepare_library(), std::signal(SIGXFSZ, SIG_IGN), true);

std::string temp(const std::string& name) { return ::testing::TempDir() + name; }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_plain(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

bool is_fifo(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

// A FIFO at `path` (a fresh one): a non-regular file that is safe to aim at.
std::string fifo(const std::string& name) {
  const std::string path = temp(name);
  ::unlink(path.c_str());
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
  return path;
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(OutputPaths, DeviceAndFifoAreRefusedBeforeTheRun) {
  ASSERT_TRUE(kPrepared);
  EXPECT_NE(error_of([] { check_can_create("/dev/null", "--output /dev/null"); })
                .find("--output /dev/null: '/dev/null' exists and is a character device, not a "
                      "regular file"),
            std::string::npos);
  const std::string f = fifo("refused.fifo");
  EXPECT_NE(error_of([&] { check_can_create(f, "--report x"); }).find("is a FIFO (named pipe)"),
            std::string::npos);
  // Its .partial is checked too.
  const std::string g = fifo("taken.h5.partial");
  const std::string out = g.substr(0, g.size() - 8);
  EXPECT_NE(error_of([&] { check_can_create(out, "--output o"); }).find("taken.h5.partial"),
            std::string::npos);
  EXPECT_EQ(error_of([] { check_can_create(temp("fresh.h5"), "--output o"); }), "");
}

TEST(OutputPaths, NothingIsRenamedOverANonRegularFile) {
  const std::string f = fifo("kept.fifo");
  const std::string partial = partial_path(f);
  write_plain(partial, "finished");
  EXPECT_NE(error_of([&] { move_into_place(partial, f); }).find("is a FIFO"), std::string::npos);
  EXPECT_TRUE(is_fifo(f));
  EXPECT_NE(::access(partial.c_str(), F_OK), 0) << "the partial file is removed";
  // Neither opened (a FIFO would block) nor replaced by the text writer or HDF5.
  EXPECT_NE(error_of([&] { write_text_file_atomically(f, "{}"); }), "");
  EXPECT_NE(error_of([&] { h5::create_file(f); }), "");
  EXPECT_TRUE(is_fifo(f));
}

TEST(OutputPaths, SameFile) {
  const std::string a = temp("same_a.h5");
  write_plain(a, "a");
  EXPECT_TRUE(same_file(a, a));
  EXPECT_TRUE(same_file(temp("./same_a.h5"), a));
  const std::string link = temp("same_link.h5");
  ::unlink(link.c_str());
  ASSERT_EQ(::symlink(a.c_str(), link.c_str()), 0);
  EXPECT_TRUE(same_file(link, a));
  EXPECT_TRUE(same_file(temp("none.h5"), temp("sub/../none.h5")));
  EXPECT_FALSE(same_file(temp("none.h5"), temp("none.xmf")));
  EXPECT_FALSE(same_file("", ""));
}

TEST(OutputPaths, NumberedCheckpointNames) {
  EXPECT_TRUE(is_numbered_checkpoint_of("ck.h5", "ck.00000100.h5"));
  EXPECT_TRUE(is_numbered_checkpoint_of("ck.h5", "./ck.00000100.h5"));
  EXPECT_TRUE(is_numbered_checkpoint_of("./ck.h5", "ck.123456789.h5"));
  EXPECT_TRUE(is_numbered_checkpoint_of("dir.v2/ck", "dir.v2/ck.00000007"));
  EXPECT_FALSE(is_numbered_checkpoint_of("ck.h5", "ck.h5"));
  EXPECT_FALSE(is_numbered_checkpoint_of("ck.h5", "ck.100.h5"));  // fewer than 8 digits
  EXPECT_FALSE(is_numbered_checkpoint_of("ck.h5", "ck.0000010x.h5"));
  EXPECT_FALSE(is_numbered_checkpoint_of("ck.h5", "other.00000100.h5"));
  EXPECT_FALSE(is_numbered_checkpoint_of("ck.h5", "ck.from00000100.h5"));  // a resumed output
  EXPECT_FALSE(is_numbered_checkpoint_of("a/ck.h5", "b/ck.00000100.h5"));
  EXPECT_FALSE(is_numbered_checkpoint_of("", "ck.00000100.h5"));
}

TEST(OutputPaths, TwoOutputsOnOneFileNameBothOrigins) {
  EXPECT_EQ(error_of([] {
              check_distinct_files({{"--output o.h5", "o.h5"}, {"--report r.json", "r.json"}});
            }),
            "");
  EXPECT_EQ(error_of([] {
              check_distinct_files({{"--output o.h5", "o.h5"}, {"--report r.json", ""}});
            }),
            "");
  const std::string e = error_of([] {
    check_distinct_files({{"--output o.h5", "o.h5"},
                          {"--set run.checkpoint_file=c.h5", "c.h5"},
                          {"--report ./c.h5", "./c.h5"}});
  });
  EXPECT_EQ(e,
            "--set run.checkpoint_file=c.h5 and --report ./c.h5 name one file, 'c.h5' (also "
            "'./c.h5'): one would replace the other; choose different names");
  EXPECT_THROW(check_distinct_files({{"--output o.xmf", "o.xmf"}, {"--output o.xmf", "o.xmf"}}),
               InputError);
}

// Runs `f` with files limited to `bytes` (the soft limit, restored after).
template <class F>
void with_file_limit(rlim_t bytes, F&& f) {
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  struct rlimit small = old;
  small.rlim_cur = bytes;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  f();
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &old), 0);
}

TEST(OutputPaths, FileSizeLimitKeepsThePreviousTextFile) {
  const std::string path = temp("limited.json");
  write_plain(path, "previous");
  std::string e;
  with_file_limit(4096, [&] {
    e = error_of([&] { write_text_file_atomically(path, std::string(100000, 'x')); });
  });
  EXPECT_NE(e.find("cannot write '" + path + ".partial': File too large"), std::string::npos) << e;
  EXPECT_EQ(read_text(path), "previous");
  EXPECT_NE(::access(partial_path(path).c_str(), F_OK), 0);
}

TEST(OutputPaths, FileSizeLimitIsAnHdf5ErrorWithItsCause) {
  const std::string path = temp("limited.h5");
  write_plain(path, "previous");
  const std::string partial = partial_path(path);
  std::string e;
  with_file_limit(16384, [&] {
    e = error_of([&] {
      h5::Handle file = h5::create_file(partial);
      const std::vector<double> data(100000, 1.0);
      h5::write_array(file.get(), "data", {data.size()}, data.data());
      h5::close_file(file, partial);
    });
  });
  std::remove(partial.c_str());
  EXPECT_NE(e.find("File too large"), std::string::npos) << e;
  EXPECT_EQ(read_text(path), "previous");
  // The file whose close failed stays half closed inside HDF5 1.10; with
  // prepare_library() the program still ends normally (checked by ctest).
}

}  // namespace
}  // namespace mpsfw
