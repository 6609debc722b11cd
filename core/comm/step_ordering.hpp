#pragma once
// How linked ranks (same GPU, or peer GPUs) order their steps, decided in one
// place for every exchange (heat's pushes, FieldHalos' pulls, MD's ghosts:
// the peer-link protocol, peer_links.hpp).
//
// Step s reads buffer s%2 and writes the other, so two orderings keep a
// same-GPU halo correct: it is read only after the neighbour's step s-1 has
// written it, and a buffer is overwritten only after the neighbours are done
// reading it. Either
//   GPU-side waits  each stream marks a step counter and waits for its
//                   neighbours' counters on the GPU (StreamSignals): the CPU
//                   never waits. Needs every rank of the GPU to be an MPS client
//                   (a spinning wait would hold a time-sliced GPU) and at most
//                   six neighbours per rank;
//   host barrier    the device is synchronised and the GPU's ranks meet once a
//                   step (MPI_Barrier). Always possible; `run.halo_sync =
//                   barrier` asks for it.
#include <mpi.h>

#include <string>

#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/input/halo_choices.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw {

enum class HaloOrdering { None, GpuWaits, HostBarrier };
// "GPU-side waits", "a host barrier", "" for None.
const char* describe(HaloOrdering ordering);

// Collective over `gpu_comm` (the ranks of one GPU): the ordering all of them
// use. `gpu_waits_here`: whether this rank could wait on the GPU
// (can_wait_on_gpu). GPU-side waits when every rank can and `sync` is Auto.
HaloOrdering agree_ordering(MPI_Comm gpu_comm, HaloSync sync, bool gpu_waits_here);

// Whether a rank with fields in `space` and `neighbours` same-GPU neighbours
// can order them by GPU-side waits: at most StepHandshake::kMaxNeighbors, and device fields
// on a device that runs it as an MPS client. Host fields (the tests'
// stand-in for a GPU) always can: the host runs the same handshake on
// counters in their shared memory.
bool can_wait_on_gpu(Backend space, int neighbours);

}  // namespace mpsfw
