#include "direct_peers.hpp"

#include "core/base/error.hpp"
#include "core/device/memory.hpp"
#include "core/device/peer_memory.hpp"
#include "core/parallel/mpi_check.hpp"
#include "face_geometry.hpp"

namespace mpsfw {

DirectPeers::DirectPeers(MPI_Comm comm, const std::array<int, kFaces>& neighbors,
                         FieldLayout layout, Backend space, PeerMemory& memory)
    : comm_(comm), neighbors_(neighbors), layout_(layout), space_(space), memory_(memory) {}

DirectPeers::~DirectPeers() = default;

void DirectPeers::connect(HaloTransport mode, HaloSync sync, const DeviceLocation& where,
                          const std::array<double*, 2>& fields) {
  links_ = std::make_unique<PeerLinks>(comm_, mode, where, &memory_, space_);
  FaceMask faces = 0, other_gpu = 0;
  std::vector<int> linked;
  for (int f = 0; f < kFaces; ++f) {
    const int n = neighbors_[static_cast<size_t>(f)];
    const DeviceLink link = links_->link_to(n);
    if (link == DeviceLink::None) continue;
    faces |= 1u << f;
    if (link == DeviceLink::PeerGpu) other_gpu |= 1u << f;
    linked.push_back(n);
  }
  if (!links_->connect(sync, linked, {fields[0], fields[1]}, layout_.n) || faces == 0) return;
  faces_ = faces;
  peer_gpu_faces_ = other_gpu;
  fields_ = {fields[0], fields[1]};
  plan_pushes(other_gpu, fields);
  // Nobody pushed into the first buffer's halo: fill it once. The
  // neighbours overwrite what this reads no earlier than their second step,
  // which waits for this rank's first.
  copy_regions(space_, ScalarType::Float64, first_fill_);
  memory::synchronize(space_);
}

void DirectPeers::plan_pushes(FaceMask other_gpu, const std::array<double*, 2>& fields) {
  for (int f = 0; f < kFaces; ++f) {
    if (!(faces_ & (1u << f))) continue;
    const int n = neighbors_[static_cast<size_t>(f)];
    std::array<double*, 2> theirs = fields;  // across a periodic wrap onto this rank
    FieldLayout peer = layout_;
    if (const PeerLinks::Peer* p = links_->peer(n)) {
      peer = FieldLayout(p->cells);
      for (int b = 0; b < 2; ++b) {
        theirs[static_cast<size_t>(b)] = static_cast<double*>(p->buffers[static_cast<size_t>(b)]);
      }
    }
    first_fill_.add(face_pull(layout_, fields[0], peer, theirs[0], f));
    for (int b = 0; b < 2; ++b) {
      HaloPushes& push = pushes_[static_cast<size_t>(b)];
      push.face[f] = push_target(layout_, f, peer, theirs[static_cast<size_t>(b)]);
      push.faces |= 1u << f;
      push.other_gpu = push.other_gpu || ((other_gpu >> f) & 1u);
    }
  }
}

const std::string& DirectPeers::fallback_reason() const {
  static const std::string none;
  return links_ ? links_->fallback() : none;
}

int DirectPeers::buffer_index(const double* field) const {
  if (field == fields_[0]) return 0;
  if (field == fields_[1]) return 1;
  throw Error(
      "same-GPU halos: the field is neither of the two buffers given to "
      "connect_direct_peers");
}

const HaloPushes& DirectPeers::pushes(const double* next) const {
  if (faces_ == 0) return no_pushes_;
  return pushes_[static_cast<size_t>(buffer_index(next))];
}

StepHandshake DirectPeers::step_handshake() const {
  return links_ ? links_->handshake(steps_ + 1) : StepHandshake{};
}

void DirectPeers::finish_step(Handshake handshake) {
  if (!active()) return;
  ++steps_;
  if (links_->gpu_waits() && handshake == Handshake::RunByCaller) return;
  links_->rendezvous(steps_);
}

void DirectPeers::set_peer_wait(const PeerWait& wait) {
  if (links_) links_->set_peer_wait(wait, steps_);
}

void DirectPeers::quiesce() {
  if (links_) links_->quiesce();
}

}  // namespace mpsfw
