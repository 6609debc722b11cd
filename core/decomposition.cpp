#include "decomposition.hpp"

#include <string>

#include "error.hpp"
#include "mpi_check.hpp"

namespace mpsfw {

Span1D split_evenly(int n, int p, int coord) {
  const int base = n / p;
  const int extra = n % p;
  Span1D s;
  s.count = base + (coord < extra ? 1 : 0);
  s.offset = coord * base + (coord < extra ? coord : extra);
  return s;
}

static std::string to_text(Int3 v) {
  return std::to_string(v.x) + "x" + std::to_string(v.y) + "x" + std::to_string(v.z);
}

Int3 choose_rank_grid(int ranks, Int3 hint, Int3 global_cells) {
  for (int d = 0; d < 3; ++d) {
    if (hint[d] < 0) {
      throw InputError("rank grid " + to_text(hint) + " has a negative entry");
    }
  }
  int dims[3] = {hint.x, hint.y, hint.z};
  const bool complete = hint.x > 0 && hint.y > 0 && hint.z > 0;
  if (complete && hint.product() != ranks) {
    throw InputError("rank grid " + to_text(hint) + " has " + std::to_string(hint.product()) +
                     " blocks but the job has " + std::to_string(ranks) + " ranks");
  }
  if (!complete) {
    std::int64_t fixed = 1;
    for (int d = 0; d < 3; ++d) fixed *= hint[d] > 0 ? hint[d] : 1;
    if (ranks % fixed != 0) {
      throw InputError("rank grid " + to_text(hint) + " (0 = free) cannot be completed for " +
                       std::to_string(ranks) + " ranks");
    }
    MPSFW_MPI_CHECK(MPI_Dims_create(ranks, 3, dims));
  }
  const Int3 grid{dims[0], dims[1], dims[2]};
  for (int d = 0; d < 3; ++d) {
    if (grid[d] > global_cells[d]) {
      throw InputError("rank grid " + to_text(grid) + " puts more ranks than cells (" +
                       std::to_string(global_cells[d]) + ") along dimension " + "xyz"[d] +
                       "; use fewer ranks or another rank grid");
    }
  }
  return grid;
}

CartDecomposition::CartDecomposition(MPI_Comm base, Int3 global_cells, Int3 hint,
                                     std::array<bool, 3> periodic)
    : global_(global_cells), periodic_(periodic) {
  int ranks = 0;
  MPSFW_MPI_CHECK(MPI_Comm_size(base, &ranks));
  dims_ = choose_rank_grid(ranks, hint, global_cells);
  // MPI orders Cartesian ranks with the last dimension fastest; we pass (z, y, x)
  // so that x is fastest, matching the field's memory order.
  const int dims[3] = {dims_.z, dims_.y, dims_.x};
  const int periods[3] = {periodic[2], periodic[1], periodic[0]};
  MPSFW_MPI_CHECK(MPI_Cart_create(base, 3, dims, periods, /*reorder=*/0, &cart_));
  MPI_Comm_set_errhandler(cart_, MPI_ERRORS_RETURN);
  MPSFW_MPI_CHECK(MPI_Comm_rank(cart_, &rank_));
  MPSFW_MPI_CHECK(MPI_Comm_size(cart_, &size_));
  int c[3];
  MPSFW_MPI_CHECK(MPI_Cart_coords(cart_, rank_, 3, c));
  coords_ = {c[2], c[1], c[0]};
  for (int d = 0; d < 3; ++d) {
    const Span1D s = split_evenly(global_[d], dims_[d], coords_[d]);
    local_[d] = s.count;
    offset_[d] = s.offset;
    int lo = MPI_PROC_NULL, hi = MPI_PROC_NULL;
    MPSFW_MPI_CHECK(MPI_Cart_shift(cart_, 2 - d, 1, &lo, &hi));
    neighbors_[static_cast<size_t>(2 * d)] = lo;
    neighbors_[static_cast<size_t>(2 * d + 1)] = hi;
  }
}

CartDecomposition::~CartDecomposition() {
  if (cart_ != MPI_COMM_NULL) MPI_Comm_free(&cart_);
}

}  // namespace mpsfw
