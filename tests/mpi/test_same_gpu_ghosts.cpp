// MD ghosts between ranks on one GPU without a GPU (ctest runs this at 1, 2, 3
// and 4 ranks): host shared memory stands in for CUDA IPC
// (support/shared_window_memory.hpp) and a store whose position array lives
// in that memory stands in for the CUDA store. The ranks form a ring that all
// "share one GPU": list 0 goes to the left neighbour, list 1 to the right one
// (the other 24 lists to the rank itself). After connect, the pushes and the
// step's rendezvous, every rank's ghost
// slots hold its neighbours' send lists at the slots it announced, also after
// a rebuild that moved the slots and reallocated the array; a rank whose maps
// fail turns the direct path off for all (run.halo = auto) or stops the run
// (ipc). On one rank nothing is pushed. Through ParticleExchange, with an MD host store
// whose ghosts live in the window (support/windowed_md_store.hpp), pushed
// ghosts give the forces of MPI ghosts bit for bit. A push queued before any
// collective waits for its receiver's reads.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "support/md_runs.hpp"
#include "support/shared_window_memory.hpp"
#include "support/windowed_md_store.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/particle_exchange.hpp>
#include <mpsfw/core/particles/same_gpu_ghosts.hpp>
#include <mpsfw/solvers/md/md_initial.hpp>

namespace mpsfw {
namespace {

using testing_support::SharedWindowMemory;
using testing_support::WindowedHostStore;

constexpr long kCapacity = 256;  // atoms a rank's share of the window holds

// What sender `rank` puts into coordinate d of atom t of list `list`.
double code(int rank, int list, long t, int d) {
  return rank * 10000.0 + list * 1000.0 + static_cast<double>(t) * 10.0 + d;
}

// Three doubles per atom in the window; only what SameGpuGhosts calls.
class WindowStore final : public ParticleStore {
 public:
  WindowStore(double* positions, int rank) : positions_(positions), rank_(rank) {}
  long sends[kNeighbours] = {};
  long owned_count = 10;
  long generation = 1;

  long owned() const override { return owned_count; }
  long ghosts() const override { return 0; }
  Backend space() const override { return Backend::Host; }
  const void* positions_base() const override { return positions_; }
  long positions_generation() const override { return generation; }
  void push_sends(int list, void* target, long slot) override {
    end_ghost_reads();  // a rendezvous carried and not run yet, first
    double* out = static_cast<double*>(target) + 3 * slot;
    for (long t = 0; t < sends[list]; ++t) {
      for (int d = 0; d < 3; ++d) out[3 * t + d] = code(rank_, list, t, d);
    }
  }
  void synchronize() override {}
  // With `carries`, holds the rendezvous ahead as the CUDA store does, run by
  // end_ghost_reads (the pass that ends this rank's reads: MD's kick-drift)
  // or before the next pushes.
  bool carries = false;
  int carried_runs = 0;
  bool carry_rendezvous(const StepHandshake& h) override {
    if (!carries) return false;
    end_ghost_reads();
    carried_ = h;
    return true;
  }
  void run_carried_rendezvous() override { end_ghost_reads(); }
  // Ghost fields: `field_words` words a ghost; what the sender writes is
  // field_code(rank, list, t, c); unpack_ghost_fields keeps what it was
  // given, by ghost slot (`unpacked`).
  int field_words = 0;
  std::vector<std::vector<std::uint64_t>> unpacked;
  int ghost_field_words(std::uint32_t) const override { return field_words; }
  void push_ghost_fields(std::uint32_t, void* const targets[kNeighbours],
                         const long slots[kNeighbours]) override {
    for (int list = 0; list < kNeighbours; ++list) {
      if (targets[list] == nullptr) continue;
      auto* out = static_cast<std::uint64_t*>(targets[list]) + field_words * slots[list];
      for (long t = 0; t < sends[list]; ++t) {
        for (int c = 0; c < field_words; ++c)
          out[field_words * t + c] = field_code(rank_, list, t, c);
      }
    }
  }
  void unpack_ghost_fields(std::uint32_t, const std::uint64_t* in, long first,
                           long count) override {
    if (static_cast<long>(unpacked.size()) < first + count) unpacked.resize(first + count);
    for (long slot = first; slot < first + count; ++slot)
      unpacked[slot].assign(in + field_words * slot, in + field_words * (slot + 1));
  }
  static std::uint64_t field_code(int rank, int list, long t, int c) {
    return static_cast<std::uint64_t>(rank) * 100000 + list * 10000 + t * 10 + c;
  }

  void end_ghost_reads() {
    if (carried_.empty()) return;
    host_mark_and_wait(carried_);
    carried_ = StepHandshake{};
    ++carried_runs;
  }

  // Not used by SameGpuGhosts.
  RecordLayout record_layout() const override { unused(); }
  void take_leaving(const double[3], const double[3], ParticleRecords*) override { unused(); }
  void add_owned(const ParticleRecords&) override { unused(); }
  long fold_periodic(const bool[3], const double[3]) override { unused(); }
  void clear_ghosts() override { unused(); }
  void select_sends(const GhostBands&, long[kNeighbours]) override { unused(); }
  void pack_sends(std::uint32_t, double*) override { unused(); }
  void reserve_ghosts(long) override { unused(); }
  void unpack_ghosts(const double*, long, long) override { unused(); }
  void copy_sends_to_ghosts(std::uint32_t, const long[kNeighbours]) override { unused(); }
  void refresh_own_images() override { unused(); }

 private:
  [[noreturn]] static void unused() { throw Error("WindowStore: not used by this test"); }
  StepHandshake carried_;
  double* positions_;
  int rank_;
};

struct Ring {
  Ring() {
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (me + size - 1) % size;
    right = (me + 1) % size;
  }
  int me = 0, size = 1, left = 0, right = 0;
  // Sends of list 0 (to the left) and list 1 (to the right) of rank r.
  static long count(int list, int r) { return list == 0 ? 3 + r : 5 + r; }
  std::array<int, kNeighbours> neighbors() const {
    std::array<int, kNeighbours> n;
    n.fill(me);
    n[0] = left;
    n[1] = right;
    return n;
  }
  // Lists 0 and 1 around the ring; the others: a rank that is its own neighbour.
  void plan(GhostTransfer out[kNeighbours], WindowStore& store) const {
    out[0] = {left, right, count(0, me), 0, count(0, right)};
    out[1] = {right, left, count(1, me), count(0, right), count(1, left)};
    for (int list = 2; list < kNeighbours; ++list) out[list] = {me, me, 0, 0, 0};
    store.sends[0] = count(0, me);
    store.sends[1] = count(1, me);
  }
};

// Every rank on the test's one GPU.
DeviceLocation one_gpu() { return {"node-of-test", "gpu-of-test", {}}; }

// Even ranks on GPU a, odd ranks on GPU b (peers of each other or not).
DeviceLocation alternating_gpus(int rank, bool peers) {
  const std::string a = "gpu-a", b = "gpu-b";
  const bool even = rank % 2 == 0;
  DeviceLocation where{"node-of-test", even ? a : b, {}};
  if (peers) where.peers = {even ? b : a};
  return where;
}

MPI_Comm node_of_every_rank() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  return node;
}

// The pushes of one update; returns how many lists went device to device.
int push_all(SameGpuGhosts& ghosts, WindowStore& store) {
  int pushed = 0;
  for (int list = 0; list < kNeighbours; ++list) pushed += ghosts.pushes(list) ? 1 : 0;
  ghosts.push_all(store);
  return pushed;
}

// Every ghost slot holds what its sender pushed.
void expect_ghosts(const Ring& ring, const double* positions, long owned) {
  const int from[2] = {ring.right, ring.left};
  long slot = owned;
  for (int list = 0; list < 2; ++list) {
    for (long t = 0; t < Ring::count(list, from[list]); ++t, ++slot) {
      for (int d = 0; d < 3; ++d) {
        ASSERT_EQ(positions[3 * slot + d], code(from[list], list, t, d))
            << "rank " << ring.me << ", list " << list << ", ghost " << t;
      }
    }
  }
}

TEST(MdSameGpu, NeighboursPushIntoTheAnnouncedSlotsAcrossRebuilds) {
  const Ring ring;
  MPI_Comm node = node_of_every_rank();
  SharedWindowMemory shared(node, 3 * kCapacity);
  WindowStore store(shared.base(), ring.me);
  SameGpuGhosts ghosts(MPI_COMM_WORLD, ring.neighbors(), HaloTransport::Auto, HaloSync::Auto,
                       one_gpu(), &shared);
  GhostTransfer plan[kNeighbours];
  ring.plan(plan, store);
  ghosts.connect(store, plan);
  const int pushed = push_all(ghosts, store);
  if (ring.size == 1) {
    EXPECT_EQ(pushed, 0);
    EXPECT_EQ(ghosts.description(), "through MPI");
    MPI_Comm_free(&node);
    return;
  }
  EXPECT_EQ(pushed, 2);
  EXPECT_TRUE(ghosts.pushed_to_us(0) && ghosts.pushed_to_us(1));
  EXPECT_NE(ghosts.description().find("device to device"), std::string::npos)
      << ghosts.description();
  expect_ghosts(ring, shared.base(), store.owned_count);

  // A rebuild: more owned atoms (the ghost slots move) and a new array.
  std::fill(shared.base(), shared.base() + 3 * kCapacity, -1.0);
  MPI_Barrier(MPI_COMM_WORLD);
  store.owned_count = 20 + ring.me;
  ++store.generation;
  ghosts.connect(store, plan);
  push_all(ghosts, store);
  expect_ghosts(ring, shared.base(), store.owned_count);
  MPI_Comm_free(&node);
}

// Ghost fields take the positions' path: each sender writes its lists'
// words into the receiver's shared buffer, and the receiver's ghost slots
// get them in order, also after a rebuild with more ghosts (a larger buffer,
// shared anew) and with a rendezvous carried and not run yet.
TEST(MdSameGpu, GhostFieldsArriveInTheReceiversSlotsAcrossRebuilds) {
  const Ring ring;
  if (ring.size == 1) GTEST_SKIP() << "needs two ranks";
  MPI_Comm node = node_of_every_rank();
  SharedWindowMemory shared(node, 3 * kCapacity);
  WindowStore store(shared.base(), ring.me);
  store.field_words = 2;
  store.carries = true;
  SameGpuGhosts ghosts(MPI_COMM_WORLD, ring.neighbors(), HaloTransport::Auto, HaloSync::Auto,
                       one_gpu(), &shared);
  GhostTransfer plan[kNeighbours];
  const auto expect_fields = [&](long extra) {
    const int from[2] = {ring.right, ring.left};
    long slot = 0;
    for (int list = 0; list < 2; ++list) {
      for (long t = 0; t < Ring::count(list, from[list]) + extra; ++t, ++slot) {
        ASSERT_LT(slot, static_cast<long>(store.unpacked.size())) << "rank " << ring.me;
        for (int c = 0; c < store.field_words; ++c) {
          ASSERT_EQ(store.unpacked[slot][c], WindowStore::field_code(from[list], list, t, c))
              << "rank " << ring.me << ", list " << list << ", ghost " << t << ", word " << c;
        }
      }
    }
  };
  ring.plan(plan, store);
  ghosts.connect(store, plan);
  push_all(ghosts, store);  // the store carries the rendezvous ahead
  ghosts.push_fields(store, ParticleStore::kAllGhostFields);
  expect_fields(0);
  const int carried = store.carried_runs;
  EXPECT_GE(carried, 1) << "the carried rendezvous ran before the fields' own";

  // A rebuild: every list 40 ghosts longer, the buffer shared anew.
  MPI_Barrier(MPI_COMM_WORLD);
  store.unpacked.clear();
  for (int list = 0; list < 2; ++list) {
    plan[list].send_count += 40;
    store.sends[list] += 40;
  }
  plan[0].receive_count += 40;
  plan[1].receive_first += 40;
  plan[1].receive_count += 40;
  ghosts.connect(store, plan);
  push_all(ghosts, store);
  ghosts.push_fields(store, ParticleStore::kAllGhostFields);
  ghosts.push_fields(store, ParticleStore::kAllGhostFields);  // twice: the buffer is reused
  expect_fields(40);
  MPI_Comm_free(&node);
}

// A ring of ranks whose "GPU memory" is one shared window: the node's
// communicator, the window, a store in it and the ring's transfer plan.
struct SharedRing {
  const Ring ring;
  MPI_Comm node = node_of_every_rank();
  SharedWindowMemory shared{node, 3 * kCapacity};
  WindowStore store{shared.base(), ring.me};
  GhostTransfer plan[kNeighbours];
  SharedRing() { ring.plan(plan, store); }
  ~SharedRing() { MPI_Comm_free(&node); }
};

// Rank 1 "reads" its ghosts for `ms` (marks them, then waits) and must find
// them untouched: no neighbour pushed while it read.
void expect_rank_one_reads_undisturbed(SharedRing& r, int ms, const std::string& when) {
  if (r.ring.me != 1) return;
  double* slots = r.shared.base() + 3 * r.store.owned_count;
  const long doubles = 3 * (Ring::count(0, r.ring.right) + Ring::count(1, r.ring.left));
  std::fill(slots, slots + doubles, -1.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  const long touched = doubles - std::count(slots, slots + doubles, -1.0);
  EXPECT_EQ(touched, 0) << "a neighbour pushed while rank 1 still read its ghosts (" << when << ")";
}

// A push queued before any collective (GhostReads::MayRun: the particle step
// that queues its work before the neighbour check's answer) waits until its
// receiver has finished what it queued before: rank 1, still "reading" its
// ghosts for a while, finds them untouched, then everyone's pushes arrive.
TEST(MdSameGpu, APushBeforeAnyCollectiveWaitsForItsReceiversReads) {
  SharedRing r;
  if (r.ring.size == 1) GTEST_SKIP() << "needs two ranks";
  for (const HaloSync sync : {HaloSync::Auto, HaloSync::Barrier}) {
    SameGpuGhosts ghosts(MPI_COMM_WORLD, r.ring.neighbors(), HaloTransport::Auto, sync, one_gpu(),
                         &r.shared);
    ghosts.connect(r.store, r.plan);
    ASSERT_TRUE(ghosts.pushed_to_us(0) && ghosts.pushed_to_us(1));
    expect_rank_one_reads_undisturbed(r, 200, std::string("sync ") + to_string(sync));
    ghosts.push_all(r.store, GhostReads::MayRun);
    expect_ghosts(r.ring, r.shared.base(), r.store.owned_count);
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

// The same where the store carries the rendezvous ahead into the pass that
// ends its reads (the CUDA store: MD's kick-drift), instead of a launch of
// its own: the pushes still wait for rank 1's reads.
TEST(MdSameGpu, ARendezvousCarriedIntoTheReadsEndingPassWaitsForTheReceiversReads) {
  SharedRing r;
  if (r.ring.size == 1) GTEST_SKIP() << "needs two ranks";
  r.store.carries = true;
  for (const HaloSync sync : {HaloSync::Auto, HaloSync::Barrier}) {
    SameGpuGhosts ghosts(MPI_COMM_WORLD, r.ring.neighbors(), HaloTransport::Auto, sync, one_gpu(),
                         &r.shared);
    ghosts.connect(r.store, r.plan);
    ghosts.push_all(r.store);  // carries the next rendezvous ahead where it can
    MPI_Barrier(MPI_COMM_WORLD);
    const int runs_before = r.store.carried_runs;
    for (int step = 0; step < 3; ++step) {
      expect_rank_one_reads_undisturbed(
          r, 100, std::string("sync ") + to_string(sync) + ", step " + std::to_string(step));
      r.store.end_ghost_reads();
      ghosts.push_all(r.store, GhostReads::MayRun);
      expect_ghosts(r.ring, r.shared.base(), r.store.owned_count);
    }
    if (sync == HaloSync::Auto) {
      EXPECT_EQ(r.store.carried_runs - runs_before, 3) << "the store carried no rendezvous";
    }
    r.store.end_ghost_reads();
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST(MdSameGpu, ARankThatCannotMapTurnsTheDirectPathOffForAll) {
  const Ring ring;
  if (ring.size == 1) GTEST_SKIP() << "needs two ranks";
  MPI_Comm node = node_of_every_rank();
  SharedWindowMemory shared(node, 3 * kCapacity);
  if (ring.me == 1) shared.refuse_maps();
  WindowStore store(shared.base(), ring.me);
  GhostTransfer plan[kNeighbours];
  ring.plan(plan, store);
  {
    SameGpuGhosts ghosts(MPI_COMM_WORLD, ring.neighbors(), HaloTransport::Auto, HaloSync::Auto,
                         one_gpu(), &shared);
    ghosts.connect(store, plan);
    EXPECT_EQ(push_all(ghosts, store), 0);
    EXPECT_FALSE(ghosts.pushed_to_us(0) || ghosts.pushed_to_us(1));
    // Its neighbours' step counters already (the peer-link protocol maps
    // them when the ghosts are set up).
    EXPECT_NE(ghosts.description().find(
                  "rank 1 could not map a neighbour's memory: mapping refused by the test"),
              std::string::npos)
        << ghosts.description();
  }
  {
    // Under the host barrier nothing is mapped until the rebuild shares the
    // position arrays: the refusal comes there.
    SameGpuGhosts ghosts(MPI_COMM_WORLD, ring.neighbors(), HaloTransport::Auto, HaloSync::Barrier,
                         one_gpu(), &shared);
    ghosts.connect(store, plan);
    EXPECT_EQ(push_all(ghosts, store), 0);
    EXPECT_NE(ghosts.description().find("rank 1: mapping refused by the test"), std::string::npos)
        << ghosts.description();
  }
  try {
    SameGpuGhosts strict(MPI_COMM_WORLD, ring.neighbors(), HaloTransport::Ipc, HaloSync::Auto,
                         one_gpu(), &shared);
    strict.connect(store, plan);
    ADD_FAILURE() << "run.halo = ipc went on without the direct path";
  } catch (const AgreedError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "run.halo = ipc: rank 1 could not map a neighbour's memory: mapping refused"),
              std::string::npos)
        << e.what();
  }
  MPI_Comm_free(&node);
}

// Peer GPUs: around a ring of ranks on two GPUs in turn, every list crosses
// to the other GPU (with an odd rank count, one pair shares GPU a). GPUs
// that are peers push into each other device to device; GPUs that are not
// send through MPI, and so does every rank under run.halo = same-gpu.
TEST(MdSameGpu, PeerGpusPushDeviceToDeviceAndOthersUseMpi) {
  const Ring ring;
  if (ring.size < 2) GTEST_SKIP() << "needs two ranks";
  MPI_Comm node = node_of_every_rank();
  SharedWindowMemory shared(node, 3 * kCapacity);
  WindowStore store(shared.base(), ring.me);
  GhostTransfer plan[kNeighbours];
  ring.plan(plan, store);
  const auto same_gpu = [&](int other) { return (other % 2) == (ring.me % 2); };
  const int neighbour[2] = {ring.left, ring.right};
  {
    SameGpuGhosts peers(MPI_COMM_WORLD, ring.neighbors(), HaloTransport::Auto, HaloSync::Auto,
                        alternating_gpus(ring.me, true), &shared);
    peers.connect(store, plan);
    EXPECT_EQ(push_all(peers, store), 2);
    expect_ghosts(ring, shared.base(), store.owned_count);
    const bool crosses = !same_gpu(ring.left) || !same_gpu(ring.right);
    EXPECT_EQ(peers.description().find("between peer GPUs") != std::string::npos, crosses)
        << peers.description();
  }
  // GPUs that are not peers, and peers that run.halo = same-gpu leaves out:
  // only neighbours on this rank's own GPU are pushed to.
  for (const HaloTransport mode : {HaloTransport::Auto, HaloTransport::SameGpu}) {
    const bool peers = mode == HaloTransport::SameGpu;
    SameGpuGhosts apart(MPI_COMM_WORLD, ring.neighbors(), mode, HaloSync::Auto,
                        alternating_gpus(ring.me, peers), &shared);
    apart.connect(store, plan);
    for (int list = 0; list < 2; ++list) {
      EXPECT_EQ(apart.pushes(list), same_gpu(neighbour[list]))
          << "list " << list << " of rank " << ring.me << " (run.halo = " << to_string(mode) << ")";
    }
  }
  MPI_Comm_free(&node);
}

// The whole exchange through ParticleExchange: rebuilds (migration, the counts round,
// connect, the rebuild's positions pushed) and a step between them, with
// ghosts pushed into a shared window wherever ranks share the "GPU", give
// the same forces bit for bit as every ghost through MPI.
TEST(MdSameGpu, PushedGhostsGiveTheForcesOfMpiGhostsAcrossRebuilds) {
  const md::MdConfig c =
      testing_support::md_config({"md.cells_x=8", "md.cells_y=8", "md.cells_z=8"});
  CartDecomposition dec(MPI_COMM_WORLD, md::link_cells(c), {0, 0, 0}, {true, true, true});
  const Subdomain dom = subdomain_of(dec, c.box);
  const std::vector<md::AtomRecord> atoms = md::fcc_atoms(c, dom, MPI_COMM_WORLD);
  const double width = md::ghost_width(c);
  constexpr long kSlots = 8192;  // owned atoms and ghosts of one rank
  MPI_Comm node = node_of_every_rank();
  SharedWindowMemory shared(node, 3 * kSlots);
  // Run 0: every ghost through MPI (the reference); run 1: every rank on one
  // "GPU", all ghosts between ranks pushed; run 2: ranks on two GPUs in turn
  // that are not peers, pushed on one, through MPI across.
  const DeviceLocation where[3] = {one_gpu(), one_gpu(), alternating_gpus(dec.rank(), false)};
  std::vector<double> forces[3];
  std::vector<md::AtomRecord> moved[3];
  for (int run = 0; run < 3; ++run) {
    std::unique_ptr<md::MdStore> store;
    if (run > 0) {
      store = std::make_unique<WindowedHostStore>(shared.base(), kSlots, c.pair);
    } else {
      store = md::make_md_store(Backend::Host, c.pair);
    }
    ParticleExchange comm(dec, dom, width, run > 0 ? HaloTransport::Auto : HaloTransport::Mpi,
                          HaloSync::Auto, where[run], &shared);
    store->assign(atoms);
    for (int rebuild = 0; rebuild < 2; ++rebuild) {
      store->kick_drift(0.5 * c.dt, 10 * c.dt, c.mass);  // atoms cross faces
      comm.migrate(*store);
      store->sort_by_cell(comm.cell_grid());
      comm.exchange_ghosts(*store);
      store->build_neighbors(comm.cell_grid(), width);
      store->compute_forces();
    }
    store->kick_drift(0.5 * c.dt, c.dt, c.mass);  // a step between rebuilds
    // The solver's neighbour check (an all-reduce after each rank's forces)
    // keeps a push from landing while its receiver still reads its ghosts.
    MPI_Barrier(MPI_COMM_WORLD);
    comm.update_ghosts(*store);
    store->compute_forces();
    if (run == 1 && dec.size() > 1) {
      EXPECT_NE(comm.ghost_path().find("device to device"), std::string::npos) << comm.ghost_path();
    }
    forces[run] = store->download_forces();
    moved[run] = store->download();
  }
  for (int run = 1; run < 3; ++run) {
    ASSERT_EQ(forces[0].size(), forces[run].size()) << "rank " << dec.rank() << ", run " << run;
    long differ = 0;
    for (size_t k = 0; k < forces[0].size(); ++k) differ += forces[0][k] != forces[run][k];
    for (size_t i = 0; i < moved[0].size(); ++i) differ += moved[0][i].id != moved[run][i].id;
    EXPECT_EQ(differ, 0) << "rank " << dec.rank() << ", run " << run
                         << ": forces or atoms that differ from MPI ghosts";
  }
  MPI_Comm_free(&node);
}

}  // namespace
}  // namespace mpsfw
