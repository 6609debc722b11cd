// The MPS helper finds its daemons by scanning /proc (daemons_of) while other
// processes on the node come and go. A process reaped while its /proc files
// are read makes read() fail with ESRCH, which libstdc++'s filebuf turns into
// an exception: the scan must take such a process as gone instead of
// failing the session (seen once under load: the node leader failed with
// "basic_filebuf::underflow error reading the file: No such process").
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <mpsfw/mps/control.hpp>

namespace mpsfw::mps {
namespace {

TEST(ProcScan, DaemonsOfTakesProcessesThatEndWhileReadAsGone) {
  std::atomic<bool> stop{false};
  std::atomic<long> children{0};
  // Short-lived children (0-63 us), reaped at once, from a few threads: some
  // end while the scan reads them.
  const auto churn = [&] {
    for (unsigned n = 0; !stop.load(); ++n) {
      const pid_t pid = fork();
      if (pid == 0) {
        usleep(n % 64);
        _exit(0);
      }
      if (pid > 0) {
        waitpid(pid, nullptr, 0);
        ++children;
      }
    }
  };
  std::vector<std::thread> churners;
  for (int t = 0; t < 3; ++t) churners.emplace_back(churn);
  int scans = 0;
  std::string error;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < end) {
    try {
      EXPECT_TRUE(daemons_of("/nonexistent/mpsfw-test-pipe").empty());
      ++scans;
    } catch (const std::exception& e) {
      error = e.what();
      break;
    }
  }
  stop = true;
  for (std::thread& t : churners) t.join();
  EXPECT_EQ(error, "") << "after " << scans << " scans and " << children.load() << " children";
  EXPECT_GT(scans, 0);
  std::printf("%d scans of /proc beside %ld short-lived children\n", scans, children.load());
}

}  // namespace
}  // namespace mpsfw::mps
