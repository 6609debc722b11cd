#pragma once
// The atoms of one rank where its backend keeps them (host memory or the GPU)
// and the per-atom work of a time step. Owned atoms come first, then ghosts
// (positions only). Communication is not here: the caller moves the records
// these functions hand out and takes in (md_comm.hpp).
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "atom_record.hpp"
#include "core/backend.hpp"
#include "core/comm/step_handshake.hpp"
#include "ghost_lists.hpp"
#include "md_physics.hpp"

namespace mpsfw::md {

// Link cells over this rank's subdomain widened by the ghost width (cutoff +
// skin) on every side: an owned atom's neighbours lie in its own or the 26
// adjacent cells.
struct CellGrid {
  double origin[3];  // corner of the widened region
  double width[3];   // cell edge along each dimension (>= cutoff)
  int count[3];      // cells along each dimension
};

// Link cell of coordinate x along dimension d, clamped into the grid: atoms
// outside it (and NaN) count in its edge cells. Every store bins with this.
MPSFW_HD int link_cell_along(double x, const CellGrid& g, int d) {
  const double c = floor((x - g.origin[d]) / g.width[d]);
  if (!(c >= 0)) return 0;
  return c >= g.count[d] - 1 ? g.count[d] - 1 : static_cast<int>(c);
}

// Sums over owned atoms (the caller reduces them over ranks).
struct ForceSums {
  double potential = 0;  // sum of U over pairs, each pair counted once
  double virial = 0;     // sum over pairs of r_ij . F_ij (for the pressure)
};
struct MotionSums {
  double kinetic = 0;
  double momentum[3] = {0, 0, 0};
};

class MdStore {
 public:
  virtual ~MdStore() = default;

  virtual long owned() const = 0;
  virtual long ghosts() const = 0;
  // Where the atoms live: Host or Cuda (device memory).
  virtual Backend space() const = 0;
  // What this store allocates (host memory on the host, device memory on the
  // GPU) at most for `owned` atoms with `ghosts` ghosts and `neighbours` list
  // entries per owned atom: the memory preflight's estimate.
  virtual double bytes_for(double owned, double ghosts, double neighbours) const = 0;

  // Replaces all atoms by `atoms` (owned), no ghosts.
  virtual void assign(const std::vector<AtomRecord>& atoms) = 0;
  // Owned atoms, in the store's order.
  virtual std::vector<AtomRecord> download() const = 0;
  // Forces on owned atoms, [3 * i + d].
  virtual std::vector<double> download_forces() const = 0;

  // v += half_dt F/m on owned atoms.
  virtual void kick(double half_dt, const LjParams& p) = 0;
  // The first half of a velocity-Verlet step in one pass over the owned
  // atoms: v += half_dt F/m, then x += dt v. Positions are not folded into
  // the box: an atom that crossed the periodic edge is folded when it
  // migrates (MdComm::migrate), so which neighbour it goes to follows from
  // the side it left by.
  virtual void kick_drift(double half_dt, double dt, const LjParams& p) = 0;
  // v *= factor (thermostat).
  virtual void scale_velocities(double factor) = 0;

  // Removes the owned atoms with x[d] < lo[d] or x[d] >= hi[d] along any
  // dimension d (a NaN coordinate alone does not leave) and appends them to
  // `leaving` in the store's order; drops all ghosts first.
  // Order of the rest may change.
  virtual void take_leaving(const double lo[3], const double hi[3],
                            std::vector<AtomRecord>* leaving) = 0;
  virtual void add_owned(const std::vector<AtomRecord>& atoms) = 0;
  // For each dimension d with fold[d]: owned atoms outside [0, box[d]) move
  // to their periodic image inside (across_periodic_edge), in place: the
  // migration of a rank that is its own neighbour along d. Returns how many
  // are still outside (moved more than a box length). Drops all ghosts.
  virtual long fold_periodic(const bool fold[3], const double box[3]) = 0;
  // Reorders the owned atoms by link cell of `grid` (x fastest), so that
  // atoms near in space are near in memory. Drops all ghosts.
  virtual void sort_by_cell(const CellGrid& grid) = 0;

  // Ghosts. At a rebuild the caller drops them, selects the 26 send lists
  // (ghost_lists.hpp) and places what arrives; between rebuilds it sends the
  // same atoms again, in the same order, so only their positions move (the
  // "plan" of MdComm).
  virtual void clear_ghosts() = 0;
  // Remembers, for each list, the owned atoms that ghost_list_mask puts in it
  // (in the store's order), each sent shifted by bands.shift[list]; one wait
  // for the device where there is one. counts[list]: how many.
  virtual void select_sends(const GhostBands& bands, long counts[kGhostLists]) = 0;
  // The current positions of the lists in `lists` (bit `list`), shift
  // applied, x, y, z per atom, list after list in list order into `out` (in
  // space(), room for them all); one wait for the device.
  virtual void pack_sends(std::uint32_t lists, double* out) = 0;
  // Makes ghost slots 0 .. count - 1 exist (their positions unset until
  // written), before other ranks learn where to push them (connect).
  virtual void reserve_ghosts(long count) = 0;
  // Writes slots first .. first + count - 1 of `in` (in space(), ghost slot k
  // at 3 k) into the same ghost slots (counted from the first ghost),
  // appending slots past the current ghosts. On a GPU the copy may still run
  // when this returns: the store's next device work follows it.
  virtual void unpack_ghosts(const double* in, long first, long count) = 0;
  // The lists in `lists` (sent to this rank itself: its periodic images)
  // straight into ghost slots from first[list] on, no host buffer.
  virtual void copy_sends_to_ghosts(std::uint32_t lists, const long first[kGhostLists]) = 0;
  // A rank alone along every axis: all its ghosts are its own periodic
  // images, placed by copy_sends_to_ghosts since the last clear_ghosts.
  // Rewrites them all from the owned atoms they image in one pass, the same
  // positions as repeating those copies.
  virtual void refresh_own_images() = 0;

  // Same-GPU ghosts (md_same_gpu.hpp): the position array (owned atoms, then
  // ghosts, 32 bytes each: x, y, z, unused) that other processes on the GPU
  // may map, nullptr where atoms live in host memory; a number that changes
  // whenever that array is reallocated; and send list `list` (shift applied)
  // written into another rank's mapped array from slot `slot` on.
  virtual const void* positions_base() const = 0;
  virtual long positions_generation() const = 0;
  virtual void push_sends(int list, void* target, long slot) = 0;
  // Every list with a target (targets[list], from slot slots[list]) pushed
  // in one launch; with a handshake, the step's GPU-side handshake runs in
  // the same launch after the pushes. False where the store cannot (then
  // the caller pushes, in one launch if push_all without a handshake can,
  // else list by list, and waits as a separate step).
  virtual bool push_all(void* const /*targets*/[kGhostLists], const long /*slots*/[kGhostLists],
                        const StepHandshake& /*handshake*/) {
    return false;
  }
  // Waits until the store's device work is done (nothing to wait for on the host).
  virtual void synchronize() = 0;

  // Bins all atoms (owned and ghosts) into the link cells of `grid` and lists
  // for every owned atom the others within `reach` (cutoff + skin); atoms
  // outside the grid count in its edge cells. Remembers the owned positions
  // for max_displacement.
  virtual void build_neighbors(const CellGrid& grid, double reach) = 0;
  // The largest distance an owned atom moved since build_neighbors.
  virtual double max_displacement() const = 0;
  // Whether the store's waits for the device (max_displacement's and the
  // rebuild's) sleep instead of spinning, for ranks that outnumber their
  // node's cores; once on, for the process (nothing to wait for on the host).
  virtual void sleep_while_waiting(bool /*sleep*/) {}
  // Owned positions at the last build_neighbors, [3 * i + d] (a checkpoint
  // keeps them, so that a resumed run rebuilds the very same lists).
  virtual std::vector<double> download_build_positions() const = 0;
  // Resuming exactly: after build_neighbors at the saved build positions,
  // moves the owned atoms to `x` ([3 * i + d]), keeping lists and ghost plan;
  // `moved` is max_displacement() as the interrupted run last saw it.
  virtual void restore_positions(const std::vector<double>& x, double moved) = 0;
  // Forces on owned atoms from the atoms of their lists within the cutoff;
  // throws Error if atoms were added or removed since build_neighbors.
  virtual void compute_forces(const LjParams& p) = 0;
  // Sums of the pair energy and virial over owned atoms at the current
  // positions (the same pairs as compute_forces).
  virtual ForceSums pair_sums(const LjParams& p) const = 0;
  virtual MotionSums motion(const LjParams& p) const = 0;
};

// The store of a bound backend (Host, Cuda or Kokkos; Auto throws: bind_device
// resolves it).
std::unique_ptr<MdStore> make_md_store(Backend backend);

namespace detail {
std::unique_ptr<MdStore> make_host_md_store();
// md_store_cuda.cu; md_store_cuda_off.cpp without CUDA.
std::unique_ptr<MdStore> make_cuda_md_store();
// md_store_kokkos.cpp; md_store_kokkos_off.cpp without Kokkos.
std::unique_ptr<MdStore> make_kokkos_md_store();
}  // namespace detail

}  // namespace mpsfw::md
