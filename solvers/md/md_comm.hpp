#pragma once
// MD communication on the Cartesian communicator, in three staged directions
// (x, then y, then z) so that edges and corners arrive without diagonal
// messages: `migrate` hands atoms that left the subdomain to their new owner,
// `exchange_ghosts` copies atoms within the cutoff of a face to the neighbour
// across it (periodic images shifted by the box length). The only MPI of the
// MD solver lives here.
#include "core/decomposition.hpp"
#include "md_domain.hpp"
#include "md_store.hpp"

namespace mpsfw::md {

class MdComm {
 public:
  MdComm(const CartDecomposition& decomposition, const Subdomain& domain, double cutoff)
      : decomposition_(decomposition), domain_(domain), cutoff_(cutoff) {}

  // After a drift: every owned atom ends up on the rank whose subdomain holds
  // it; one that left the box through a face arrives as its periodic image
  // inside. Throws Error if an atom moved farther than the neighbouring
  // subdomain.
  void migrate(MdStore& store) const;
  // Replaces the ghosts: every atom (or periodic image) within the cutoff of
  // the subdomain, from the neighbours.
  void exchange_ghosts(MdStore& store) const;
  // Link cells of this rank's subdomain widened by the cutoff on every side.
  CellGrid cell_grid() const;

 private:
  const CartDecomposition& decomposition_;
  Subdomain domain_;
  double cutoff_;
};

}  // namespace mpsfw::md
