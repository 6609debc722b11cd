#include "decomposition.hpp"

#include <string>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

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

namespace {

// Halo cells one block of `grid` exchanges per step (a face only where the
// dimension is cut), faces across x counted `x_face_cost` times.
double halo_cost(Int3 grid, Int3 cells, double x_face_cost) {
  Int3 block;
  for (int d = 0; d < 3; ++d) block[d] = (cells[d] + grid[d] - 1) / grid[d];
  const double weight[3] = {x_face_cost, 1.0, 1.0};
  double cost = 0;
  for (int d = 0; d < 3; ++d) {
    if (grid[d] > 1) {
      cost += 2.0 * weight[d] * static_cast<double>(block[(d + 1) % 3]) * block[(d + 2) % 3];
    }
  }
  return cost;
}

bool fits(Int3 grid, Int3 cells) {
  return grid.x <= cells.x && grid.y <= cells.y && grid.z <= cells.z;
}

}  // namespace

Int3 choose_rank_grid(int ranks, Int3 hint, Int3 global_cells, double x_face_cost) {
  for (int d = 0; d < 3; ++d) {
    if (hint[d] < 0) {
      throw InputError("rank grid " + to_text(hint) + " has a negative entry");
    }
  }
  const bool complete = hint.x > 0 && hint.y > 0 && hint.z > 0;
  if (complete && hint.product() != ranks) {
    throw InputError("rank grid " + to_text(hint) + " has " + std::to_string(hint.product()) +
                     " blocks but the job has " + std::to_string(ranks) + " ranks");
  }
  std::int64_t fixed = 1;
  for (int d = 0; d < 3; ++d) fixed *= hint[d] > 0 ? hint[d] : 1;
  if (!complete && ranks % fixed != 0) {
    throw InputError("rank grid " + to_text(hint) + " (0 = free) cannot be completed for " +
                     std::to_string(ranks) + " ranks");
  }
  for (int d = 0; d < 3; ++d) {
    if (hint[d] > global_cells[d]) {
      throw InputError("rank grid " + to_text(hint) + " puts more ranks than cells (" +
                       std::to_string(global_cells[d]) + ") along dimension " + "xyz"[d] +
                       "; use fewer ranks or another rank grid");
    }
  }
  // Every grid the hint allows; the cheapest halo wins, ties go to more cuts
  // along z, then y (their faces are whole rows in memory).
  Int3 best{0, 0, 0};
  double best_cost = 0;
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px != 0 || (hint.x > 0 && px != hint.x)) continue;
    for (int py = 1; py <= ranks / px; ++py) {
      if ((ranks / px) % py != 0 || (hint.y > 0 && py != hint.y)) continue;
      const Int3 grid{px, py, ranks / px / py};
      if ((hint.z > 0 && grid.z != hint.z) || !fits(grid, global_cells)) continue;
      const double cost = halo_cost(grid, global_cells, x_face_cost);
      const bool better =
          best.x == 0 || cost < best_cost ||
          (cost == best_cost && (grid.z > best.z || (grid.z == best.z && grid.y > best.y)));
      if (better) {
        best = grid;
        best_cost = cost;
      }
    }
  }
  if (best.x == 0) {
    throw InputError("no rank grid " + to_text(hint) + " (0 = free) for " + std::to_string(ranks) +
                     " ranks fits " + to_text(global_cells) +
                     " cells with at least one cell per rank along each dimension; use fewer "
                     "ranks");
  }
  return best;
}

CartDecomposition::CartDecomposition(MPI_Comm base, Int3 global_cells, Int3 hint,
                                     std::array<bool, 3> periodic, double x_face_cost)
    : global_(global_cells), periodic_(periodic) {
  int ranks = 0;
  MPSFW_MPI_CHECK(MPI_Comm_size(base, &ranks));
  dims_ = choose_rank_grid(ranks, hint, global_cells, x_face_cost);
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
  }
  for (int n = 0; n < kNeighbours; ++n) {
    int mpi_coords[3];  // MPI's order: z, y, x
    int rank = MPI_PROC_NULL;
    bool beyond_wall = false;
    for (int d = 0; d < 3; ++d) {
      const int at = coords_[d] + neighbour_step(n, d);
      beyond_wall =
          beyond_wall || (!periodic_[static_cast<size_t>(d)] && (at < 0 || at >= dims_[d]));
      mpi_coords[2 - d] = (at % dims_[d] + dims_[d]) % dims_[d];
    }
    if (!beyond_wall) MPSFW_MPI_CHECK(MPI_Cart_rank(cart_, mpi_coords, &rank));
    neighbours_[static_cast<size_t>(n)] = rank;
  }
}

CartDecomposition::~CartDecomposition() {
  if (cart_ != MPI_COMM_NULL) MPI_Comm_free(&cart_);
}

}  // namespace mpsfw
