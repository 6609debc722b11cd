// mps_fault_probe: a real GPU fault under MPS, for scripts/device_mps_check.sh.
// Every rank brings up the node's MPS session exactly as apps/solver.cpp does
// (before_mpi, after_mpi, bind_device through the gate, verify), then keeps its
// GPU busy; after --after seconds rank --fault-rank writes through a null
// pointer in a kernel. main() ends the job as the solver does, so its message
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

#include "core/collective.hpp"
#include "core/cuda_check.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/mpi_env.hpp"
#include "mps/launcher.hpp"
#include "mps/mps_config.hpp"
#include "mps/node_session.hpp"

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
  mps::MpsConfig config;
  if (early_error.empty()) {
    config = mps::read_mps_config("", {"mps.enable=on"}, {"mps_fault_probe"}, &early_error);
  }
  mps::NodeSession session = mps::NodeSession::before_mpi(config, mps::detect_launcher());

  MpiEnv env(argc, argv);
  try {
    run_collectively(env.world(), [&] {
      if (!early_error.empty()) throw InputError(early_error);
      session.after_mpi(env.node());
    });
    DeviceBinding device;
    run_collectively(env.world(), [&] {
      device = bind_device(Backend::Cuda, env.node_rank(), env.node_size(), session.cuda_gate());
    });
    run_collectively(env.world(), [&] { session.verify(env.node(), device); });
    if (env.rank() == 0) {
      std::printf("probe: %d ranks, MPS %s, rank %d faults after %.1f s\n", env.size(),
                  session.status().state.c_str(), options.fault_rank, options.after_seconds);
      std::fflush(stdout);
    }
    busy_until_fault(options, env.rank());
    release_device(device);
    session.teardown(env.node());
    if (env.rank() == 0) std::printf("probe: no fault surfaced\n");
    return 0;
  } catch (const AgreedError& e) {
    if (env.rank() == 0) std::fprintf(stderr, "mpsfw: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    // As apps/solver.cpp: the error plus what the MPS server says about it.
    const std::string report = session.fault_report(e.what());
    keep_server_log(options.keep_log.empty() ? "" : options.keep_log + "." + std::to_string(env.rank()));
    MpiEnv::abort_job(e.what() + report);
  }
}
