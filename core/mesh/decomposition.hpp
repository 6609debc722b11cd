#pragma once
// Cartesian decomposition of a global nx*ny*nz grid over px*py*pz ranks.
// Remainders are spread one cell each over the first ranks of a dimension, so
// block sizes differ by at most one cell.
#include <mpi.h>

#include <array>

#include "box.hpp"
#include "neighbourhood.hpp"

namespace mpsfw {

// Offset and length of block `coord` when n cells are split over p blocks.
struct Span1D {
  int offset = 0, count = 0;
};
Span1D split_evenly(int n, int p, int coord);

// px*py*pz for `ranks` ranks: non-zeros in `hint` are kept; the zeros are
// chosen so that a block exchanges the fewest halo cells, a cell of a face
// across x counting `x_face_cost` times (see kStridedFaceCost); ties go to
// more ranks along z. Throws InputError if the hint does not multiply to
// `ranks` or no grid gives every rank at least one cell along each dimension.
Int3 choose_rank_grid(int ranks, Int3 hint, Int3 global_cells, double x_face_cost = 1.0);

class CartDecomposition {
 public:
  // Collective over `base`. `periodic` sets the wrap per dimension; `hint` and
  // `x_face_cost` choose the rank grid (choose_rank_grid).
  CartDecomposition(MPI_Comm base, Int3 global_cells, Int3 hint, std::array<bool, 3> periodic,
                    double x_face_cost = 1.0);
  ~CartDecomposition();
  CartDecomposition(const CartDecomposition&) = delete;
  CartDecomposition& operator=(const CartDecomposition&) = delete;

  MPI_Comm comm() const { return cart_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  Int3 global_cells() const { return global_; }
  Int3 rank_grid() const { return dims_; }
  Int3 coords() const { return coords_; }
  Int3 local_cells() const { return local_; }
  // Global index of this block's first interior cell.
  Int3 offset() const { return offset_; }
  bool periodic(int dim) const { return periodic_[static_cast<size_t>(dim)]; }
  // The rank of neighbour `n` (neighbourhood.hpp) in comm(), wrapping where
  // the dimension is periodic; MPI_PROC_NULL beyond a wall.
  int neighbour(int n) const { return neighbours_[static_cast<size_t>(n)]; }
  // The rank across `face`.
  int neighbour_across(int face) const { return neighbour(face_neighbour(face)); }

 private:
  MPI_Comm cart_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  Int3 global_, dims_, coords_, local_, offset_;
  std::array<bool, 3> periodic_{};
  std::array<int, kNeighbours> neighbours_{};
};

}  // namespace mpsfw
