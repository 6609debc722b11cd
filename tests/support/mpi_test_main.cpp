// GoogleTest main for tests that run under mpirun: every rank runs every test;
// rank 0 prints the usual report, the other ranks print only their failures;
// the exit code is non-zero if any rank failed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

namespace {

class FailurePrinter : public testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_,
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  const int mine = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  // ctest reports a run as skipped only when every test of every rank skipped
  // and none failed (tests/CMakeLists.txt matches this line): a failure beside
  // a skip stays a failure, a skip beside a pass stays visible in the output.
  const testing::UnitTest& u = *testing::UnitTest::GetInstance();
  const int all_skipped_here =
      u.test_to_run_count() > 0 && u.skipped_test_count() == u.test_to_run_count() ? 1 : 0;
  int all_skipped = 0;
  MPI_Allreduce(&all_skipped_here, &all_skipped, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0 && all_skipped && any == 0) std::printf("mpsfw: every test skipped\n");
  MPI_Finalize();
  return any;
}
