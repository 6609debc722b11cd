#pragma once
// The atoms of one rank where its backend keeps them (host memory or the GPU)
// and the per-atom work of a time step. Owned atoms come first, then ghosts
// (positions only). Communication is not here: the caller moves the records
// these functions hand out and takes in (md_comm.hpp).
#include <memory>
#include <vector>

#include "atom_record.hpp"
#include "core/backend.hpp"
#include "md_physics.hpp"

namespace mpsfw::md {

// Link cells over this rank's subdomain widened by one cutoff on every side:
// an owned atom's neighbours lie in its own or the 26 adjacent cells.
struct CellGrid {
  double origin[3];   // corner of the widened region
  double width[3];    // cell edge along each dimension (>= cutoff)
  int count[3];       // cells along each dimension
};

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

  // Replaces all atoms by `atoms` (owned), no ghosts.
  virtual void assign(const std::vector<AtomRecord>& atoms) = 0;
  // Owned atoms, in the store's order.
  virtual std::vector<AtomRecord> download() const = 0;
  // Forces on owned atoms, [3 * i + d].
  virtual std::vector<double> download_forces() const = 0;

  // v += half_dt F/m on owned atoms.
  virtual void kick(double half_dt, const LjParams& p) = 0;
  // x += dt v on owned atoms. Not folded into the box: an atom that crossed
  // the periodic edge is folded when it migrates (MdComm::migrate), so which
  // neighbour it goes to follows from the side it left by.
  virtual void drift(double dt) = 0;
  // v *= factor (thermostat).
  virtual void scale_velocities(double factor) = 0;

  // Removes the owned atoms with x[dim] < lo (into to_low) or >= hi (into
  // to_high); drops all ghosts first. Order of the rest may change.
  virtual void take_leaving(int dim, double lo, double hi, std::vector<AtomRecord>* to_low,
                            std::vector<AtomRecord>* to_high) = 0;
  virtual void add_owned(const std::vector<AtomRecord>& atoms) = 0;

  // Positions of all atoms (owned and ghosts so far) with x[dim] < low_edge
  // (into to_low) or >= high_edge (into to_high).
  virtual void select_ghosts(int dim, double low_edge, double high_edge,
                             std::vector<GhostRecord>* to_low,
                             std::vector<GhostRecord>* to_high) const = 0;
  virtual void add_ghosts(const std::vector<GhostRecord>& ghosts) = 0;
  virtual void clear_ghosts() = 0;

  // Bins all atoms (owned and ghosts) into the link cells of `grid` (the
  // neighbour build). Atoms outside the grid count in its edge cells.
  virtual void build_cells(const CellGrid& grid) = 0;
  // Forces on owned atoms from all atoms within the cutoff (owned and ghosts),
  // through the cells of the last build_cells; throws Error if atoms were
  // added or removed since.
  virtual ForceSums compute_forces(const LjParams& p) = 0;
  virtual MotionSums motion(const LjParams& p) const = 0;
};

std::unique_ptr<MdStore> make_md_store(Backend backend);

namespace detail {
std::unique_ptr<MdStore> make_host_md_store();
std::unique_ptr<MdStore> make_cuda_md_store();
}  // namespace detail

}  // namespace mpsfw::md
