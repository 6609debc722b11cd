#pragma once
// The particles' communication on the Cartesian communicator, in one round
// with the 26 neighbours of the 3x3x3 block around a rank (faces, edges,
// corners: ghost_lists.hpp), so that no message waits for another: `migrate`
// hands particles that left the subdomain straight to their new owner,
// `exchange_ghosts` copies the owned particles within the ghost width (e.g. a
// cutoff + skin) of the faces toward a neighbour to it (periodic images
// shifted by the box length) and keeps who sent what as a plan, and
// `update_ghosts` moves the same ghosts' positions forward between rebuilds
// (one message per neighbour list, no counts, no selection; device to device
// between ranks on one GPU, same_gpu_ghosts.hpp); `update_ghost_fields` does
// the same for the fields the store lets reach ghosts (FieldSpec::ghosts),
// unshifted, and `add_ghosts_to_owners` runs the plan backwards, adding what
// ghosts hold to their owners (a half list's forces). Messages go through the one
// neighbour-message engine (core/comm/neighbour_messages.hpp): ghost counts
// first, then positions; a migration's counts ride with its records. The particles are a
// ParticleStore's (particle_store.hpp), wherever it keeps them.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "link_cells.hpp"
#include "particle_store.hpp"
#include "same_gpu_ghosts.hpp"
#include "subdomain.hpp"
#include <mpsfw/core/comm/halo_transport.hpp>
#include <mpsfw/core/comm/neighbour_messages.hpp>
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>

namespace mpsfw {

// How errors name the particles: "MD: 3 atoms ...".
struct ParticleNames {
  std::string solver = "particles";  // the errors' prefix
  std::string one = "particle", many = "particles";
};

class ParticleExchange {
 public:
  // Collective. Ghosts between ranks on one GPU or on peer GPUs of a node
  // move device to device unless `halo` is Mpi (SameGpu: no peers), `where`
  // (this rank's node, GPU and peers) has no GPU or `memory` is null, ordered
  // as `sync` allows (step_ordering.hpp).
  ParticleExchange(const CartDecomposition& decomposition, const Subdomain& domain,
                   double ghost_width, HaloTransport halo = HaloTransport::Mpi,
                   HaloSync sync = HaloSync::Auto, const DeviceLocation& where = {},
                   PeerMemory* memory = nullptr, bool cuda_aware_mpi = false,
                   ParticleNames names = {});
  // The same for a rank bound to `device`, as the /run keys (run.halo,
  // run.halo_sync) of `run` ask: its location, and what it shares device
  // memory through (peer_memory_for).
  ParticleExchange(const CartDecomposition& decomposition, const Subdomain& domain,
                   double ghost_width, const RunConfig& run, const DeviceBinding& device,
                   bool cuda_aware_mpi, ParticleNames names = {})
      : ParticleExchange(decomposition, domain, ghost_width, run.halo, run.halo_sync,
                         device_location(device), peer_memory_for(device), cuda_aware_mpi,
                         std::move(names)) {}

  // After a drift: every owned particle ends up on the rank whose subdomain
  // holds it; one that left the box through a face arrives as its periodic
  // image inside. Collective: when one moved farther than the neighbouring
  // subdomain (or a box length), every rank throws the same AgreedError,
  // naming `step` (the step that moved them) and the count.
  void migrate(ParticleStore& store, long step = 0);
  // Replaces the ghosts: every particle (or periodic image) within the ghost
  // width of the subdomain, from the neighbours, with its ghost fields;
  // remembers the plan.
  void exchange_ghosts(ParticleStore& store);
  // The plan's ghosts again, at the particles' current positions. `reads`:
  // whether every rank's reads of its ghosts queued before are known to be
  // over (SameGpuGhosts::push_all).
  void update_ghosts(ParticleStore& store, GhostReads reads = GhostReads::Over) const;
  // The plan's ghosts' fields (`fields`, bit f the store's field f: those
  // that reach ghosts, FieldSpec::ghosts; all of them by default) again, as
  // their owners hold them now: after a pass that rewrote them (a density,
  // the velocities of a kick), before a pass that reads them of ghosts.
  // The same paths as positions: device to device between ranks whose
  // memory reaches each other, MPI between the rest, copied for a rank's own
  // images. Nothing for a store without ghost fields.
  void update_ghost_fields(ParticleStore& store,
                           std::uint32_t fields = ParticleStore::kAllGhostFields);
  // Reverse: adds every ghost's values of `fields` to the particle it copies
  // (its owner's, on whichever rank), each owned particle's in list order,
  // so the same rank grid gives the same bits (and Integer fields holding
  // fixed-point sums, pair_shares.hpp, the same bits on any): the forces a
  // half list left on ghosts. The ghosts keep their values.
  void add_ghosts_to_owners(ParticleStore& store, std::uint32_t fields);
  // Link cells of this rank's subdomain widened by the ghost width on every side.
  CellGrid cell_grid() const;
  // How ghost positions travel between rebuilds, for the run report.
  std::string ghost_path() const;
  // How long a wait for a same-GPU neighbour may take before the job ends
  // naming it, and the step every rank has finished now (SameGpuGhosts).
  void set_peer_wait(const PeerWait& wait) { same_gpu_->set_peer_wait(wait); }

 private:
  // One number per list in `lists` (bit `list`) to its neighbour, out[list],
  // and from the neighbour the other way, into in[list].
  void exchange_counts(std::uint32_t lists, const long out[kNeighbours], long in[kNeighbours]);
  // The records out[list] of `lists` to their neighbours, and theirs from
  // the other way; what arrives, in list order. One round carries each
  // list's count and as many records as both ends expect (records_room of
  // the channel's last count); a second round only between pairs whose
  // records did not fit.
  ParticleRecords exchange_leaving(std::uint32_t lists, const std::vector<ParticleRecords>& out);
  // The position messages of the plan: every list not pushed device to
  // device and not sent to this rank itself (the ghost fields' too).
  void plan_positions(const ParticleStore& store);
  // The plan's positions into the ghost slots: pushed where connected,
  // through MPI otherwise, copied for a rank's own images.
  void move_positions(ParticleStore& store, GhostReads reads) const;
  // What one round of ghost messages moves: its pack of the lists sent into
  // the send buffer and its unpack of ghost slots first .. first + count - 1
  // from the receive buffer.
  struct GhostPayload {
    std::function<void(void* out)> pack;
    std::function<void(const void* in, long first, long count)> unpack;
  };
  // One round of planned ghost messages in `m`: pack, send, receive, unpack.
  void send_and_receive(ParticleStore& store, NeighbourMessages& m, std::uint32_t sends,
                        std::uint32_t receives, const GhostPayload& payload) const;
  // The plan's messages of the lists in `sends` and `receives`, `bytes` a
  // ghost, into `m`.
  void plan_ghost_messages(const ParticleStore& store, std::unique_ptr<NeighbourMessages>* m,
                           std::uint32_t sends, std::uint32_t receives, std::int64_t bytes,
                           int first_tag);
  // `m` made anew, in the store's space, where there is none or the store's
  // space changed (then every ghost message buffer is made anew).
  NeighbourMessages& messages_for(const ParticleStore& store,
                                  std::unique_ptr<NeighbourMessages>* m);
  // The first ghost slot of each list.
  void first_slots(long first[kNeighbours]) const;
  // The lists whose neighbour is this rank itself (its periodic images).
  std::uint32_t own_lists() const;
  // One rank in all: every ghost is one of its own periodic images.
  bool alone() const;

  const CartDecomposition& decomposition_;
  Subdomain domain_;
  double ghost_width_;
  bool cuda_aware_mpi_;
  GhostTransfer plan_[kNeighbours];
  ParticleNames names_;
  NeighbourMessages counts_and_records_;            // host memory
  std::unique_ptr<NeighbourMessages> positions_;    // in the store's space
  Backend messages_space_ = Backend::Host;          // of positions_, fields_, sums_
  std::uint32_t mpi_sends_ = 0, mpi_receives_ = 0;  // lists through MPI
  // The ghost fields' messages, forward and back, in the store's space.
  std::unique_ptr<NeighbourMessages> fields_, sums_;
  int fields_words_ = 0, sums_words_ = 0;  // the words a ghost they were planned for (0: none)
  // Each list's count at the last migration, sent and received: both ends
  // of a channel know it, so they agree on the next first round's room.
  long sent_last_[kNeighbours] = {}, received_last_[kNeighbours] = {};
  std::unique_ptr<SameGpuGhosts> same_gpu_;
};

}  // namespace mpsfw
