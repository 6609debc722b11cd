#pragma once
// A rank's particles for the SPH example: mpsfw's particle store (migration,
// ghosts, lists) plus what the example asks of them — its fields, declared
// once in sph_arrays.hpp (which the framework's arrays turn into the record
// layout, the trajectory's and checkpoints' datasets and what an input is
// read for), and its physics over them, in host or device memory.
#include <memory>
#include <vector>

#include "sph_physics.hpp"
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/particles/particle_store.hpp>
#include <mpsfw/core/particles/written_field.hpp>

namespace sph {

// This rank's sums, reduced over ranks by the caller.
struct LocalSums {
  double kinetic = 0;        // sum over owned particles of |v|^2 / 2
  double max_speed = 0;      // max |v| over owned particles
  double density_error = 0;  // max |rho - rho0| / rho0 over owned particles
  long not_finite = 0;       // owned particles with a position or velocity not finite
};

class SphStore : public mpsfw::ListedParticleStore {
 public:
  // The example's: the two pair passes (density: positions only;
  // accelerations: the ghosts' velocities and densities current); every
  // owned particle moved one step (kick, drift, shift); the diagnostics' sums.
  virtual void compute_densities(const Physics& p) = 0;
  virtual void compute_accelerations(const Physics& p) = 0;
  virtual void move(const Physics& p) = 0;
  virtual LocalSums sums(const Physics& p) = 0;
};

// The store, written once over a backend's primitives (sph_arrays.hpp).
template <class Exec>
class SphArrays;

// A store in the memory of `backend` (Host; Cuda and Kokkos where built;
// sph_state.cpp).
std::unique_ptr<SphStore> store_for(mpsfw::Backend backend);

}  // namespace sph
