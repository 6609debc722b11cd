#pragma once
// The choices a user makes about halos between linked ranks (input keys
// run.halo, run.halo_sync, run.peer_wait_seconds): their words, parsed here
// with the rest of /run; the mechanisms they choose between live in core/comm
// (halo_transport.hpp, step_ordering.hpp, step_handshake.hpp).
#include <string>

namespace mpsfw {

// Auto: direct where possible, MPI elsewhere (and everywhere when any rank
// cannot map a peer's memory). Mpi: MPI for every face. Ipc: like Auto, but a
// rank that cannot map a peer's memory is an error instead of a fallback.
// SameGpu: like Auto between ranks of one GPU, MPI between GPUs.
enum class HaloTransport { Auto, Mpi, Ipc, SameGpu };

// "auto" | "mpi" | "ipc" | "same-gpu"; throws InputError otherwise.
HaloTransport parse_halo_transport(const std::string& text);
const char* to_string(HaloTransport t);

// How ranks of one GPU order their halos: Auto (GPU-side waits where every
// rank can, else a host barrier) or Barrier (a host barrier every step).
enum class HaloSync { Auto, Barrier };
// "auto" | "barrier"; throws InputError otherwise.
HaloSync parse_halo_sync(const std::string& text);
const char* to_string(HaloSync sync);

// How long a rank waits for a neighbour on its GPU before the job stops
// naming it, unless run.peer_wait_seconds says otherwise: far above any
// step's time.
constexpr double kDefaultPeerWaitSeconds = 120;

}  // namespace mpsfw
