#pragma once
// A rank's particles for the Brownian example: mpsfw's particle store (what
// migration, ghosts and the lists' upkeep need) plus the few things the
// example asks of them — records in and out, which the framework's arrays
// implement, and its own physics over them (brownian_arrays.hpp), in host or
// device memory.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/particles/link_cells.hpp>
#include <mpsfw/core/particles/particle_store.hpp>
#include <mpsfw/core/particles/particle_trajectory.hpp>
#include <vector>

#include "brownian_physics.hpp"

namespace brownian {

// A particle as it travels, is written and is read back: position, id.
struct Record {
  double x[3];
  std::int64_t id;
};
const mpsfw::RecordLayout kRecordLayout{sizeof(Record),
                                        static_cast<std::ptrdiff_t>(offsetof(Record, id))};
// The fields a trajectory frame and a checkpoint hold beside the positions.
const std::vector<mpsfw::WrittenField> kWrittenFields = {
    {"ids", "id", 1, true, offsetof(Record, id)}};

// This rank's sums, reduced over ranks by the caller.
struct LocalSums {
  double potential = 0;  // sum over owned particles of half their pairs' energies
  double max_force = 0;  // max |F| over owned particles
  long not_finite = 0;   // owned particles with a coordinate that is not finite
};

class BrownianStore : public mpsfw::ListedParticleStore {
 public:
  // The framework's (ParticleArrays).
  virtual void assign_records(const mpsfw::ParticleRecords& records) = 0;
  virtual mpsfw::ParticleRecords download_records() const = 0;
  // The example's: F of every owned particle from its list (ghosts current);
  // every owned particle moved one step (`step`: the step being made, the
  // noise's counter); the diagnostics' sums.
  virtual void compute_forces(const Physics& p) = 0;
  virtual void move(const Physics& p, long step) = 0;
  virtual LocalSums sums(const Physics& p) const = 0;
};

// A store in the memory of `backend` (Host, or Cuda where built:
// mpsfw::make_for_backend). Throws mpsfw::Error for a backend this example
// has no store for.
std::unique_ptr<BrownianStore> store_for(mpsfw::Backend backend);

namespace detail {
std::unique_ptr<BrownianStore> make_host_store();
// brownian_store_cuda.cu, or brownian_store_cuda_off.cpp in a build without it.
std::unique_ptr<BrownianStore> make_cuda_store();
}  // namespace detail

}  // namespace brownian
