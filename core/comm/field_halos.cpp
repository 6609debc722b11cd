#include "field_halos.hpp"

#include <algorithm>
#include <array>

#include "halo_regions.hpp"
#include "neighbour_messages.hpp"
#include "peer_links.hpp"
#include "region_copy.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

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
    bool direct = false;    // pulled or pushed device to device
    bool peer_gpu = false;  // of those, on another GPU
    // Device to device: the neighbour's buffers (field, buffer index), mapped here, and its layout.
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
  PeerMemory& peer_memory;
  const CartDecomposition& decomposition;
  std::vector<Field> fields;
  std::vector<Neighbor> neighbors;
  bool connected = false, in_flight = false;
  HaloDelivery delivery = HaloDelivery::Pull;
  HaloRoutes routes;

  // Every MPI neighbour's message, all fields in each.
  NeighbourMessages messages;
  std::int64_t message_bytes = 0;
  std::vector<void*> current;  // of the exchange in flight (kept: no allocation a step)
  bool planned = false;        // message layout of the current fields and routes
  // The copies of one call, by type (float, double): kept so that a step
  // reuses their storage instead of allocating.
  std::vector<RegionCopy> by_type[2];

  // Device to device.
  std::unique_ptr<PeerLinks> links;  // after connect
  std::uint64_t steps = 0;           // steps whose handshake has been marked
  bool active() const { return links && links->active(); }
  // Push: pushes[field][buffer] into the neighbours' buffers of that index.
  std::vector<std::vector<HaloPushes>> pushes;
  HaloPushes no_pushes;

  PhaseTimers untimed;
  PhaseTimers* timers = &untimed;

  Impl(const CartDecomposition& d, FieldLayout l, HaloShape s, Backend sp, bool cuda_aware,
       PeerMemory& pm)
      : comm(d.comm()),
        me(d.rank()),
        layout(l),
        shape(s),
        space(sp),
        peer_memory(pm),
        decomposition(d),
        messages(d.comm(), sp, cuda_aware) {}

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
      if (n.rank == MPI_PROC_NULL || n.direct) continue;
      n.offset = message_bytes;
      for (const Field& f : fields) {
        n.bytes += aligned(send_region(layout, n.dir).cells() * scalar_bytes(f.type));
      }
      message_bytes += n.bytes;
    }
    // A message is tagged with the direction of the receiver's halo it
    // fills, so several messages between one pair of ranks (periodic wraps)
    // stay apart.
    std::vector<NeighbourMessages::Message> receives, sends;
    for (const Neighbor& n : neighbors) {
      receives.push_back({n.rank, neighbour_index(n.dir), n.offset, n.bytes});
      sends.push_back({n.rank, neighbour_index(opposite(n.dir)), n.offset, n.bytes});
    }
    messages.plan(receives, sends);
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
    char* base = to_message
                     ? static_cast<char*>(messages.send_buffer())
                     : const_cast<char*>(static_cast<const char*>(messages.receive_buffer()));
    for (const Neighbor& n : neighbors) {
      if (n.rank == MPI_PROC_NULL || n.direct) continue;
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

  // Pull delivery with linked neighbours (start() asks).
  void pull() {
    // Neighbours done with the previous step have written what this step
    // pulls and pulled what this step overwrites.
    const std::uint64_t finished = steps++;
    if (links->gpu_waits()) links->rendezvous(finished);
    clear_copies();
    for (const Neighbor& n : neighbors) {
      if (!n.direct) continue;
      for (size_t f = 0; f < fields.size(); ++f) {
        const int b = buffer_index(static_cast<int>(f), current[f]);
        const int t = fields[f].type == ScalarType::Float32 ? 0 : 1;
        by_type[t].push_back(halo_pull(current[f], layout, n.theirs[f][static_cast<size_t>(b)],
                                       n.their_layout, n.dir));
      }
    }
    run_copies();
  }

  // The linked neighbours' buffers, from the links (this rank's own across
  // a periodic wrap onto itself).
  void take_peers();
  void resolve_routes();
  // Push: refuses what the pushes cannot carry (before anything collective).
  void check_pushable() const;
  // Push: the targets in the neighbours' buffers, and buffer 0's direct
  // halos filled once (nobody pushed into them).
  void plan_pushes();
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
  for (const Int3& dir : neighbour_offsets(shape.corners)) {
    Impl::Neighbor n;
    n.dir = dir;
    n.rank = decomposition.neighbour(neighbour_index(dir));
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
  impl_->messages.set_timers(impl_->timers);
}

void FieldHalos::start(void* const* current, size_t count) {
  Impl& m = *impl_;
  if (m.in_flight) throw Error("FieldHalos::start called twice without finish");
  if (count != m.fields.size()) {
    throw Error("FieldHalos::start: " + std::to_string(count) + " buffers for " +
                std::to_string(m.fields.size()) + " fields");
  }
  for (size_t f = 0; f < count; ++f) m.buffer_index(static_cast<int>(f), current[f]);
  if (!m.planned) m.plan_messages();
  m.current.assign(current, current + count);
  m.messages.post_receives();
  if (m.message_bytes > 0) {
    PhaseTimers::Scope t(*m.timers, "halo pack");
    m.move_messages(true);
  }
  m.messages.send();
  m.in_flight = true;
  if (m.active() && m.delivery == HaloDelivery::Pull) {
    PhaseTimers::Scope t(*m.timers, "halo pull");
    m.pull();
  }
}

void FieldHalos::finish() {
  Impl& m = *impl_;
  if (!m.in_flight) throw Error("FieldHalos::finish called without start");
  m.in_flight = false;
  m.messages.wait();
  if (m.message_bytes == 0) return;
  PhaseTimers::Scope t(*m.timers, "halo unpack");
  m.move_messages(false);
}

const HaloPushes& FieldHalos::pushes(int field, const void* next) const {
  const Impl& m = *impl_;
  if (m.pushes.empty()) return m.no_pushes;
  const int b = m.buffer_index(field, next);
  return m.pushes[static_cast<size_t>(field)][static_cast<size_t>(b)];
}

StepHandshake FieldHalos::step_handshake() const {
  const Impl& m = *impl_;
  if (!m.active() || m.delivery != HaloDelivery::Push) return {};
  return m.links->handshake(m.steps + 1);
}

void FieldHalos::finish_step(Handshake handshake) {
  Impl& m = *impl_;
  if (!m.active()) return;
  if (m.delivery == HaloDelivery::Pull) {
    if (m.links->gpu_waits()) return;  // the next pull marks this step and waits
    PhaseTimers::Scope t(*m.timers, "halo sync");
    m.links->rendezvous(m.steps);
    return;
  }
  ++m.steps;
  if (m.links->gpu_waits() && handshake == Handshake::RunByCaller) return;
  PhaseTimers::Scope t(*m.timers, "halo sync");
  m.links->rendezvous(m.steps);
}

void FieldHalos::set_peer_wait(const PeerWait& wait) {
  Impl& m = *impl_;
  if (m.links) m.links->set_peer_wait(wait, m.steps);
}

void FieldHalos::quiesce() {
  Impl& m = *impl_;
  if (!m.active()) return;
  PhaseTimers::Scope t(*m.timers, "halo sync");
  m.links->quiesce();
}

int FieldHalos::mpi_neighbors() const {
  int count = 0;
  for (const Impl::Neighbor& n : impl_->neighbors) {
    count += n.rank != MPI_PROC_NULL && !n.direct ? 1 : 0;
  }
  return count;
}

int FieldHalos::direct_neighbors() const {
  int count = 0;
  for (const Impl::Neighbor& n : impl_->neighbors) count += n.direct ? 1 : 0;
  return count;
}

const HaloRoutes& FieldHalos::routes() const { return impl_->routes; }

bool FieldHalos::staged_through_host() const { return impl_->messages.staged(); }

std::string FieldHalos::path() const {
  const Impl& m = *impl_;
  std::string p = m.messages.path();
  if (m.active()) {
    const char* how = m.delivery == HaloDelivery::Pull ? "pulled" : "pushed";
    p += std::string("; neighbours on this or a peer GPU ") + how + " device to device (" +
         describe(m.links->ordering()) + ")";
  }
  if (m.links && !m.links->fallback().empty()) {
    p += "; device-to-device halos off: " + m.links->fallback();
  }
  return p;
}

void FieldHalos::connect(HaloTransport mode, const DeviceLocation& where, HaloSync sync,
                         HaloDelivery delivery) {
  Impl& m = *impl_;
  if (m.connected) throw Error("FieldHalos::connect called twice");
  if (m.in_flight) throw Error("FieldHalos::connect during an exchange");
  m.connected = true;
  m.delivery = delivery;
  if (delivery == HaloDelivery::Push) m.check_pushable();
  m.links = std::make_unique<PeerLinks>(m.comm, mode, where, &m.peer_memory, m.space);
  std::vector<int> linked;
  for (Impl::Neighbor& n : m.neighbors) {
    const DeviceLink link = m.links->link_to(n.rank);
    n.direct = link != DeviceLink::None;
    n.peer_gpu = link == DeviceLink::PeerGpu;
    if (n.direct) linked.push_back(n.rank);
  }
  std::vector<void*> buffers;
  for (const Impl::Field& f : m.fields)
    buffers.insert(buffers.end(), f.buffers.begin(), f.buffers.end());
  if (m.links->connect(sync, linked, buffers, m.layout.n)) {
    m.take_peers();
    if (delivery == HaloDelivery::Push) m.plan_pushes();
  } else {
    for (Impl::Neighbor& n : m.neighbors) n.direct = n.peer_gpu = false;
  }
  m.plan_messages();
  m.resolve_routes();
}

void FieldHalos::Impl::check_pushable() const {
  if (shape.width != 1 || shape.corners) {
    throw Error("FieldHalos: push delivery fills one-cell face halos; this exchange is " +
                std::to_string(shape.width) + " cells wide" +
                (shape.corners ? ", with edges and corners" : ""));
  }
  for (size_t f = 0; f < fields.size(); ++f) {
    if (fields[f].type != ScalarType::Float64 || fields[f].buffers.size() < 2) {
      throw Error("FieldHalos: push delivery needs double fields of at least two buffers; field " +
                  std::to_string(f) + " is " + to_string(fields[f].type) + " with " +
                  std::to_string(fields[f].buffers.size()) + " buffer(s)");
    }
  }
}

void FieldHalos::Impl::plan_pushes() {
  clear_copies();  // by_type[1]: the first fill, doubles
  pushes.assign(fields.size(), {});
  for (size_t f = 0; f < fields.size(); ++f) {
    pushes[f].assign(fields[f].buffers.size(), HaloPushes{});
    for (const Neighbor& n : neighbors) {
      if (!n.direct) continue;
      const int face = face_of(n.dir);
      for (size_t b = 0; b < fields[f].buffers.size(); ++b) {
        HaloPushes& p = pushes[f][b];
        p.face[face] =
            push_target(layout, face, n.their_layout, static_cast<double*>(n.theirs[f][b]));
        p.faces |= 1u << face;
        p.other_gpu = p.other_gpu || n.peer_gpu;
      }
      by_type[1].push_back(
          halo_pull(fields[f].buffers[0], layout, n.theirs[f][0], n.their_layout, n.dir));
    }
  }
  // The neighbours overwrite what this reads no earlier than their second
  // step, which waits for this rank's first.
  run_copies();
  memory::synchronize(space);
}

void FieldHalos::Impl::resolve_routes() {
  routes = HaloRoutes{};
  for (const Neighbor& n : neighbors) {
    if (n.rank == MPI_PROC_NULL || !is_face_offset(n.dir)) continue;
    const FaceMask bit = 1u << face_of(n.dir);
    (n.direct ? routes.direct : routes.mpi) |= bit;
    if (n.peer_gpu) routes.peer_gpu |= bit;
  }
  routes.direct_to_others = std::any_of(neighbors.begin(), neighbors.end(), [&](const Neighbor& n) {
    return n.direct && n.rank != me;
  });
  routes.ordering = links ? links->ordering() : HaloOrdering::None;
  routes.fallback = links ? links->fallback() : std::string();
}

void FieldHalos::Impl::take_peers() {
  for (Neighbor& n : neighbors) {
    if (!n.direct) continue;
    const PeerLinks::Peer* p = links->peer(n.rank);
    if (p == nullptr) {  // this rank, across a periodic wrap
      n.their_layout = layout;
      for (const Field& f : fields) n.theirs.push_back(f.buffers);
      continue;
    }
    n.their_layout = FieldLayout(p->cells, layout.halo, layout.flat_axes());
    size_t b = 0;
    for (const Field& f : fields) {
      n.theirs.emplace_back(p->buffers.begin() + static_cast<std::ptrdiff_t>(b),
                            p->buffers.begin() + static_cast<std::ptrdiff_t>(b + f.buffers.size()));
      b += f.buffers.size();
    }
  }
}

}  // namespace mpsfw
