#include "md_comm.hpp"

#include <mpi.h>

#include <cmath>

#include "core/error.hpp"
#include "core/mpi_check.hpp"

namespace mpsfw::md {
namespace {

// Sends `out` to rank `to` and receives from rank `from` (counts first).
template <class Record>
std::vector<Record> shift(MPI_Comm comm, const std::vector<Record>& out, int to, int from, int tag) {
  long send_count = static_cast<long>(out.size()), recv_count = 0;
  MPSFW_MPI_CHECK(MPI_Sendrecv(&send_count, 1, MPI_LONG, to, tag, &recv_count, 1, MPI_LONG, from, tag,
                               comm, MPI_STATUS_IGNORE));
  std::vector<Record> in(static_cast<size_t>(recv_count));
  const long bytes_out = send_count * static_cast<long>(sizeof(Record));
  const long bytes_in = recv_count * static_cast<long>(sizeof(Record));
  if (bytes_out > (1L << 31) - 1 || bytes_in > (1L << 31) - 1) {
    throw Error("MD: a message of more than 2 GiB between neighbours; use more ranks");
  }
  MPSFW_MPI_CHECK(MPI_Sendrecv(out.data(), static_cast<int>(bytes_out), MPI_BYTE, to, tag + 1,
                               in.data(), static_cast<int>(bytes_in), MPI_BYTE, from, tag + 1, comm,
                               MPI_STATUS_IGNORE));
  return in;
}

}  // namespace

void MdComm::migrate(MdStore& store) const {
  MPI_Comm comm = decomposition_.comm();
  const Int3 coords = decomposition_.coords(), dims = decomposition_.rank_grid();
  for (int d = 0; d < 3; ++d) {
    std::vector<AtomRecord> to_low, to_high;
    store.take_leaving(d, domain_.lo[d], domain_.hi[d], &to_low, &to_high);
    // Through the periodic edge an atom arrives as its image inside the box.
    if (coords[d] == 0) {
      for (AtomRecord& a : to_low) a.x[d] = across_periodic_edge(a.x[d], domain_.box[d]);
    }
    if (coords[d] == dims[d] - 1) {
      for (AtomRecord& a : to_high) a.x[d] = across_periodic_edge(a.x[d], domain_.box[d]);
    }
    const int low = decomposition_.neighbor(2 * d), high = decomposition_.neighbor(2 * d + 1);
    std::vector<AtomRecord> from_high = shift(comm, to_low, low, high, 10 + 4 * d);
    std::vector<AtomRecord> from_low = shift(comm, to_high, high, low, 12 + 4 * d);
    for (const auto* arrived : {&from_high, &from_low}) {
      for (const AtomRecord& a : *arrived) {
        if (!(a.x[d] >= domain_.lo[d] && a.x[d] < domain_.hi[d])) {  // also NaN
          throw Error("MD: atom " + std::to_string(a.id) + " moved farther than one subdomain in one "
                      "step (at " + std::to_string(a.x[d]) + " along " + "xyz"[d] +
                      "): the time step is too large or the system blew up");
        }
      }
      store.add_owned(*arrived);
    }
  }
}

void MdComm::exchange_ghosts(MdStore& store) const {
  MPI_Comm comm = decomposition_.comm();
  store.clear_ghosts();
  const Int3 coords = decomposition_.coords(), dims = decomposition_.rank_grid();
  for (int d = 0; d < 3; ++d) {
    std::vector<GhostRecord> to_low, to_high;
    store.select_ghosts(d, domain_.lo[d] + cutoff_, domain_.hi[d] - cutoff_, &to_low, &to_high);
    // Across the periodic edge an image is shifted by the box length.
    if (coords[d] == 0) {
      for (GhostRecord& g : to_low) g.x[d] += domain_.box[d];
    }
    if (coords[d] == dims[d] - 1) {
      for (GhostRecord& g : to_high) g.x[d] -= domain_.box[d];
    }
    const int low = decomposition_.neighbor(2 * d), high = decomposition_.neighbor(2 * d + 1);
    const std::vector<GhostRecord> from_high = shift(comm, to_low, low, high, 30 + 4 * d);
    const std::vector<GhostRecord> from_low = shift(comm, to_high, high, low, 32 + 4 * d);
    store.add_ghosts(from_high);
    store.add_ghosts(from_low);
  }
}

CellGrid MdComm::cell_grid() const {
  CellGrid g;
  for (int d = 0; d < 3; ++d) {
    const double extent = domain_.hi[d] - domain_.lo[d] + 2 * cutoff_;
    g.origin[d] = domain_.lo[d] - cutoff_;
    g.count[d] = std::max(3, static_cast<int>(std::floor(extent / cutoff_)));
    g.width[d] = extent / g.count[d];
  }
  return g;
}

}  // namespace mpsfw::md
