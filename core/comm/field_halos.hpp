#pragma once
// Halo exchange for the fields of a stencil solver: several fields per block,
// each float or double, halos `width` cells wide, faces only (7- and 13-point
// star stencils) or faces, edges and corners (27-point stencils).
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
// through CUDA IPC, or the injected PeerMemory in tests) are reached device to
// device, one of two ways (HaloDelivery):
//   Pull  start() copies their boundary cells into this rank's halos;
//   Push  the caller's update kernel writes its new boundary cells into
//         their halos as it computes them (pushes(): no copy kernel at all),
//         and may run the step's handshake in the same launch
//         (step_handshake(), finish_step(Handshake::RunByCaller)); one-cell
//         face halos of double fields, the first step reading buffer 0.
// The linked ranks order their steps as step_ordering.hpp decides: under MPS
// the streams order themselves through step counters in device memory
// (StreamSignals), otherwise (or with run.halo_sync = barrier) finish_step()
// is a host rendezvous of the linked ranks. A field reached device to device
// therefore needs at least two buffers that it alternates between (it reads
// one and writes the other each step): a buffer a neighbour may still be
// reading is never rewritten in the same step.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/comm/halo_pushes.hpp>
#include <mpsfw/core/comm/halo_transport.hpp>
#include <mpsfw/core/comm/region_copy.hpp>
#include <mpsfw/core/comm/step_handshake.hpp>
#include <mpsfw/core/comm/step_ordering.hpp>
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/device/timers.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

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

// How halos of device-to-device neighbours are filled (see the top).
enum class HaloDelivery { Pull, Push };

// Who runs a pushing step's handshake: finish_step() in a kernel of its own,
// or the caller, in the launch that pushes, once its pushes are written
// (step_handshake()).
enum class Handshake { Enqueue, RunByCaller };

// Which way each neighbour's halo travels, resolved at connect(). A face
// counts for a mask when its neighbour (offset along one axis) goes that way.
struct HaloRoutes {
  FaceMask mpi = 0;       // faces exchanged as MPI messages (start, then finish)
  FaceMask direct = 0;    // faces pulled or pushed device to device
  FaceMask peer_gpu = 0;  // of `direct`, those whose neighbour is on another GPU
  bool direct_to_others =
      false;  // some direct neighbour is another rank (not a periodic wrap onto this one)
  HaloOrdering ordering = HaloOrdering::None;
  std::string fallback;  // why device-to-device neighbours use MPI ("" when none do)
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
  // of the node (`where` from device_location()) switch from MPI to
  // `delivery` as `mode` allows (HaloTransport; Ipc where impossible throws
  // AgreedError on every rank), ordered as `sync` allows. Without connect()
  // everything goes through MPI. Push needs width 1, faces only, double
  // fields of at least two buffers (throws Error otherwise); it fills buffer
  // 0's direct halos once, here.
  void connect(HaloTransport mode, const DeviceLocation& where, HaloSync sync = HaloSync::Auto,
               HaloDelivery delivery = HaloDelivery::Pull);

  // Starts the exchange of every field's halo, field f in current[f] (one of
  // its buffers). Pulled halos are complete, in stream order, when start()
  // returns; MPI halos after finish(); pushed halos were written by the
  // neighbours' previous step.
  void start(const std::vector<void*>& current) { start(current.data(), current.size()); }
  template <class... T>
  void start(T*... current) {
    void* const buffers[] = {static_cast<void*>(current)...};
    start(buffers, sizeof...(T));
  }
  void finish();

  // Push: where the update writing buffer `next` of field `field` puts the
  // new values of its boundary planes (empty when nothing is pushed).
  const HaloPushes& pushes(int field, const void* next) const;
  // Push under GPU-side waits: the step's handshake as data, for a caller
  // that runs it in its pushing launch once its pushes are written (empty
  // otherwise).
  StepHandshake step_handshake() const;

  // After the step's last write to any field: ordering with the
  // device-to-device neighbours (nothing without them). Under GPU-side waits
  // a pulling step's handshake is the next start()'s; a pushing step's is
  // enqueued here unless the caller ran it (Handshake::RunByCaller).
  void finish_step(Handshake handshake = Handshake::Enqueue);
  // After connect(): how long a GPU-side wait for a neighbour may take
  // before the job ends naming it (run.peer_wait_seconds), and the step every
  // rank has finished now, for that message.
  void set_peer_wait(const PeerWait& wait);
  // Collective over the GPU's ranks: nobody reads this rank's buffers after.
  void quiesce();

  // Where the time goes: "halo post" (MPI receives and sends posted), "halo
  // pack" (packed and, when staged, copied to the host: waits for the
  // device), "halo pull", "halo wait" (MPI completion: waits for the
  // neighbours), "halo unpack" and "halo sync" (finish_step, quiesce).
  void set_timers(PhaseTimers* timers);

  // Neighbours (of up to 26 directions) reached through MPI and device to device.
  int mpi_neighbors() const;
  int direct_neighbors() const;
  const HaloRoutes& routes() const;
  bool staged_through_host() const;
  // How halos travel, for the report: "MPI, host memory", "MPI, staged
  // through pinned host memory", "... ; same-GPU pulls (CUDA IPC, GPU-side
  // waits)", and why pulls fell back to MPI when they did.
  std::string path() const;

 private:
  void start(void* const* current, size_t count);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mpsfw
