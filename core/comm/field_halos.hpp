#pragma once
// Halo exchange for the fields of a solver of one's own: several fields per
// block, each float or double, halos `width` cells wide, faces only (7- and
// 13-point star stencils) or faces, edges and corners (27-point stencils).
//
//   FieldHalos halos(decomposition, FieldLayout(cells, 2), {2, false}, device.backend, cuda_aware);
//   halos.add_field<double>({u0, u1});        // a field and every buffer it may be in
//   halos.add_field<float>({rho});
//   halos.connect(run.halo, device_location(device), run.halo_sync);  // collective, once, fields
//   initialised each step:
//     halos.start({u_now, rho});   // MPI posted, same-GPU halos pulled (device to device)
//     ... update cells that read no halo ...
//     halos.finish();              // MPI halos unpacked
//     ... update the rest ...
//     halos.finish_step();         // after the step's last write to any field
//   halos.quiesce();               // before freeing the fields
//
// Neighbours on other GPUs or nodes exchange through MPI, one message per
// neighbour holding every field (staged through pinned host memory unless MPI
// is CUDA-aware). Neighbours on the same GPU or a peer GPU of the node (mapped
// through CUDA IPC, or the injected PeerMemory in tests) are pulled straight
// from their buffers,
// ordered as step_ordering.hpp decides: under MPS the streams order themselves
// through step counters in device memory (StreamSignals), otherwise (or with
// run.halo_sync = barrier) finish_step() is a host rendezvous of the linked
// ranks. A directly pulled field therefore needs at least two buffers that it
// alternates between (it reads one and writes the other each step): a buffer
// a neighbour may still be reading is never rewritten in the same step.
//
// Heat keeps its own tuned exchange (halo_exchange.hpp here: pushes from the
// update kernel, one field, width 1).
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/backend.hpp"
#include "core/comm/halo_transport.hpp"
#include "core/comm/region_copy.hpp"
#include "core/comm/step_ordering.hpp"
#include "core/device/peer_memory.hpp"
#include "core/device/timers.hpp"
#include "core/mesh/decomposition.hpp"
#include "core/mesh/field_layout.hpp"

namespace mpsfw {

// A field's element type is one the pack layer copies (ScalarType, region_copy.hpp).
int scalar_bytes(ScalarType type);
const char* to_string(ScalarType type);
template <class T>
constexpr ScalarType scalar_type_of();
template <>
constexpr ScalarType scalar_type_of<float>() {
  return ScalarType::Float32;
}
template <>
constexpr ScalarType scalar_type_of<double>() {
  return ScalarType::Float64;
}

struct HaloShape {
  int width = 1;         // halo cells beyond each face
  bool corners = false;  // also the 12 edges and 8 corners
};

class FieldHalos {
 public:
  // `layout.halo` must equal `shape.width`; every block must be at least
  // `width` cells thick where it has a neighbour (throws InputError naming
  // the rank grid otherwise). Not collective.
  FieldHalos(const CartDecomposition& decomposition, FieldLayout layout, HaloShape shape,
             Backend space, bool cuda_aware_mpi, PeerMemory& peer_memory = cuda_ipc_memory());
  ~FieldHalos();
  FieldHalos(const FieldHalos&) = delete;
  FieldHalos& operator=(const FieldHalos&) = delete;

  // A field whose halos are exchanged: its scalar type and every buffer
  // (layout.size() values each, in the backend's memory) it may be passed in
  // to start(). Before connect(). Returns its slot (0, 1, ... in order).
  int add_field(ScalarType type, const std::vector<void*>& buffers);
  template <class T>
  int add_field(const std::vector<T*>& buffers) {
    return add_field(scalar_type_of<T>(), std::vector<void*>(buffers.begin(), buffers.end()));
  }

  // Collective over the decomposition's communicator, once, after every
  // buffer holds its initial values: neighbours on the same GPU or a peer GPU
  // of the node (`where` from device_location()) switch from MPI to pulls as
  // `mode` allows (HaloTransport; Ipc where impossible throws AgreedError on
  // every rank), ordered as `sync` allows. Without connect() everything goes
  // through MPI.
  void connect(HaloTransport mode, const DeviceLocation& where, HaloSync sync = HaloSync::Auto);

  // Starts the exchange of every field's halo, field f in current[f] (one of
  // its buffers). Same-GPU halos are complete, in stream order, when start()
  // returns; MPI halos after finish().
  void start(const std::vector<void*>& current);
  template <class... T>
  void start(T*... current) {
    start(std::vector<void*>{static_cast<void*>(current)...});
  }
  void finish();
  // After the step's last write to any field (ordering with same-GPU
  // neighbours; nothing without them).
  void finish_step();
  // Collective over the GPU's ranks: nobody reads this rank's buffers after.
  void quiesce();

  // Phases "halo post", "halo pack", "halo pull", "halo wait", "halo unpack",
  // "halo sync", as HaloExchange.
  void set_timers(PhaseTimers* timers);

  // Neighbours (of up to 26 directions) reached through MPI and by pulls.
  int mpi_neighbors() const;
  int pulled_neighbors() const;
  // How halos travel, for the report: "MPI, host memory", "MPI, staged
  // through pinned host memory", "... ; same-GPU pulls (CUDA IPC, GPU-side
  // waits)", and why pulls fell back to MPI when they did.
  std::string path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mpsfw
