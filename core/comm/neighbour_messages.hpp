#pragma once
// The one MPI neighbour-message engine of the grid halo (FieldHalos) and the
// particle exchange. A round:
//   post_receives()       every receive posted first
//   (the caller packs every outgoing message into send_buffer())
//   send()                staged to pinned host memory where MPI takes no
//                         device pointers (else the device synchronised: a
//                         send must not start before its pack), then posted
//   wait()                every message of the round; staged ones copied back
//   (the caller unpacks from receive_buffer())
// Messages are byte ranges of one send and one receive buffer in the fields'
// space, so a round is one pack, one unpack and, staged, one copy each way.
// Phases: "halo post", "halo pack" (the staging copy), "halo wait", "halo
// unpack" (the copy back).
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/device/timers.hpp>

namespace mpsfw {

class NeighbourMessages {
 public:
  struct Message {
    int rank = MPI_PROC_NULL;
    int tag = 0;
    std::int64_t offset = 0, bytes = 0;  // in the send or receive buffer
  };

  // `space`: where the buffers live (the fields' space). Device pointers go to
  // MPI only with `cuda_aware_mpi`.
  NeighbourMessages(MPI_Comm comm, Backend space, bool cuda_aware_mpi);
  // Completes a round still in flight (an exception between send and wait).
  ~NeighbourMessages();
  NeighbourMessages(const NeighbourMessages&) = delete;
  NeighbourMessages& operator=(const NeighbourMessages&) = delete;

  // The round's messages (MPI_PROC_NULL or zero bytes: none), and buffers
  // sized for them, 8-byte aligned. A message over MPI's int count is
  // refused here, not mid-run. Not during a round.
  void plan(std::vector<Message> receives, std::vector<Message> sends);
  void set_timers(PhaseTimers* timers) { timers_ = timers != nullptr ? timers : &untimed_; }

  void post_receives();
  void send();
  void wait();

  bool empty() const { return send_bytes_ == 0 && receive_bytes_ == 0; }
  void* send_buffer() { return send_.data(); }
  const void* receive_buffer() const { return receive_.data(); }
  bool staged() const { return staged_; }
  // "MPI, host memory", "MPI, staged through pinned host memory", or "MPI,
  // device memory (CUDA-aware)".
  std::string path() const;

 private:
  MPI_Comm comm_;
  Backend space_;
  bool staged_;
  std::vector<Message> receives_, sends_;
  std::int64_t send_bytes_ = 0, receive_bytes_ = 0;
  Array<double> send_, receive_;  // in space_
  void* send_host_ = nullptr;     // pinned staging
  void* receive_host_ = nullptr;
  std::vector<MPI_Request> requests_;
  bool in_flight_ = false;
  PhaseTimers untimed_;
  PhaseTimers* timers_ = &untimed_;
};

}  // namespace mpsfw
