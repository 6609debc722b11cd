#pragma once
// mpsfw::Session: one rank's runtime as one object, in the order that matters
// (a CUDA context made before the node's MPS daemon is up runs without MPS,
// and an MPI library may touch CUDA inside MPI_Init):
//
//   int main(int argc, char** argv) {
//     mpsfw::Session session(argc, argv);  // command line, /mps, MPS up, MPI up
//     return session.run([&] {
//       const mpsfw::DeviceBinding& device = session.bind(mpsfw::Backend::Auto);
//       ... build and run the solver on `device` over session.world() ...
//       return 0;
//     });  // device released, the node's MPS daemons stopped, MPI finalized
//   }
//
// Errors: the constructor never throws; what it found (a bad option, an
// unreadable input, a failed MPS bring-up) run() reports once, on rank 0, and
// every rank returns 1. Inside run(), an error all ranks agreed on
// (run_collectively, AgreedError) ends every rank with 1; an error of one rank
// aborts the job (MPI_Abort) with what the MPS server's log says about it, so
// no rank is left waiting. Without run(), the destructor tears down (all
// ranks must reach it) or, while an exception unwinds, aborts the job.
#include <mpi.h>

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <string>

#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/driver/report.hpp>
#include <mpsfw/core/input/command_line.hpp>
#include <mpsfw/core/io/input_file.hpp>
#include <mpsfw/core/parallel/mpi_env.hpp>
#include <mpsfw/mps/mps_config.hpp>
#include <mpsfw/mps/node_session.hpp>

namespace mpsfw {

class Session {
 public:
  // Parses the command line (core/input/command_line.hpp; `program` names the
  // executable in its usage text) and reads the input's attributes.
  Session(int& argc, char**& argv, const std::string& program = "solver");
  // From code: `command_line.input` may be empty (no input file); its mps.*
  // overrides configure MPS.
  Session(int& argc, char**& argv, CommandLine command_line);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs `body` and maps its end to an exit code (see above); tears down
  // after it unless it did so itself (finish()).
  int run(const std::function<int()>& body);

  // Collective, before bind: under mps.active_thread_percentage = balanced,
  // this rank's MPS cap in proportion to `work` among the ranks on its GPU
  // (NodeSession::balance_caps); nothing otherwise.
  void balance_mps_caps(double work);
  // Collective: binds this rank's device (`requested` Auto takes the GPU where
  // one is visible; DeviceBinding::crowding warns when the node's ranks
  // outnumber the cores they may run on) and verifies, node by node, that
  // every rank meant for MPS is a client of its GPU's server. The command
  // line's options for Kokkos go to Kokkos (an error on another backend).
  const DeviceBinding& bind(Backend requested);
  // Collective: releases the device (free device memory first) and stops the
  // MPS daemons this job started. Idempotent; run() and the destructor call it.
  void finish();
  // Collective: what MPS did (one line, details, node 0's ranks), for the
  // summary and run.json. After finish() it includes the teardown.
  void add_mps_to_report(RunReport* report) const;

  const CommandLine& command_line() const { return command_line_; }
  // The program and its arguments as given (before MPI_Init saw them).
  const std::string& command_text() const { return command_text_; }
  // The input's attributes, read once before MPI_Init; nullptr without an input.
  const InputAttributes* input() const { return input_.get(); }
  const DeviceBinding& device() const { return device_; }
  const mps::NodeSession& mps() const { return node_session_; }
  MPI_Comm world() const { return env_.world(); }
  MPI_Comm node() const { return env_.node(); }
  int rank() const { return env_.rank(); }
  int size() const { return env_.size(); }
  int node_rank() const { return env_.node_rank(); }
  int node_size() const { return env_.node_size(); }
  const std::string& host() const { return env_.host(); }

 private:
  struct Start;
  static Start prepare(CommandLine command_line, std::string error);
  static Start parse(int argc, char** argv, const std::string& program);
  Session(int& argc, char**& argv, Start start);
  // After MPI_Init: the errors found so far and the deferred MPS bring-up,
  // agreed on by every rank; kept for run() to report.
  void settle();

  CommandLine command_line_;
  std::string command_text_;
  std::string early_error_;
  bool usage_error_ = false;  // early_error_ is the command line's
  std::unique_ptr<InputAttributes> input_;
  mps::NodeSession node_session_;
  std::chrono::steady_clock::time_point mpi_init_start_;  // mps::MpsStep::MpiInit
  MpiEnv env_;
  DeviceBinding device_;
  bool bound_ = false;
  std::exception_ptr pending_;
  enum class End { Running, Finished, Abandoned } end_ = End::Running;
};

}  // namespace mpsfw
