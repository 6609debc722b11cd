#pragma once
// How same-GPU halos are ordered between the ranks of one GPU, decided in one
// place for every exchange (heat's pushes, FieldHalos' pulls, MD's ghosts).
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

#include "core/backend.hpp"
#include "core/field_layout.hpp"

namespace mpsfw {

// The user's choice (input key run.halo_sync).
enum class HaloSync { Auto, Barrier };
// "auto" | "barrier"; throws InputError otherwise.
HaloSync parse_halo_sync(const std::string& text);
const char* to_string(HaloSync sync);

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

// The heat-style exchange of one field, resolved once when it connects
// (HaloExchange::connect_direct_peers); the solver asks, nothing else
// decides.
struct HaloPlan {
  FaceMask mpi = 0;       // faces exchanged as MPI messages (start, then finish)
  FaceMask pushed = 0;    // direct faces: the update writes them into the neighbours' halos
  FaceMask peer_gpu = 0;  // of `pushed`, those whose neighbour is on another GPU (peer access)
  // The update writes the pushed planes before the rest of the block, and
  // runs the step's handshake in the same launch: worth it when other ranks
  // wait for those planes and no face waits for MPI, and only where the
  // backend's kernels have that launch (resolved once, at connect).
  bool boundary_first = false;
  HaloOrdering ordering = HaloOrdering::None;
  std::string fallback;  // why same-GPU faces use MPI ("" when none do)
};

}  // namespace mpsfw
