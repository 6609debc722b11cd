// mps_fault_probe: a real GPU fault under MPS, for scripts/device_mps_check.sh.
// Every rank brings up the node's MPS session through mpsfw::Session as
// apps/solver does (bind verifies the clients), then keeps its GPU busy;
// after --after seconds rank --fault-rank writes through a null pointer in a
// kernel. Session::run ends the job as it does for the solver, so its message
// shows what a user would see: the CUDA error plus the MPS server's account
// of the fault, naming the faulting rank.
//
//   mpirun -np N mps_fault_probe [--fault-rank R] [--after S] [--seconds S]
//                                [--keep-log FILE]
// --keep-log copies this rank's server.log before the job ends (the session's
// folders are removed with it).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/cuda_check.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/runtime/session.hpp>

namespace {

using namespace mpsfw;

struct Options {
  int fault_rank = 1;
  double after_seconds = 2;
  double seconds = 20;
  std::string keep_log;
};

Options parse(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i + 1 >= args.size()) throw InputError(args[i] + ": missing value");
    const std::string& a = args[i];
    const std::string v = args[++i];
    if (a == "--fault-rank") {
      o.fault_rank = std::stoi(v);
    } else if (a == "--after") {
      o.after_seconds = std::stod(v);
    } else if (a == "--seconds") {
      o.seconds = std::stod(v);
    } else if (a == "--keep-log") {
      o.keep_log = v;
    } else {
      throw InputError("unknown option '" + a + "'");
    }
  }
  return o;
}

__global__ void spin(double* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = data[i];
  for (int k = 0; k < 2000; ++k) x = x * 0.999 + 1e-3;
  data[i] = x;
}

__global__ void write_through_null(double* nowhere) { nowhere[threadIdx.x] = 1.0; }

void keep_server_log(const std::string& to) {
  const char* dir = std::getenv("CUDA_MPS_LOG_DIRECTORY");
  if (to.empty() || !dir) return;
  std::ifstream in(std::string(dir) + "/server.log");
  std::ofstream out(to);
  out << in.rdbuf();
}

void busy_until_fault(const Options& o, int rank) {
  const int n = 1 << 20;
  double* data = nullptr;
  MPSFW_CUDA_CHECK(cudaMalloc(&data, n * sizeof(double)));
  MPSFW_CUDA_CHECK(cudaMemset(data, 0, n * sizeof(double)));
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  bool faulted = false;
  while (elapsed() < o.seconds) {
    spin<<<n / 256, 256>>>(data, n);
    MPSFW_CUDA_CHECK_LAUNCH();
    if (rank == o.fault_rank && !faulted && elapsed() >= o.after_seconds) {
      std::fprintf(stderr, "probe: rank %d writes through a null pointer now\n", rank);
      std::fflush(stderr);
      write_through_null<<<1, 32>>>(nullptr);
      MPSFW_CUDA_CHECK_LAUNCH();
      faulted = true;
    }
    MPSFW_CUDA_CHECK(cudaDeviceSynchronize());
  }
  MPSFW_CUDA_CHECK(cudaFree(data));
}

}  // namespace

int main(int argc, char** argv) {
  std::string early_error;
  Options options;
  try {
    options = parse(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    early_error = e.what();
  }
  CommandLine command_line;
  command_line.overrides = {"mps.enable=on"};
  command_line.origins = {"mps_fault_probe"};
  Session session(argc, argv, command_line);
  // As apps/solver: Session::run ends a failing rank's job with MPI_Abort and
  // what the MPS server says about the fault.
  return session.run([&] {
    run_collectively(session.world(), [&] {
      if (!early_error.empty()) throw InputError(early_error);
    });
    session.bind(Backend::Cuda);
    if (session.rank() == 0) {
      std::printf("probe: %d ranks, MPS %s, rank %d faults after %.1f s\n", session.size(),
                  mps::to_string(session.mps().status().state), options.fault_rank,
                  options.after_seconds);
      std::fflush(stdout);
    }
    try {
      busy_until_fault(options, session.rank());
    } catch (const std::exception&) {
      keep_server_log(
          options.keep_log.empty() ? "" : options.keep_log + "." + std::to_string(session.rank()));
      throw;
    }
    session.finish();
    if (session.rank() == 0) std::printf("probe: no fault surfaced\n");
    return 0;
  });
}
