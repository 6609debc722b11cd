#pragma once
// A rank's particles for the Brownian example: mpsfw's particle store (what
// migration, ghosts and the lists' upkeep need; its records, the fields
// declared once in brownian_arrays.hpp) plus the example's own physics over
// them, in host or device memory.
#include <cstdint>
#include <memory>
#include <vector>

#include "brownian_physics.hpp"
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/particles/particle_store.hpp>

namespace brownian {

// This rank's sums, reduced over ranks by the caller.
struct LocalSums {
  double potential = 0;  // sum over owned particles of half their pairs' energies
  double max_force = 0;  // max |F| over owned particles
  long not_finite = 0;   // owned particles with a coordinate that is not finite
};

class BrownianStore : public mpsfw::ListedParticleStore {
 public:
  // The example's: F of every owned particle from its list (ghosts current);
  // every owned particle moved one step (`step`: the step being made, the
  // noise's counter); the diagnostics' sums.
  virtual void compute_forces(const Physics& p) = 0;
  virtual void move(const Physics& p, long step) = 0;
  virtual LocalSums sums(const Physics& p) const = 0;
};

// The store, written once over a backend's primitives (brownian_arrays.hpp).
template <class Exec>
class BrownianArrays;

// A store in the memory of `backend` (Host; Cuda and Kokkos where built;
// brownian_state.cpp). Throws mpsfw::Error for a backend this example was
// built without.
std::unique_ptr<BrownianStore> store_for(mpsfw::Backend backend);

}  // namespace brownian
