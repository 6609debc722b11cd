// A rank that stops arriving must not hang its neighbours on the same GPU
// (docs/mps.md), with the host standing in for the GPU: every rank on one
// made-up GPU, fields and signal blocks in host shared memory, a line of
// ranks along x taking steps as the heat solver's loop does (the step's
// handshake run by the caller, then the stop poll's all-reduce). Rank
// STOP_RANK stops itself (SIGSTOP) before its handshake of step STOP_STEP; the
// others' waits must run out after SECONDS and end the job through the
// driver's error path (MpiEnv::abort_job: the message, MPI_Abort). Each rank
// writes its process id to PID_DIR/<rank>.pid first, so the caller can kill
// what is left. Driven by peer_wait.sh.
//   peer_wait_probe PID_DIR STOP_RANK STOP_STEP SECONDS
#include <mpi.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <string>

#include "support/shared_window_memory.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/comm/field_halos.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/parallel/mpi_env.hpp>
#include <mpsfw/core/parallel/stop_request.hpp>

namespace mpsfw {
namespace {

void write_pid(const std::string& folder, int rank) {
  const std::string path = folder + "/" + std::to_string(rank) + ".pid";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw Error("peer_wait_probe: cannot write " + path);
  std::fprintf(f, "%ld\n", static_cast<long>(getpid()));
  std::fclose(f);
}

void run(const MpiEnv& env, const std::string& pid_dir, int stop_rank, long stop_step,
         double seconds) {
  write_pid(pid_dir, env.rank());
  const CartDecomposition d(MPI_COMM_WORLD, {4 * env.size(), 4, 4}, {env.size(), 1, 1},
                            {false, false, false});
  const FieldLayout layout(d.local_cells());
  const auto cells = static_cast<size_t>(layout.size());
  testing_support::SharedWindowMemory shared(env.node(), 2 * cells);
  FieldHalos halo(d, layout, HaloShape{}, Backend::Host, false, shared);
  halo.add_field<double>({shared.base(), shared.base() + cells});
  halo.connect(HaloTransport::Auto, {"node", "GPU-fake", {}}, HaloSync::Auto, HaloDelivery::Push);
  if (env.size() > 1 && halo.routes().ordering != HaloOrdering::GpuWaits) {
    throw Error("peer_wait_probe: the ranks do not order their steps by GPU-side waits");
  }
  halo.set_peer_wait({seconds, 0});
  StopPoll poll(MPI_COMM_WORLD);
  // The job ends from here, before the window's destructor (a collective the
  // stopped rank never joins).
  try {
    for (long step = 1;; ++step) {
      if (env.rank() == stop_rank && step == stop_step) std::raise(SIGSTOP);
      const StepHandshake handshake = halo.step_handshake();
      if (!handshake.empty()) host_mark_and_wait(handshake);
      halo.finish_step(Handshake::RunByCaller);
      poll.check(step);
    }
  } catch (const std::exception& e) {
    MpiEnv::abort_job(e.what());
  }
}

}  // namespace
}  // namespace mpsfw

int main(int argc, char** argv) {
  mpsfw::MpiEnv env(argc, argv);
  if (argc != 5) {
    if (env.rank() == 0)
      std::fprintf(stderr, "usage: %s PID_DIR STOP_RANK STOP_STEP SECONDS\n", argv[0]);
    return 2;
  }
  try {
    mpsfw::run(env, argv[1], std::stoi(argv[2]), std::stol(argv[3]), std::stod(argv[4]));
  } catch (const std::exception& e) {
    mpsfw::MpiEnv::abort_job(e.what());
  }
  return 0;
}
