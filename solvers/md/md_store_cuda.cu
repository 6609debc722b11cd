// CUDA backend of the MD store: every atom lives on the GPU as a structure of
// arrays. Kernels (md_kernels.cuh) do the per-atom updates, the neighbour-list
// build and the force loop (one thread per owned atom over its full list,
// stored transposed so that a warp's loads of the k-th neighbour are one
// coalesced read); CUB sorts atoms into cells (a radix sort over the cell
// index's bits) and compacts leaving atoms and the 26 ghost send lists (one
// selection, sorted by list) with their counts left on the device (one wait
// where the host needs them), Thrust finds the cells' starts and sums. Ghost
// positions are packed and unpacked on the device; what goes through MPI is
// staged in pinned host memory.
// Buffers keep their capacity, and the libraries' scratch is reused, so a
// step allocates nothing.
#include <thrust/binary_search.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "md_device_buffers.cuh"
#include "md_kernels.cuh"
#include "md_store.hpp"

namespace mpsfw::md {
namespace gpu {
namespace {

// Atom counts and indices are int on the device.
int checked_count(long n) {
  if (n < 0 || n > INT_MAX / 2) {
    throw Error("CUDA MD store: " + std::to_string(n) + " atoms are more than one rank can index");
  }
  return static_cast<int>(n);
}

// Element counts of device buffers are int too.
int checked_elements(long n, const char* what) {
  if (n < 0 || n > INT_MAX) {
    throw Error(std::string("CUDA MD store: ") + what + " of " + std::to_string(n) +
                " elements are more than one rank can index");
  }
  return static_cast<int>(n);
}

// Most ghost lists one atom can be in: along each dimension it is near no
// face, one, or both where the bands overlap (a subdomain narrower than two
// ghost widths); every combination but near none is a list.
int most_lists_per_atom(const GhostBands& bands) {
  int combinations = 1;
  for (int d = 0; d < 3; ++d) combinations *= bands.high[d] < bands.low[d] ? 3 : 2;
  return combinations - 1;
}

class CudaMdStore final : public MdStore {
  // Thrust on the default stream, its temporary storage from temp_ (defined
  // first: the members below deduce its type).
  mutable TempStorage temp_;
  auto policy() const { return thrust::cuda::par(temp_); }
  // For calls whose result stays on the device: no wait for the device at
  // the end (everything runs on one stream, so later work still follows).
  auto policy_nosync() const { return thrust::cuda::par_nosync(temp_); }

 public:
  ~CudaMdStore() override {
    if (moved_ready_ != nullptr) cudaEventDestroy(moved_ready_);
  }
  CudaMdStore(const CudaMdStore&) = delete;
  CudaMdStore& operator=(const CudaMdStore&) = delete;

  CudaMdStore() {
    farthest2_.reserve(2);
    selected_.reserve(2);
    longest_.reserve(1);
    MPSFW_CUDA_CHECK(cudaMemset(farthest2_.data(), 0, 2 * sizeof(unsigned long long)));
  }

  long owned() const override { return owned_; }
  long ghosts() const override { return ghosts_; }
  Backend space() const override { return Backend::Cuda; }

  double bytes_for(double owned, double ghosts, double neighbours) const override {
    // Owned: v, f, id, their spares, the positions at the build and spare,
    // energy and virial per atom; a list row as wide as build_neighbors makes
    // it (ints), and its count; its ghost-list mask and room for the
    // selection's entries (7 lists at most while the bands do not overlap).
    // Every atom: its position, the binning's key, order and sorted position,
    // an image slot and two message positions.
    const double row = neighbours + neighbours / 8 + 8;
    const double per_owned = (3 + 3 + 1 + 3 + 1 + 2) * 8.0 + 3 * sizeof(Position) +
                             (row + 1) * sizeof(int) + sizeof(std::uint32_t) + 7 * sizeof(int);
    const double per_atom = 2 * sizeof(Position) + 3 * sizeof(int) + 4 * 8.0 + 6 * 8.0;
    return owned * per_owned + (owned + ghosts) * per_atom;
  }

  void assign(const std::vector<AtomRecord>& atoms) override {
    owned_ = 0;
    clear_ghosts();
    append_owned(atoms);
  }

  std::vector<AtomRecord> download() const override {
    std::vector<AtomRecord> out(static_cast<std::size_t>(owned_));
    if (owned_ == 0) return out;
    records_.reserve(owned_);
    pack_atoms_kernel<<<blocks_for(owned_, kThreads), kThreads>>>(view(), nullptr, owned_,
                                                                  records_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
    MPSFW_CUDA_CHECK(cudaMemcpy(out.data(), records_.data(), out.size() * sizeof(AtomRecord),
                                cudaMemcpyDeviceToHost));
    return out;
  }

  std::vector<double> download_forces() const override {
    std::vector<double> out(3 * static_cast<std::size_t>(owned_));
    if (owned_ == 0) return out;
    flat_.reserve(3 * owned_);
    interleave_forces_kernel<<<blocks_for(owned_, kThreads), kThreads>>>(view(), owned_,
                                                                         flat_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
    MPSFW_CUDA_CHECK(
        cudaMemcpy(out.data(), flat_.data(), out.size() * sizeof(double), cudaMemcpyDeviceToHost));
    return out;
  }

  void kick(double half_dt, const LjParams& p) override {
    if (owned_ == 0) return;
    kick_kernel<<<blocks_for(owned_, kThreads), kThreads>>>(arrays(), owned_, half_dt, p);
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  void kick_drift(double half_dt, double dt, const LjParams& p) override {
    if (owned_ == 0) return;
    // Without a build since the atoms changed there is nothing to measure
    // from: the next check must rebuild anyway (max_displacement says so).
    built_x_.reserve(owned_);
    // This drift's largest move lands in one slot, cleared by the drift
    // before, while it clears the other (read by the host since).
    moved_slot_ ^= 1;
    kick_drift_kernel<<<blocks_for(owned_, kThreads), kThreads>>>(
        arrays(), owned_, half_dt, dt, p, built_x_.data(), farthest2_.data() + moved_slot_,
        farthest2_.data() + (moved_slot_ ^ 1));
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  long fold_periodic(const bool fold[3], const double box[3]) override {
    clear_ghosts();
    if (owned_ == 0) return 0;
    const Position b{{box[0], box[1], box[2], 0.0}};
    const Position f{{fold[0] ? 1.0 : 0.0, fold[1] ? 1.0 : 0.0, fold[2] ? 1.0 : 0.0, 0.0}};
    MPSFW_CUDA_CHECK(cudaMemset(longest_.data(), 0, sizeof(int)));
    fold_kernel<<<blocks_for(owned_, kThreads), kThreads>>>(arrays(), owned_, b, f,
                                                            longest_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
    int lost = 0;
    MPSFW_CUDA_CHECK(cudaMemcpy(&lost, longest_.data(), sizeof(int), cudaMemcpyDeviceToHost));
    return lost;
  }

  void scale_velocities(double factor) override {
    if (owned_ == 0) return;
    scale_kernel<<<blocks_for(owned_, kThreads), kThreads>>>(arrays(), owned_, factor);
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  // The leaving atoms' indices come out of one compaction pass in ascending
  // order; the holes they leave below the new owned count are filled with the
  // staying atoms above it, so only O(leaving) atoms move.
  void take_leaving_atoms(const double lo[3], const double hi[3],
                          std::vector<AtomRecord>* leaving) override {
    clear_ghosts();
    if (owned_ == 0) return;
    const Leaves leaves{x_.data(), {lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}, true};
    Leaves stays = leaves;
    stays.want = false;
    const thrust::counting_iterator<int> first(0);
    index_.reserve(owned_);
    select(first, owned_, index_.data(), selected_.data(), leaves);
    int gone = 0;
    MPSFW_CUDA_CHECK(cudaMemcpy(&gone, selected_.data(), sizeof gone, cudaMemcpyDeviceToHost));
    if (gone == 0) return;

    // The records go to the host while the holes are filled: one more wait.
    records_.reserve(gone);
    pack_atoms_kernel<<<blocks_for(gone, kThreads), kThreads>>>(view(), index_.data(), gone,
                                                                records_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
    atom_staging_.reserve(gone);
    MPSFW_CUDA_CHECK(cudaMemcpyAsync(atom_staging_.data(), records_.data(),
                                     gone * sizeof(AtomRecord), cudaMemcpyDeviceToHost));
    atom_staging_.mark_used();
    // The staying atoms at or above `kept` fill the first holes below it, as
    // many as there are of them (the kernel reads that count on the device).
    const int kept = owned_ - gone;
    fillers_.reserve(gone);
    select(first + kept, gone, fillers_.data(), selected_.data() + 1, stays);
    move_atoms_kernel<<<blocks_for(gone, kThreads), kThreads>>>(
        arrays(), index_.data(), fillers_.data(), selected_.data() + 1);
    MPSFW_CUDA_CHECK_LAUNCH();
    atom_staging_.wait();
    leaving->insert(leaving->end(), atom_staging_.data(), atom_staging_.data() + gone);
    owned_ = kept;
  }

  void add_owned_atoms(const std::vector<AtomRecord>& atoms) override {
    clear_ghosts();  // owned atoms must precede the ghosts
    append_owned(atoms);
  }

  void sort_by_cell(const CellGrid& grid) override {
    clear_ghosts();
    if (owned_ == 0) return;
    const long cells = check_grid(grid);
    key_.reserve(owned_);
    order_.reserve(owned_);
    cell_keys_kernel<<<blocks_for(owned_, kThreads), kThreads>>>(view(), owned_, grid, key_.data(),
                                                                 order_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
    sort_by_key(owned_, cells);
    spare_x_.reserve(capacity_);
    for (DeviceBuffer<double>& v : spare_v_) v.reserve(capacity_);
    spare_id_.reserve(capacity_);
    AtomArrays to = {spare_x_.data(),
                     {spare_v_[0].data(), spare_v_[1].data(), spare_v_[2].data()},
                     {nullptr, nullptr, nullptr},
                     spare_id_.data()};
    permute_atoms_kernel<<<blocks_for(owned_, kThreads), kThreads>>>(view(), order_.data(), owned_,
                                                                     to);
    MPSFW_CUDA_CHECK_LAUNCH();
    // Positions go back into the same array: ranks on the GPU may map it.
    MPSFW_CUDA_CHECK(cudaMemcpyAsync(x_.data(), spare_x_.data(), owned_ * sizeof(Position),
                                     cudaMemcpyDeviceToDevice));
    for (int d = 0; d < 3; ++d) v_[d].swap(spare_v_[d]);
    id_.swap(spare_id_);
    // Forces are not carried along: the caller computes them after the rebuild.
  }

  void clear_ghosts() override {
    ghosts_ = 0;
    image_slots_ = 0;
    listed_ = -1;
  }

  // One compaction over every (list, atom) pair picks the lists' entries,
  // sorted by list, then atom; the lists' starts among them are found on the
  // device and come to the host in one wait.
  void select_sends(const GhostBands& bands, long counts[kGhostLists]) override {
    const int n = owned_;
    if (n > INT_MAX / kGhostLists) {
      throw Error("CUDA MD store: ghost lists over " + std::to_string(n) +
                  " atoms are more than one rank can index (26 x atoms entries)");
    }
    sends_.atoms = n;
    for (int list = 0; list < kGhostLists; ++list) {
      for (int d = 0; d < 3; ++d) sends_.shift[list][d] = bands.shift[list][d];
    }
    std::fill(std::begin(sends_.start), std::end(sends_.start), 0);
    if (n > 0) {
      ghost_mask_.reserve(n);
      send_entries_.reserve(most_lists_per_atom(bands) * n);
      send_starts_.reserve(kGhostLists + 1);
      ghost_mask_kernel<<<blocks_for(n, kThreads), kThreads>>>(x_.data(), n, bands,
                                                               ghost_mask_.data());
      MPSFW_CUDA_CHECK_LAUNCH();
      const thrust::counting_iterator<int> first(0);
      select(first, kGhostLists * n, send_entries_.data(), selected_.data(),
             InGhostList{ghost_mask_.data(), n});
      list_starts_kernel<<<1, kGhostLists + 1>>>(send_entries_.data(), selected_.data(), n,
                                                 send_starts_.data());
      MPSFW_CUDA_CHECK_LAUNCH();
      MPSFW_CUDA_CHECK(cudaMemcpy(sends_.start, send_starts_.data(), sizeof sends_.start,
                                  cudaMemcpyDeviceToHost));
    }
    sends_.entry = send_entries_.data();
    for (int list = 0; list < kGhostLists; ++list) counts[list] = send_count(list);
  }

  // The send entries of the lists in `lists`: their span [begin, end) in
  // sends_ and each list's first slot (slot_of(list); -1 for a list not in
  // the mask), as the pack and copy kernels take them.
  struct MaskedEntries {
    ListSlots to;
    int begin, end;
  };
  template <class SlotOf>
  MaskedEntries masked_entries(std::uint32_t lists, SlotOf slot_of) const {
    MaskedEntries m{{}, sends_.start[kGhostLists], 0};
    for (int list = 0; list < kGhostLists; ++list) {
      m.to.first[list] = -1;
      if (!in_mask(lists, list)) continue;
      m.to.first[list] = slot_of(list);
      m.begin = std::min(m.begin, sends_.start[list]);
      m.end = std::max(m.end, sends_.start[list + 1]);
    }
    return m;
  }

  // The lists in the mask packed one after another, copied to the host in
  // one piece.
  void pack_sends(std::uint32_t lists, double* out) override {
    long atoms = 0;
    const MaskedEntries m = masked_entries(lists, [&](int list) {
      const long first = atoms;
      atoms += send_count(list);
      return static_cast<int>(first);
    });
    checked_elements(3 * atoms, "packed ghost positions");
    if (atoms == 0) return;
    pack_sends_kernel<<<blocks_for(m.end - m.begin, kThreads), kThreads>>>(x_.data(), sends_, m.to,
                                                                           m.begin, m.end, out);
    MPSFW_CUDA_CHECK_LAUNCH();
    MPSFW_CUDA_CHECK(cudaStreamSynchronize(0));
  }

  void reserve_ghosts(long count) override { ghost_slots(0, count); }

  void unpack_ghosts(const double* in, long first, long count) override {
    const int slots = ghost_slots(first, count);
    if (count == 0) return;
    checked_elements(3 * (first + count), "received ghost positions");
    unpack_positions_kernel<<<blocks_for(slots, kThreads), kThreads>>>(
        in + 3 * first, slots, arrays(), owned_ + static_cast<int>(first));
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  void copy_sends_to_ghosts(std::uint32_t lists, const long first[kGhostLists]) override {
    long slots = 0;
    const MaskedEntries m = masked_entries(lists, [&](int list) {
      slots = std::max(slots, first[list] + send_count(list));
      return checked_count(first[list]);
    });
    ghost_slots(0, slots);
    image_root_.reserve(ghosts_, image_slots_);
    image_shift_.reserve(ghosts_, image_slots_);
    image_slots_ = ghosts_;
    if (m.end <= m.begin) return;
    copy_own_images_kernel<<<blocks_for(m.end - m.begin, kThreads), kThreads>>>(
        x_.data(), owned_, sends_, m.to, m.begin, m.end, image_root_.data(), image_shift_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  void refresh_own_images() override {
    if (ghosts_ == 0) return;
    refresh_images_kernel<<<blocks_for(ghosts_, kThreads), kThreads>>>(
        x_.data(), owned_, ghosts_, image_root_.data(), image_shift_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  const void* positions_base() const override { return x_.data(); }
  long positions_generation() const override { return x_.generation(); }

  void push_sends(int list, void* target, long slot) override {
    const int begin = sends_.start[list], end = sends_.start[list + 1];
    if (end == begin) return;
    PushTargets push{};
    push.to[list] = static_cast<Position*>(target) + slot;
    push_sends_kernel<<<blocks_for(end - begin, kThreads), kThreads>>>(x_.data(), sends_, push,
                                                                       begin, end, StepHandshake{});
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  bool push_all(void* const targets[kGhostLists], const long slots[kGhostLists],
                const StepHandshake& handshake) override {
    PushTargets push{};
    for (int list = 0; list < kGhostLists; ++list) {
      if (targets[list] != nullptr)
        push.to[list] = static_cast<Position*>(targets[list]) + slots[list];
    }
    const int entries = sends_.start[kGhostLists];
    if (entries == 0 && handshake.empty()) return true;
    push_sends_kernel<<<std::max(1u, blocks_for(entries, kThreads)), kThreads>>>(
        x_.data(), sends_, push, 0, entries, handshake);
    MPSFW_CUDA_CHECK_LAUNCH();
    return true;
  }

  void synchronize() override { MPSFW_CUDA_CHECK(cudaDeviceSynchronize()); }

  // Sorts the first n of key_ (cell indices below `cells`), and order_ with
  // them, stably: a radix sort over the bits a cell index has (2 passes
  // instead of 4 for up to 65536 cells).
  void sort_by_key(int n, long cells) {
    int bits = 1;
    while ((1L << bits) < cells) ++bits;
    key_alt_.reserve(n);
    order_alt_.reserve(n);
    cub::DoubleBuffer<int> keys(key_.data(), key_alt_.data());
    cub::DoubleBuffer<int> values(order_.data(), order_alt_.data());
    std::size_t bytes = 0;
    MPSFW_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, n, 0, bits));
    cub_temp_.reserve(static_cast<int>(std::min<std::size_t>(bytes, INT_MAX)));
    MPSFW_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(cub_temp_.data(), bytes, keys, values, n, 0, bits));
    if (keys.Current() != key_.data()) key_.swap(key_alt_);
    if (values.Current() != order_.data()) order_.swap(order_alt_);
  }

  // The indices among `count` from `first` that `pick` selects, in order,
  // into `out`, and their number into *selected on the device: no wait.
  template <class Pick>
  void select(thrust::counting_iterator<int> first, int count, int* out, int* selected, Pick pick) {
    std::size_t bytes = 0;
    MPSFW_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, first, out, selected, count, pick));
    cub_temp_.reserve(static_cast<int>(std::min<std::size_t>(bytes, INT_MAX)));
    MPSFW_CUDA_CHECK(
        cub::DeviceSelect::If(cub_temp_.data(), bytes, first, out, selected, count, pick));
  }

  void build_neighbors(const CellGrid& grid, double reach) override {
    const int n = owned_ + ghosts_;
    const long cells = check_grid(grid);
    listed_ = n;
    built_x_.reserve(capacity_);
    MPSFW_CUDA_CHECK(cudaMemset(farthest2_.data(), 0, 2 * sizeof(unsigned long long)));
    if (owned_ == 0) return;
    MPSFW_CUDA_CHECK(cudaMemcpyAsync(built_x_.data(), x_.data(), owned_ * sizeof(Position),
                                     cudaMemcpyDeviceToDevice));
    key_.reserve(n);
    order_.reserve(n);
    sorted_x_.reserve(n);
    start_.reserve(static_cast<int>(cells) + 1);

    // Bin into cells: a stable sort by cell, then where each cell begins.
    cell_keys_kernel<<<blocks_for(n, kThreads), kThreads>>>(view(), n, grid, key_.data(),
                                                            order_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
    sort_by_key(n, cells);
    const thrust::counting_iterator<int> first(0);
    thrust::lower_bound(policy_nosync(), key_.data(), key_.data() + n, first,
                        first + static_cast<int>(cells) + 1, start_.data());
    gather_positions_kernel<<<blocks_for(n, kThreads), kThreads>>>(view(), order_.data(), n,
                                                                   sorted_x_.data());
    MPSFW_CUDA_CHECK_LAUNCH();

    // The lists; once more with room for the longest if one did not fit.
    const CellOrder order{sorted_x_.data(), key_.data(), order_.data(), start_.data()};
    stride_ = (owned_ + 31) / 32 * 32;
    neighbor_count_.reserve(owned_);
    for (;;) {
      neighbors_.reserve(
          static_cast<int>(std::min<long>(static_cast<long>(width_) * stride_, INT_MAX)));
      if (static_cast<long>(width_) * stride_ > INT_MAX) {
        throw Error("CUDA MD store: neighbour lists of " + std::to_string(width_) + " x " +
                    std::to_string(stride_) + " entries are more than one rank can index");
      }
      MPSFW_CUDA_CHECK(cudaMemset(longest_.data(), 0, sizeof(int)));
      neighbor_kernel<<<blocks_for(static_cast<int>(cells), kNeighborWarps), kNeighborWarps * 32>>>(
          order, owned_, grid, reach * reach, width_, stride_, neighbors_.data(),
          neighbor_count_.data(), longest_.data());
      MPSFW_CUDA_CHECK_LAUNCH();
      int longest = 0;
      MPSFW_CUDA_CHECK(cudaMemcpy(&longest, longest_.data(), sizeof(int), cudaMemcpyDeviceToHost));
      if (longest <= width_) break;
      width_ = (longest + longest / 8 + 7) / 8 * 8;
    }
  }

  std::vector<double> download_build_positions() const override {
    std::vector<Position> built(static_cast<std::size_t>(owned_));
    if (owned_ > 0) {
      MPSFW_CUDA_CHECK(cudaMemcpy(built.data(), built_x_.data(), owned_ * sizeof(Position),
                                  cudaMemcpyDeviceToHost));
    }
    std::vector<double> out(3 * built.size());
    for (std::size_t i = 0; i < built.size(); ++i) {
      for (int d = 0; d < 3; ++d) out[3 * i + d] = built[i].c[d];
    }
    return out;
  }

  // The next drift measures the moves from the build anew; until then
  // max_displacement gives the interrupted run's.
  void restore_positions(const std::vector<double>& x, double moved) override {
    if (x.size() != 3 * static_cast<std::size_t>(owned_))
      throw Error("CUDA MD store: restore_positions of a different atom count");
    std::vector<Position> owned(static_cast<std::size_t>(owned_));
    for (std::size_t i = 0; i < owned.size(); ++i) {
      owned[i] = Position{{x[3 * i], x[3 * i + 1], x[3 * i + 2], 0.0}};
    }
    if (owned_ > 0) {
      MPSFW_CUDA_CHECK(
          cudaMemcpy(x_.data(), owned.data(), owned_ * sizeof(Position), cudaMemcpyHostToDevice));
    }
    const double r2 = moved * moved;
    unsigned long long bits = 0;
    std::memcpy(&bits, &r2, sizeof bits);
    MPSFW_CUDA_CHECK(
        cudaMemcpy(farthest2_.data() + moved_slot_, &bits, sizeof bits, cudaMemcpyHostToDevice));
  }

  void sleep_while_waiting(bool sleep) override {
    if (sleep && !sleep_) {
      // Every other wait of the process too (the rebuild's copies and
      // synchronisations): a spinning rank holds a core another one needs.
      // A driver that refuses the flags on a live context keeps spinning
      // there; the displacement's event below sleeps either way.
      if (cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess) {
        (void)cudaGetLastError();
      }
    }
    if (sleep && moved_ready_ == nullptr) {
      MPSFW_CUDA_CHECK(
          cudaEventCreateWithFlags(&moved_ready_, cudaEventBlockingSync | cudaEventDisableTiming));
      moved_.reserve(1);
    }
    sleep_ = sleep;
  }

  double max_displacement() const override {
    if (listed_ != owned_ + ghosts_) return HUGE_VAL;  // no build since the atoms changed
    unsigned long long bits = 0;
    if (sleep_) {  // a blocking-sync event: the thread sleeps until the copy is done
      MPSFW_CUDA_CHECK(cudaMemcpyAsync(moved_.data(), farthest2_.data() + moved_slot_, sizeof bits,
                                       cudaMemcpyDeviceToHost));
      MPSFW_CUDA_CHECK(cudaEventRecord(moved_ready_));
      MPSFW_CUDA_CHECK(cudaEventSynchronize(moved_ready_));
      bits = *moved_.data();
    } else {
      MPSFW_CUDA_CHECK(
          cudaMemcpy(&bits, farthest2_.data() + moved_slot_, sizeof bits, cudaMemcpyDeviceToHost));
    }
    double r2;
    std::memcpy(&r2, &bits, sizeof r2);
    return std::sqrt(r2);
  }

  void compute_forces(const LjParams& p) override {
    require_current_lists();
    if (owned_ == 0) return;
    force_kernel<false><<<blocks_for(owned_, kForceThreads), kForceThreads>>>(
        x_.data(), owned_, neighbors_.data(), neighbor_count_.data(), stride_, p, f_[0].data(),
        f_[1].data(), f_[2].data(), nullptr, nullptr);
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  ForceSums pair_sums(const LjParams& p) const override {
    require_current_lists();
    ForceSums sums;
    if (owned_ == 0) return sums;
    energy_.reserve(owned_);
    virial_.reserve(owned_);
    force_kernel<true><<<blocks_for(owned_, kForceThreads), kForceThreads>>>(
        x_.data(), owned_, neighbors_.data(), neighbor_count_.data(), stride_, p, nullptr, nullptr,
        nullptr, energy_.data(), virial_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
    const thrust::counting_iterator<int> first(0);
    const EnergyVirial total = thrust::transform_reduce(
        policy(), first, first + owned_, AtomEnergyVirial{energy_.data(), virial_.data()},
        EnergyVirial{0.0, 0.0}, AddEnergyVirial());
    MPSFW_CUDA_CHECK(cudaGetLastError());
    sums.potential = total.energy;
    sums.virial = total.virial;
    return sums;
  }

  MotionSums motion(const LjParams& p) const override {
    MotionSums sums;
    if (owned_ == 0) return sums;
    const thrust::counting_iterator<int> first(0);
    const Motion total = thrust::transform_reduce(
        policy(), first, first + owned_, AtomMotion{{v_[0].data(), v_[1].data(), v_[2].data()}, p},
        Motion{0.0, {0.0, 0.0, 0.0}}, AddMotion());
    MPSFW_CUDA_CHECK(cudaGetLastError());
    sums.kinetic = total.kinetic;
    for (int d = 0; d < 3; ++d) sums.momentum[d] = total.p[d];
    return sums;
  }

 private:
  AtomArrays arrays() {
    return {x_.data(),
            {v_[0].data(), v_[1].data(), v_[2].data()},
            {f_[0].data(), f_[1].data(), f_[2].data()},
            id_.data()};
  }
  AtomView view() const {
    return {x_.data(),
            {v_[0].data(), v_[1].data(), v_[2].data()},
            {f_[0].data(), f_[1].data(), f_[2].data()},
            id_.data()};
  }
  // Cells of a grid, checked to be indexable.
  static long check_grid(const CellGrid& grid) {
    const long cells = static_cast<long>(grid.count[0]) * grid.count[1] * grid.count[2];
    if (grid.count[0] < 1 || grid.count[1] < 1 || grid.count[2] < 1 || cells >= INT_MAX) {
      throw Error("CUDA MD store: bad link-cell grid of " + std::to_string(cells) + " cells");
    }
    return cells;
  }
  void require_current_lists() const {
    if (listed_ != owned_ + ghosts_) {
      throw Error("CUDA MD store: forces without a current build_neighbors");
    }
  }
  long send_count(int list) const { return sends_.start[list + 1] - sends_.start[list]; }
  static bool in_mask(std::uint32_t lists, int list) { return (lists >> list) & 1u; }
  // Makes ghost slots [first, first + count) exist; returns count as an int.
  int ghost_slots(long first, long count) {
    const int end = checked_count(first + count);
    if (end > ghosts_) {
      const int total = checked_count(static_cast<long>(owned_) + end);
      x_.reserve(total, owned_ + ghosts_);
      ghosts_ = end;
    }
    return static_cast<int>(count);
  }
  // Appends owned atoms after the current ones (the caller dropped the ghosts).
  void append_owned(const std::vector<AtomRecord>& atoms) {
    const int count = checked_count(static_cast<long>(atoms.size()));
    if (count == 0) return;
    const int total = checked_count(static_cast<long>(owned_) + count);
    x_.reserve(total, owned_);
    for (int d = 0; d < 3; ++d) {
      v_[d].reserve(total, owned_);
      f_[d].reserve(total, owned_);
    }
    id_.reserve(total, owned_);
    capacity_ = std::max(capacity_, total);
    records_.reserve(count);
    atom_staging_.reserve(count);  // waits for its last copy
    std::copy(atoms.begin(), atoms.end(), atom_staging_.data());
    MPSFW_CUDA_CHECK(cudaMemcpyAsync(records_.data(), atom_staging_.data(),
                                     atoms.size() * sizeof(AtomRecord), cudaMemcpyHostToDevice));
    atom_staging_.mark_used();
    unpack_atoms_kernel<<<blocks_for(count, kThreads), kThreads>>>(records_.data(), count, arrays(),
                                                                   owned_);
    MPSFW_CUDA_CHECK_LAUNCH();
    owned_ = total;
  }

  int owned_ = 0;
  int ghosts_ = 0;
  int capacity_ = 0;  // most owned atoms held so far (the spare arrays' size)
  // Atoms: positions of owned atoms then ghosts; the rest for owned atoms.
  DeviceBuffer<Position> x_;
  DeviceBuffer<double> v_[3], f_[3];
  DeviceBuffer<std::int64_t> id_;
  // The other half of sort_by_cell's permutation.
  DeviceBuffer<Position> spare_x_;
  DeviceBuffer<double> spare_v_[3];
  DeviceBuffer<std::int64_t> spare_id_;
  // Link cells of the last binning and the neighbour lists built from them.
  int listed_ = -1;  // atoms listed by the last build; -1: none since a change
  DeviceBuffer<int> key_, order_, start_;
  DeviceBuffer<int> key_alt_, order_alt_;  // the radix sort's other halves
  DeviceBuffer<Position> sorted_x_;
  DeviceBuffer<int> neighbors_, neighbor_count_, longest_;
  int width_ = 64;  // room per atom in the lists (grows to the longest)
  int stride_ = 0;  // entries between an atom's consecutive neighbours
  // Owned positions at the last build, and the largest squared move since.
  DeviceBuffer<Position> built_x_;
  // The largest squared move since the build, as of the last drift (the
  // host and Kokkos stores' measure: the current positions against the
  // build's), in one of two slots that alternate between drifts.
  DeviceBuffer<unsigned long long> farthest2_;
  int moved_slot_ = 0;
  // sleep_while_waiting: where the value lands and the event slept on.
  bool sleep_ = false;
  mutable PinnedBuffer<unsigned long long> moved_;
  cudaEvent_t moved_ready_ = nullptr;
  // The ghost plan: the send lists of the last select_sends (their entries
  // in send_entries_, the rest kept on the host), each owned atom's lists
  // and the lists' starts on the device as the selection found them, and the
  // buffers their positions move through.
  SendLists sends_{};
  DeviceBuffer<std::uint32_t> ghost_mask_;
  DeviceBuffer<int> send_entries_, send_starts_;
  DeviceBuffer<int> selected_;   // compactions' counts
  DeviceBuffer<char> cub_temp_;  // CUB's scratch (compactions, sorts), in stream order
  // Per ghost slot placed by copy_sends_to_ghosts: its owned atom and shift;
  // the first image_slots_ slots are held (a slot unpacked instead has none).
  DeviceBuffer<int> image_root_;
  DeviceBuffer<Position> image_shift_;
  int image_slots_ = 0;
  // Per-atom sums and scratch for moving records, also used by const functions.
  mutable DeviceBuffer<double> energy_, virial_;
  mutable DeviceBuffer<AtomRecord> records_;
  mutable DeviceBuffer<int> index_, fillers_;
  mutable DeviceBuffer<double> flat_;
  PinnedStage<AtomRecord> atom_staging_;  // migrating atoms, both ways
};

}  // namespace
}  // namespace gpu

namespace detail {
std::unique_ptr<MdStore> make_cuda_md_store() { return std::make_unique<gpu::CudaMdStore>(); }
}  // namespace detail

}  // namespace mpsfw::md
