#pragma once
// The initial atoms of one rank: an FCC lattice with Maxwell-Boltzmann
// velocities, the same on any number of ranks (each atom's velocity comes from
// its id and the seed alone).
#include <mpi.h>

#include <vector>

#include "atom_record.hpp"
#include "md_config.hpp"
#include <mpsfw/core/particles/subdomain.hpp>

namespace mpsfw::md {

// The lattice atoms inside `domain`, velocities drawn from a normal
// distribution per (seed, id), then shifted to zero total momentum and scaled
// to exactly c.temperature over all ranks of `comm` (collective).
std::vector<AtomRecord> fcc_atoms(const MdConfig& c, const Subdomain& domain, MPI_Comm comm);

// Total atoms of the FCC lattice: 4 per unit cell.
long fcc_atom_count(const MdConfig& c);

// Temperature of `kinetic` energy over `atoms` atoms with total momentum zero
// (3N - 3 degrees of freedom, k_B = 1).
double temperature_of(double kinetic, long atoms);

}  // namespace mpsfw::md
