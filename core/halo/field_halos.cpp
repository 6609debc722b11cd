#include "field_halos.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/halo/stream_signals.hpp"
#include "core/memory.hpp"
#include "core/mpi_check.hpp"
#include "halo_regions.hpp"
#include "region_copy.hpp"

namespace mpsfw {

int scalar_bytes(ScalarType type) { return type == ScalarType::Float32 ? 4 : 8; }
const char* to_string(ScalarType type) {
  return type == ScalarType::Float32 ? "float32" : "float64";
}

namespace {

constexpr std::int64_t kAlign = 8;  // message parts start on 8-byte boundaries

std::int64_t aligned(std::int64_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

}  // namespace

struct FieldHalos::Impl {
  struct Field {
    ScalarType type;
    std::vector<void*> buffers;
  };
  struct Neighbor {
    Int3 dir;
    int rank = MPI_PROC_NULL;
    bool pulled = false;
    // Pulls: the neighbour's buffers (field, buffer index), mapped here, and its layout.
    std::vector<std::vector<void*>> theirs;
    FieldLayout their_layout;
    // MPI: where this neighbour's message sits in the send and receive buffers.
    std::int64_t offset = 0, bytes = 0;
  };

  MPI_Comm comm;
  int me = 0;
  FieldLayout layout;
  HaloShape shape;
  Backend space;
  bool staged;
  PeerMemory& peer_memory;
  const CartDecomposition& decomposition;
  std::vector<Field> fields;
  std::vector<Neighbor> neighbors;
  bool connected = false, in_flight = false;

  Array<double> send, recv;  // in the fields' space; bytes, 8-aligned
  void* send_host = nullptr;
  void* recv_host = nullptr;
  std::int64_t message_bytes = 0;
  std::vector<MPI_Request> requests;
  std::vector<void*> current;  // of the exchange in flight
  bool planned = false;        // message layout of the current fields and routes
  // The copies of one call, by type (float, double): kept so that a step
  // reuses their storage instead of allocating.
  std::vector<RegionCopy> by_type[2];

  // Same-GPU pulls.
  bool active = false;  // this rank takes part in the GPU's per-step ordering
  MPI_Comm gpu_comm = MPI_COMM_NULL;
  std::unique_ptr<StreamSignals> signals;  // null: host barrier
  std::vector<void*> mapped;
  std::uint64_t steps = 0;
  std::string fallback;

  PhaseTimers untimed;
  PhaseTimers* timers = &untimed;

  Impl(const CartDecomposition& d, FieldLayout l, HaloShape s, Backend sp, bool cuda_aware,
       PeerMemory& pm)
      : comm(d.comm()),
        me(d.rank()),
        layout(l),
        shape(s),
        space(sp),
        staged(sp == Backend::Cuda && !cuda_aware),
        peer_memory(pm),
        decomposition(d) {}

  ~Impl() {
    if (in_flight)
      MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    memory::release_pinned(space, send_host);
    memory::release_pinned(space, recv_host);
    for (void* p : mapped) peer_memory.unmap(p);
    signals.reset();
    if (gpu_comm != MPI_COMM_NULL) MPI_Comm_free(&gpu_comm);
  }

  int buffer_index(int f, const void* p) const {
    const auto& b = fields[static_cast<size_t>(f)].buffers;
    const auto it = std::find(b.begin(), b.end(), p);
    if (it == b.end()) {
      throw Error("FieldHalos: field " + std::to_string(f) +
                  " passed in a buffer that was not given to add_field");
    }
    return static_cast<int>(it - b.begin());
  }

  // Message sizes for the neighbours that go through MPI; allocates the buffers.
  void plan_messages() {
    planned = true;
    message_bytes = 0;
    for (Neighbor& n : neighbors) {
      n.offset = n.bytes = 0;
      if (n.rank == MPI_PROC_NULL || n.pulled) continue;
      n.offset = message_bytes;
      for (const Field& f : fields) {
        n.bytes += aligned(send_region(layout, n.dir).cells() * scalar_bytes(f.type));
      }
      mpi_count(n.bytes, "a halo message's bytes", "use more ranks");  // refused here, not mid-run
      message_bytes += n.bytes;
    }
    const auto doubles = static_cast<size_t>(message_bytes / kAlign);
    send = Array<double>(space, doubles);
    recv = Array<double>(space, doubles);
    memory::release_pinned(space, send_host);
    memory::release_pinned(space, recv_host);
    send_host = recv_host = nullptr;
    if (staged && message_bytes > 0) {
      send_host = memory::allocate_pinned(space, static_cast<size_t>(message_bytes));
      recv_host = memory::allocate_pinned(space, static_cast<size_t>(message_bytes));
    }
  }

  void clear_copies() {
    by_type[0].clear();
    by_type[1].clear();
  }
  void run_copies() {
    copy_regions(space, ScalarType::Float32, by_type[0]);
    copy_regions(space, ScalarType::Float64, by_type[1]);
  }

  // Pack (to_message) or unpack copies of every MPI neighbour's message, per type.
  void move_messages(bool to_message) {
    clear_copies();
    char* base = reinterpret_cast<char*>(to_message ? send.data() : recv.data());
    for (const Neighbor& n : neighbors) {
      if (n.rank == MPI_PROC_NULL || n.pulled) continue;
      std::int64_t at = n.offset;
      for (size_t f = 0; f < fields.size(); ++f) {
        const Box box = to_message ? send_region(layout, n.dir) : halo_region(layout, n.dir);
        const StridedRegion message = dense_region(base + at, box);
        const StridedRegion field = field_region(current[f], layout, box);
        const int t = fields[f].type == ScalarType::Float32 ? 0 : 1;
        by_type[t].push_back(to_message ? RegionCopy{field, message, box.size()}
                                        : RegionCopy{message, field, box.size()});
        at += aligned(box.cells() * scalar_bytes(fields[f].type));
      }
    }
    run_copies();
  }

  void pull() {
    if (!active) return;
    // Neighbours done with the previous step have written what this step
    // pulls and pulled what this step overwrites.
    const std::uint64_t finished = steps++;
    if (signals) signals->wait_for_neighbors(finished);
    clear_copies();
    for (const Neighbor& n : neighbors) {
      if (!n.pulled) continue;
      for (size_t f = 0; f < fields.size(); ++f) {
        const int b = buffer_index(static_cast<int>(f), current[f]);
        const Box from = send_region(n.their_layout, opposite(n.dir));
        const Box to = halo_region(layout, n.dir);
        const int t = fields[f].type == ScalarType::Float32 ? 0 : 1;
        by_type[t].push_back(
            {field_region(n.theirs[f][static_cast<size_t>(b)], n.their_layout, from),
             field_region(current[f], layout, to), to.size()});
      }
    }
    run_copies();
  }

  std::string map_neighbors(const std::vector<DeviceLocation>& where, HaloSync sync);
};

FieldHalos::FieldHalos(const CartDecomposition& decomposition, FieldLayout layout, HaloShape shape,
                       Backend space, bool cuda_aware_mpi, PeerMemory& peer_memory)
    : impl_(std::make_unique<Impl>(decomposition, layout, shape, space, cuda_aware_mpi,
                                   peer_memory)) {
  if (shape.width < 1) throw Error("FieldHalos: the halo width must be at least 1");
  if (layout.halo != shape.width) {
    throw Error("FieldHalos: the field layout has a halo of " + std::to_string(layout.halo) +
                " cells, the exchange " + std::to_string(shape.width));
  }
  const char* axis = "xyz";
  for (const Int3& dir : halo_directions(shape.corners)) {
    Impl::Neighbor n;
    n.dir = dir;
    n.rank = decomposition.rank_at(dir);
    impl_->neighbors.push_back(n);
    for (int d = 0; d < 3; ++d) {
      // A halo wider than the neighbour's block would need cells of the rank beyond it.
      if (dir[d] != 0 && n.rank != MPI_PROC_NULL && layout.n[d] < shape.width) {
        throw InputError("a halo " + std::to_string(shape.width) +
                         " cells wide needs blocks at least " + std::to_string(shape.width) +
                         " cells thick; rank " + std::to_string(decomposition.rank()) + " has " +
                         std::to_string(layout.n[d]) + " along " + axis[d] +
                         " (use fewer ranks along " + axis[d] + ": /run/p" + axis[d] + ")");
      }
    }
  }
}

FieldHalos::~FieldHalos() = default;

int FieldHalos::add_field(ScalarType type, const std::vector<void*>& buffers) {
  if (impl_->connected) throw Error("FieldHalos::add_field after connect");
  if (buffers.empty()) throw Error("FieldHalos::add_field: a field needs at least one buffer");
  impl_->fields.push_back({type, buffers});
  impl_->planned = false;
  return static_cast<int>(impl_->fields.size()) - 1;
}

void FieldHalos::set_timers(PhaseTimers* timers) {
  impl_->timers = timers ? timers : &impl_->untimed;
}

void FieldHalos::start(const std::vector<void*>& current) {
  Impl& m = *impl_;
  if (m.in_flight) throw Error("FieldHalos::start called twice without finish");
  if (current.size() != m.fields.size()) {
    throw Error("FieldHalos::start: " + std::to_string(current.size()) + " buffers for " +
                std::to_string(m.fields.size()) + " fields");
  }
  for (size_t f = 0; f < current.size(); ++f) m.buffer_index(static_cast<int>(f), current[f]);
  if (!m.planned) m.plan_messages();
  m.current = current;
  char* recv_at = static_cast<char*>(m.staged ? m.recv_host : static_cast<void*>(m.recv.data()));
  char* send_at = static_cast<char*>(m.staged ? m.send_host : static_cast<void*>(m.send.data()));
  m.requests.assign(2 * m.neighbors.size(), MPI_REQUEST_NULL);
  // A message is tagged with the direction of the receiver's halo it fills,
  // so several messages between one pair of ranks (periodic wraps) stay apart.
  {
    PhaseTimers::Scope t(*m.timers, "halo post");
    for (size_t i = 0; i < m.neighbors.size(); ++i) {
      const Impl::Neighbor& n = m.neighbors[i];
      if (n.bytes == 0) continue;
      MPSFW_MPI_CHECK(MPI_Irecv(recv_at + n.offset, static_cast<int>(n.bytes), MPI_BYTE, n.rank,
                                direction_index(n.dir), m.comm, &m.requests[i]));
    }
  }
  if (m.message_bytes > 0) {
    PhaseTimers::Scope t(*m.timers, "halo pack");
    m.move_messages(true);
    if (m.staged) {
      memory::copy(m.send_host, Backend::Host, m.send.data(), m.space,
                   static_cast<size_t>(m.message_bytes));
    } else {
      memory::synchronize(m.space);  // device-pointer sends must not start before the pack is done
    }
  }
  {
    PhaseTimers::Scope t(*m.timers, "halo post");
    for (size_t i = 0; i < m.neighbors.size(); ++i) {
      const Impl::Neighbor& n = m.neighbors[i];
      if (n.bytes == 0) continue;
      MPSFW_MPI_CHECK(MPI_Isend(send_at + n.offset, static_cast<int>(n.bytes), MPI_BYTE, n.rank,
                                direction_index(opposite(n.dir)), m.comm,
                                &m.requests[m.neighbors.size() + i]));
    }
  }
  m.in_flight = true;
  PhaseTimers::Scope t(*m.timers, "halo pull");
  m.pull();
}

void FieldHalos::finish() {
  Impl& m = *impl_;
  if (!m.in_flight) throw Error("FieldHalos::finish called without start");
  {
    PhaseTimers::Scope t(*m.timers, "halo wait");
    MPSFW_MPI_CHECK(
        MPI_Waitall(static_cast<int>(m.requests.size()), m.requests.data(), MPI_STATUSES_IGNORE));
  }
  m.in_flight = false;
  if (m.message_bytes == 0) return;
  PhaseTimers::Scope t(*m.timers, "halo unpack");
  if (m.staged) {
    memory::copy(m.recv.data(), m.space, m.recv_host, Backend::Host,
                 static_cast<size_t>(m.message_bytes));
  }
  m.move_messages(false);
}

void FieldHalos::finish_step() {
  Impl& m = *impl_;
  if (!m.active || m.signals) return;  // GPU-side waits: the next pull tells the neighbours
  PhaseTimers::Scope t(*m.timers, "halo sync");
  memory::synchronize(m.space);
  MPSFW_MPI_CHECK(MPI_Barrier(m.gpu_comm));
}

void FieldHalos::quiesce() {
  Impl& m = *impl_;
  if (!m.active) return;
  PhaseTimers::Scope t(*m.timers, "halo sync");
  memory::synchronize(m.space);
  MPSFW_MPI_CHECK(MPI_Barrier(m.gpu_comm));
}

int FieldHalos::mpi_neighbors() const {
  int count = 0;
  for (const Impl::Neighbor& n : impl_->neighbors) {
    count += n.rank != MPI_PROC_NULL && !n.pulled ? 1 : 0;
  }
  return count;
}

int FieldHalos::pulled_neighbors() const {
  int count = 0;
  for (const Impl::Neighbor& n : impl_->neighbors) count += n.pulled ? 1 : 0;
  return count;
}

std::string FieldHalos::path() const {
  const Impl& m = *impl_;
  std::string p = m.space == Backend::Host ? "MPI, host memory"
                                           : (m.staged ? "MPI, staged through pinned host memory"
                                                       : "MPI, device memory (CUDA-aware)");
  if (m.active) {
    p += std::string("; neighbours on this or a peer GPU pulled device to device (") +
         describe(m.signals ? HaloOrdering::GpuWaits : HaloOrdering::HostBarrier) + ")";
  }
  if (!m.fallback.empty()) p += "; device-to-device pulls off: " + m.fallback;
  return p;
}

void FieldHalos::connect(HaloTransport mode, const DeviceLocation& where, HaloSync sync) {
  Impl& m = *impl_;
  if (m.connected) throw Error("FieldHalos::connect called twice");
  if (m.in_flight) throw Error("FieldHalos::connect during an exchange");
  m.connected = true;
  agree_on_error(m.comm,
                 mode == HaloTransport::Ipc && where.gpu.empty()
                     ? "run.halo = ipc needs the CUDA backend (this rank computes on the host)"
                     : "");
  if (mode == HaloTransport::Mpi) return;
  const std::vector<DeviceLocation> all =
      device_locations(m.comm, as_transport_allows(where, mode));
  m.gpu_comm = linked_communicator(m.comm, all);
  const std::string failed = first_error(m.comm, m.map_neighbors(all, sync));
  if (!failed.empty()) {
    for (void* p : m.mapped) m.peer_memory.unmap(p);
    m.mapped.clear();
    m.signals.reset();
    m.active = false;
    for (Impl::Neighbor& n : m.neighbors) {
      n.pulled = false;
      n.theirs.clear();
    }
    if (mode == HaloTransport::Ipc) throw AgreedError("run.halo = ipc: " + failed);
    m.fallback = failed;
  }
  m.plan_messages();
}

// What a rank tells the other ranks linked to its GPU: its block and handles
// for every buffer of every field, then its step counter.
std::string FieldHalos::Impl::map_neighbors(const std::vector<DeviceLocation>& where,
                                            HaloSync sync) {
  if (gpu_comm == MPI_COMM_NULL) return "";
  std::set<int> peers;  // linked neighbour ranks (this rank too, across a periodic wrap)
  for (Neighbor& n : neighbors) {
    n.pulled = n.rank != MPI_PROC_NULL &&
               device_link(where[static_cast<size_t>(me)], where[static_cast<size_t>(n.rank)]) !=
                   DeviceLink::None;
    if (n.pulled) peers.insert(n.rank);
  }
  int any = peers.empty() ? 0 : 1, all_any = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&any, &all_any, 1, MPI_INT, MPI_LOR, gpu_comm));
  active = all_any != 0;
  if (!active) return "";
  peers.erase(me);
  const bool signals_everywhere =
      agree_ordering(gpu_comm, sync, can_wait_on_gpu(space, static_cast<int>(peers.size()))) ==
      HaloOrdering::GpuWaits;

  size_t handles = 1;  // the step counter, then the buffers
  for (const Field& f : fields) handles += f.buffers.size();
  std::vector<PeerMemoryHandle> mine(handles);
  int cells[3] = {layout.n.x, layout.n.y, layout.n.z};
  std::string error;
  try {
    memory::synchronize(
        space);  // every buffer holds its initial values before a neighbour reads it
    if (signals_everywhere) {
      signals = std::make_unique<StreamSignals>(peer_memory);
      mine[0] = signals->handle();
    }
    size_t h = 1;
    for (const Field& f : fields) {
      for (void* b : f.buffers) mine[h++] = peer_memory.share(b);
    }
  } catch (const std::exception& e) {
    error = e.what();
  }
  int group = 0;
  MPSFW_MPI_CHECK(MPI_Comm_size(gpu_comm, &group));
  std::vector<int> ranks(static_cast<size_t>(group)), all_cells(3 * static_cast<size_t>(group));
  std::vector<PeerMemoryHandle> all(handles * static_cast<size_t>(group));
  MPSFW_MPI_CHECK(MPI_Allgather(&me, 1, MPI_INT, ranks.data(), 1, MPI_INT, gpu_comm));
  MPSFW_MPI_CHECK(MPI_Allgather(cells, 3, MPI_INT, all_cells.data(), 3, MPI_INT, gpu_comm));
  const int record = static_cast<int>(handles * sizeof(PeerMemoryHandle));
  MPSFW_MPI_CHECK(
      MPI_Allgather(mine.data(), record, MPI_BYTE, all.data(), record, MPI_BYTE, gpu_comm));
  int ok = error.empty() ? 1 : 0, all_ok = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, gpu_comm));
  if (!error.empty()) return "rank " + std::to_string(me) + ": " + error;
  if (!all_ok) return "";  // the failing rank says why

  // Map each neighbour's buffers once, however many directions it sits in.
  std::vector<std::pair<int, std::vector<std::vector<void*>>>> by_rank;
  try {
    for (Neighbor& n : neighbors) {
      if (!n.pulled) continue;
      if (n.rank == me) {
        n.their_layout = layout;
        for (const Field& f : fields) n.theirs.push_back(f.buffers);
        continue;
      }
      const auto at = std::find(ranks.begin(), ranks.end(), n.rank);
      if (at == ranks.end())
        throw Error("neighbour rank " + std::to_string(n.rank) + " is not on this GPU");
      const size_t g = static_cast<size_t>(at - ranks.begin());
      n.their_layout =
          FieldLayout({all_cells[3 * g], all_cells[3 * g + 1], all_cells[3 * g + 2]}, layout.halo);
      const auto known = std::find_if(by_rank.begin(), by_rank.end(),
                                      [&](const auto& r) { return r.first == n.rank; });
      if (known != by_rank.end()) {
        n.theirs = known->second;
        continue;
      }
      size_t h = g * handles + 1;
      for (const Field& f : fields) {
        std::vector<void*> buffers;
        for (size_t b = 0; b < f.buffers.size(); ++b) {
          mapped.push_back(peer_memory.map(all[h++]));
          buffers.push_back(mapped.back());
        }
        n.theirs.push_back(buffers);
      }
      if (signals) signals->add_neighbor(all[g * handles], n.rank);
      by_rank.emplace_back(n.rank, n.theirs);
    }
  } catch (const std::exception& e) {
    return "rank " + std::to_string(me) + " could not map a neighbour's field: " + e.what();
  }
  return "";
}

}  // namespace mpsfw
