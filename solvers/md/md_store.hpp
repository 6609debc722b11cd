#pragma once
// The atoms of one rank where its backend keeps them (host memory or the GPU)
// and the per-atom work of a time step: a ParticleStore (owned atoms first,
// then ghosts, positions only) that the particle exchange moves
// (core/particles/particle_exchange.hpp), plus MD's own work.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "atom_record.hpp"
#include "md_physics.hpp"
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/comm/step_handshake.hpp>
#include <mpsfw/core/particles/link_cells.hpp>
#include <mpsfw/core/particles/particle_store.hpp>
#include <mpsfw/core/particles/periodic_edge.hpp>

namespace mpsfw::md {

// Sums over owned atoms (the caller reduces them over ranks).
struct ForceSums {
  double potential = 0;  // sum of U over pairs, each pair counted once
  double virial = 0;     // sum over pairs of r_ij . F_ij (for the pressure)
};
struct MotionSums {
  double kinetic = 0;
  double momentum[3] = {0, 0, 0};
};

class MdStore : public ListedParticleStore {
 public:
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
  virtual void kick(double half_dt, double mass) = 0;
  // The first half of a velocity-Verlet step in one pass over the owned
  // atoms: v += half_dt F/m, then x += dt v. Positions are not folded into
  // the box: an atom that crossed the periodic edge is folded when it
  // migrates (ParticleExchange::migrate), so which neighbour it goes to follows from
  // the side it left by.
  virtual void kick_drift(double half_dt, double dt, double mass) = 0;
  // v *= factor (thermostat).
  virtual void scale_velocities(double factor) = 0;

  // Migration (ParticleStore) in atoms: the records are AtomRecords.
  RecordLayout record_layout() const override { return atom_layout(); }
  void take_leaving(const double lo[3], const double hi[3], ParticleRecords* leaving) override {
    std::vector<AtomRecord> atoms;
    take_leaving_atoms(lo, hi, &atoms);
    leaving->append(atoms.data(), atoms.size());
  }
  void add_owned(const ParticleRecords& records) override {
    const auto* first = static_cast<const AtomRecord*>(records.data());
    add_owned_atoms(std::vector<AtomRecord>(first, first + records.size()));
  }
  // ParticleStore::take_leaving and add_owned of each backend.
  virtual void take_leaving_atoms(const double lo[3], const double hi[3],
                                  std::vector<AtomRecord>* leaving) = 0;
  virtual void add_owned_atoms(const std::vector<AtomRecord>& atoms) = 0;
  // sort_by_cell, build_neighbors and max_displacement:
  // ListedParticleStore's (the lists reach cutoff + skin).

  // download_build_positions: ListedParticleStore's (a checkpoint keeps
  // them, so that a resumed run rebuilds the very same lists).
  // Forces on owned atoms from the atoms of their lists within the cutoff,
  // under the store's pair style; throws Error if atoms were added or
  // removed since build_neighbors.
  virtual void compute_forces() = 0;
  // Sums of the pair energy and virial over owned atoms at the current
  // positions (the same pairs as compute_forces).
  virtual ForceSums pair_sums() const = 0;
  virtual MotionSums motion(double mass) const = 0;
};

// The store of a bound backend (Host, Cuda or Kokkos; Auto throws: bind_device
// resolves it) whose forces follow `pair`.
std::unique_ptr<MdStore> make_md_store(Backend backend, const PairStyle& pair);

// The store for the style `pair` holds, on the backend of Exec
// (md_arrays_store.hpp; built for every backend by md_store_parts.cpp).
template <class Exec>
std::unique_ptr<MdStore> make_arrays_store(const PairStyle& pair);

}  // namespace mpsfw::md
