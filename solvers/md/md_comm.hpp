#pragma once
// MD communication on the Cartesian communicator, in three staged directions
// (x, then y, then z) so that edges and corners arrive without diagonal
// messages: `migrate` hands atoms that left the subdomain to their new owner,
// `exchange_ghosts` copies atoms within the ghost width (cutoff + skin) of a
// face to the neighbour across it (periodic images shifted by the box length)
// and keeps who sent what as a plan, and `update_ghosts` moves the same
// ghosts' positions forward between rebuilds (one message per face, no
// counts, no selection; device to device between ranks on one GPU,
// md_same_gpu.hpp). The only MPI of the MD solver lives here and there.
#include <memory>
#include <string>

#include "core/decomposition.hpp"
#include "core/halo/halo_transport.hpp"
#include "core/peer_memory.hpp"
#include "md_domain.hpp"
#include "md_same_gpu.hpp"
#include "md_store.hpp"

namespace mpsfw::md {

class MdComm {
 public:
  // Collective. Ghosts between ranks on one GPU or on peer GPUs of a node
  // move device to device unless `halo` is Mpi (SameGpu: no peers), `where`
  // (this rank's node, GPU and peers) has no GPU or `memory` is null, ordered
  // as `sync` allows (halo_plan.hpp).
  MdComm(const CartDecomposition& decomposition, const Subdomain& domain, double ghost_width,
         HaloTransport halo = HaloTransport::Mpi, HaloSync sync = HaloSync::Auto,
         const DeviceLocation& where = {}, PeerMemory* memory = nullptr);

  // After a drift: every owned atom ends up on the rank whose subdomain holds
  // it; one that left the box through a face arrives as its periodic image
  // inside. Collective: when an atom moved farther than the neighbouring
  // subdomain (or a box length), every rank throws the same AgreedError,
  // naming `step` (the step that moved them) and the count.
  void migrate(MdStore& store, long step = 0) const;
  // Replaces the ghosts: every atom (or periodic image) within the ghost
  // width of the subdomain, from the neighbours; remembers the plan.
  void exchange_ghosts(MdStore& store);
  // The plan's ghosts again, at the atoms' current positions.
  void update_ghosts(MdStore& store) const;
  // Link cells of this rank's subdomain widened by the ghost width on every side.
  CellGrid cell_grid() const;
  // How ghost positions travel between rebuilds, for the run report.
  std::string ghost_path() const;

 private:
  // Moves the positions of list `list` (2 dim: to the low neighbour, 2 dim +
  // 1: to the high one) and its counterpart from the opposite neighbour along
  // the plan, pushed between ranks on one GPU where connected.
  void transfer(MdStore& store, int list) const;
  // One rank in all: every ghost is one of its own periodic images.
  bool alone() const;

  const CartDecomposition& decomposition_;
  Subdomain domain_;
  double ghost_width_;
  GhostTransfer plan_[6];
  std::unique_ptr<SameGpuGhosts> same_gpu_;
};

}  // namespace mpsfw::md
