// Kokkos backend of the MD store: the atoms of one rank in Views of the
// default execution space's memory (the GPU with a CUDA Kokkos, host memory
// with Serial or OpenMP), every per-atom loop a Kokkos pattern over the physics
// of md_physics.hpp. Positions take 32 bytes per atom (x, y, z, unused: one
// memory sector per neighbour gathered on a GPU); velocities, forces and the
// neighbour lists take the space's own layout (rows on a host; component
// arrays and transposed lists on a GPU, so that a warp's k-th neighbours are
// one coalesced read). Binning is a counting sort that keeps store order within
// a cell, and compactions are scans that keep it too, so the neighbour lists,
// and with them every force sum, and the 26 ghost send lists come out in the
// host store's order on any space.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/kokkos_launch.hpp"
#include "core/kokkos_runtime.hpp"
#include "core/memory.hpp"
#include "md_store.hpp"
#include "neighbour_walk.hpp"

namespace mpsfw::md {
namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Memory = Space::memory_space;
// Closures as kernel arguments (core/kokkos_launch.hpp): some carry the 26
// lists' shifts.
using Indices = decltype(as_kernel_argument(Kokkos::RangePolicy<Space, Kokkos::IndexType<int>>()));
using Positions = Kokkos::View<double* [4], Kokkos::LayoutRight, Memory>;
// Positions in memory mpsfw allocates (core's Array: cudaMalloc on a GPU, so
// that other processes on the GPU can map them over CUDA IPC), and any
// position View as the kernels see it.
using PositionArray =
    Kokkos::View<double* [4], Kokkos::LayoutRight, Memory, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using Vectors = Kokkos::View<double* [3], Memory>;
using Ids = Kokkos::View<std::int64_t*, Memory>;
using Ints = Kokkos::View<int*, Memory>;
using Reals = Kokkos::View<double*, Memory>;
using Lists = Kokkos::View<int**, Memory>;
using Records = Kokkos::View<AtomRecord*, Memory>;
using Masks = Kokkos::View<std::uint32_t*, Memory>;
using Starts = Kokkos::View<long*, Memory>;

// One atom's position as the pair loops load it: its row of 4 doubles in one
// aligned piece (on a GPU two 16-byte loads instead of three 8-byte ones,
// as the native store's Position). Rows are 32 bytes and core memory is
// aligned to 64 (cudaMalloc: 256).
struct alignas(32) Point {
  double c[4];
};
KOKKOS_INLINE_FUNCTION Point point(const PositionArray& x, int j) {
  return reinterpret_cast<const Point*>(x.data())[j];
}

// Atom counts and indices are int in the loops (as on the CUDA store).
int checked_count(long n) {
  if (n < 0 || n > INT_MAX / 2) {
    throw Error("Kokkos MD store: " + std::to_string(n) +
                " atoms are more than one rank can index");
  }
  return static_cast<int>(n);
}

// Views keep their capacity (a step allocates nothing) and grow with room.
template <class View>
void grow(View& view, long rows) {
  if (static_cast<long>(view.extent(0)) < rows) {
    Kokkos::resize(view, static_cast<size_t>(rows + rows / 4 + 16));
  }
}

// The first n entries of a one-dimensional View.
template <class View>
auto first(const View& view, long n) {
  return Kokkos::subview(view, std::make_pair(0L, n));
}

// A host vector's data seen as a View, for deep_copy to and from the space.
template <class T>
auto host_view(T* data, long n) {
  using Layout = typename Kokkos::View<T*, Memory>::array_layout;
  return Kokkos::View<T*, Layout, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
      data, static_cast<size_t>(n));
}

// Positions on the device and a host copy of them for MPI (the same memory on
// a host space, where create_mirror_view returns the View itself).
struct Staging {
  Reals device{"mpsfw::md::staging", 0};
  decltype(Kokkos::create_mirror_view(device)) host = Kokkos::create_mirror_view(device);
  void reserve(long n) {
    if (static_cast<long>(device.extent(0)) >= n) return;
    device = Reals("mpsfw::md::staging", static_cast<size_t>(n + n / 4 + 16));
    host = Kokkos::create_mirror_view(device);
  }
  void to_host(long n) { Kokkos::deep_copy(first(host, n), first(device, n)); }
  void to_device(long n) { Kokkos::deep_copy(first(device, n), first(host, n)); }
};

// What fold_periodic needs inside a kernel (no host arrays there).
struct PeriodicBox {
  double length[3];
  bool fold[3];
};

// What take_leaving keeps: lo <= x < hi along every dimension.
struct Region {
  double lo[3];
  double hi[3];
};

// Some send lists' entries walked back to back by one kernel: run k is list
// list[k], its entries from[k] on in the send entries, at[k] .. at[k + 1] - 1
// among the runs', written from to[k] on (a packed position or a ghost slot),
// shifted by shift[k].
struct Runs {
  int count = 0;
  int list[kGhostLists];
  long at[kGhostLists + 1];
  long from[kGhostLists];
  long to[kGhostLists];
  double shift[kGhostLists][3];
};

// Where push_all writes each list: the receiver's position array at the
// list's first slot (4 doubles a slot), null for a list not pushed.
struct PushTargets {
  double* at[kGhostLists];
};

// The run of entry p (at[0] <= p < at[count]): the last with at[k] <= p,
// which skips runs without entries.
KOKKOS_INLINE_FUNCTION int run_of(const Runs& r, long p) {
  int lo = 0, hi = r.count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (r.at[mid] <= p) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// One set of per-atom Views (the atoms, or the spares they are reordered
// into), as kernels read and write them.
struct AtomViews {
  PositionArray x;
  Vectors v, f;
  Ids id;

  KOKKOS_INLINE_FUNCTION AtomRecord record(int i) const {
    AtomRecord a;
    for (int d = 0; d < 3; ++d) {
      a.x[d] = x(i, d);
      a.v[d] = v(i, d);
    }
    a.id = id(i);
    return a;
  }
  // Atom i into slot s of `to`.
  KOKKOS_INLINE_FUNCTION void copy(int i, const AtomViews& to, int s) const {
    for (int d = 0; d < 4; ++d) to.x(s, d) = x(i, d);
    for (int d = 0; d < 3; ++d) {
      to.v(s, d) = v(i, d);
      to.f(s, d) = f(i, d);
    }
    to.id(s) = id(i);
  }
};

// nvcc's extended lambdas may not sit in private member functions: the
// functions that launch are public (the class is local to this file; MdStore
// is its interface).
class KokkosMdStore final : public MdStore {
 public:
  long owned() const override { return owned_; }
  long ghosts() const override { return ghosts_; }
  Backend space() const override { return kokkos_memory(); }

  double bytes_for(double owned, double ghosts, double neighbours) const override {
    // Owned: v, f, id and their spares, the spare position, the position at
    // the build, a record of migration, its ghost-list mask and place among
    // the atoms near a face; a list row as
    // wide as build_neighbors makes it (ints) and its count. Every atom: its
    // position, its cell and place in cell order, an image root and shift,
    // and (as many atoms are sent as arrive as ghosts) a send entry and three
    // staged doubles each way.
    const double row = neighbours + neighbours / 8 + 8;
    const double per_owned = (2 * (3 + 3 + 1) + 4 + 4) * 8.0 + sizeof(AtomRecord) +
                             sizeof(std::uint32_t) + sizeof(int) + (row + 1) * sizeof(int);
    const double per_atom = (4 + 4 + 6) * 8.0 + (2 + 1 + 1) * sizeof(int);
    return owned * per_owned + (owned + ghosts) * per_atom;
  }

  void assign(const std::vector<AtomRecord>& atoms) override {
    owned_ = 0;
    add_owned_atoms(atoms);
  }

  std::vector<AtomRecord> download() const override {
    std::vector<AtomRecord> out(static_cast<size_t>(owned_));
    if (owned_ == 0) return out;
    pack_records(Ints(), owned_);
    Kokkos::deep_copy(host_view(out.data(), owned_), first(records_, owned_));
    return out;
  }

  std::vector<double> download_forces() const override {
    std::vector<double> out(3 * static_cast<size_t>(owned_));
    if (owned_ == 0) return out;
    flat_.reserve(3L * owned_);
    const Reals flat = flat_.device;
    const Vectors f = f_;
    Kokkos::parallel_for(
        "mpsfw::md::interleave_forces", Indices(0, owned_), KOKKOS_LAMBDA(int i) {
          for (int d = 0; d < 3; ++d) flat(3 * i + d) = f(i, d);
        });
    flat_.to_host(3L * owned_);
    std::copy(flat_.host.data(), flat_.host.data() + out.size(), out.begin());
    return out;
  }

  void kick(double half_dt, const LjParams& p) override {
    const Vectors v = v_, f = f_;
    Kokkos::parallel_for(
        "mpsfw::md::kick", Indices(0, owned_), KOKKOS_LAMBDA(int i) {
          for (int d = 0; d < 3; ++d) v(i, d) = kicked(v(i, d), f(i, d), half_dt, p);
        });
  }

  void kick_drift(double half_dt, double dt, const LjParams& p) override {
    const PositionArray x = x_;
    const Vectors v = v_, f = f_;
    Kokkos::parallel_for(
        "mpsfw::md::kick_drift", Indices(0, owned_), KOKKOS_LAMBDA(int i) {
          for (int d = 0; d < 3; ++d) {
            v(i, d) = kicked(v(i, d), f(i, d), half_dt, p);
            x(i, d) = drifted(x(i, d), v(i, d), dt);
          }
        });
  }

  void scale_velocities(double factor) override {
    const Vectors v = v_;
    Kokkos::parallel_for(
        "mpsfw::md::scale_velocities", Indices(0, owned_), KOKKOS_LAMBDA(int i) {
          for (int d = 0; d < 3; ++d) v(i, d) *= factor;
        });
  }

  long fold_periodic(const bool fold[3], const double box[3]) override {
    clear_ghosts();
    PeriodicBox b;
    for (int d = 0; d < 3; ++d) {
      b.length[d] = box[d];
      b.fold[d] = fold[d];
    }
    const PositionArray x = x_;
    long outside = 0;
    Kokkos::parallel_reduce(
        "mpsfw::md::fold_periodic", Indices(0, owned_),
        KOKKOS_LAMBDA(int i, long& count) {
          for (int d = 0; d < 3; ++d) {
            const double c = x(i, d);
            if (!b.fold[d] || (c >= 0 && c < b.length[d])) continue;
            const double inside = across_periodic_edge(c, b.length[d]);
            x(i, d) = inside;
            count += !(inside >= 0 && inside < b.length[d]);
          }
        },
        outside);
    return outside;
  }

  void take_leaving_atoms(const double lo[3], const double hi[3],
                          std::vector<AtomRecord>* leaving) override {
    clear_ghosts();
    const int n = owned_;
    reserve_spares(n);
    grow(index_, n);
    const AtomViews from = atoms(), to = spares();
    const PositionArray x = x_;
    const Ints leaving_atoms = index_;
    const Region keep{{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
    // Kept atoms move into the spares in order, leaving ones are listed in
    // order (a NaN coordinate is not outside: the atom stays).
    int left = 0;
    Kokkos::parallel_scan(
        "mpsfw::md::take_leaving", Indices(0, n),
        KOKKOS_LAMBDA(int i, int& before, bool final) {
          bool leaves = false;
          for (int d = 0; d < 3; ++d) {
            const double c = x(i, d);
            leaves = leaves || c < keep.lo[d] || c >= keep.hi[d];
          }
          if (final) {
            if (leaves) {
              leaving_atoms(before) = i;
            } else {
              from.copy(i, to, i - before);
            }
          }
          before += leaves ? 1 : 0;
        },
        left);
    if (left == 0) return;  // the atoms stay as they are
    const size_t at = leaving->size();
    leaving->resize(at + static_cast<size_t>(left));
    pack_records(leaving_atoms, left);
    Kokkos::deep_copy(host_view(leaving->data() + at, left), first(records_, left));
    take_spares(n - left);
    owned_ = n - left;
  }

  void add_owned_atoms(const std::vector<AtomRecord>& atoms) override {
    clear_ghosts();
    const int n = checked_count(static_cast<long>(atoms.size()));
    const int base = owned_;
    const int total = checked_count(static_cast<long>(owned_) + n);
    reserve_positions(total);
    grow(v_, total);
    grow(f_, total);
    grow(id_, total);
    if (n == 0) return;
    grow(records_, n);
    Kokkos::deep_copy(first(records_, n), host_view(atoms.data(), n));
    const Records r = records_;
    const PositionArray x = x_;
    const Vectors v = v_, f = f_;
    const Ids id = id_;
    Kokkos::parallel_for(
        "mpsfw::md::unpack_atoms", Indices(0, n), KOKKOS_LAMBDA(int t) {
          const int i = base + t;
          for (int d = 0; d < 3; ++d) {
            x(i, d) = r(t).x[d];
            v(i, d) = r(t).v[d];
            f(i, d) = 0;
          }
          x(i, 3) = 0;
          id(i) = r(t).id;
        });
    owned_ = total;
  }

  void sort_by_cell(const CellGrid& grid) override {
    clear_ghosts();
    const int n = owned_;
    cell_order(grid, n);
    reserve_spares(n);
    const Ints order = order_;
    const AtomViews from = atoms(), to = spares();
    Kokkos::parallel_for(
        "mpsfw::md::permute_atoms", Indices(0, n),
        KOKKOS_LAMBDA(int s) { from.copy(order(s), to, s); });
    take_spares(n);
  }

  void clear_ghosts() override {
    ghosts_ = 0;
    listed_ = -1;       // the lists no longer describe the atoms
    built_owned_ = -1;  // nor the build positions
  }

  // Each owned atom's lists (ghost_list_mask); the atoms in any list (near
  // a face) compacted in store order; then one scan over list x those atoms
  // that places each list's atoms in store order, as the host store lists
  // them, list after list. Two waits: the near atoms' count, the starts.
  void select_sends(const GhostBands& bands, long counts[kGhostLists]) override {
    const int n = owned_;
    for (int list = 0; list < kGhostLists; ++list) {
      for (int d = 0; d < 3; ++d) send_shift_[list][d] = bands.shift[list][d];
    }
    std::fill(send_start_, send_start_ + kGhostLists + 1, 0L);
    if (n > 0) {
      grow(mask_, n);
      grow(near_, n);
      const Masks mask = mask_;
      const Ints near = near_;
      const PositionArray x = x_;
      int m = 0;
      Kokkos::parallel_scan(
          "mpsfw::md::near_faces", Indices(0, n),
          KOKKOS_LAMBDA(int i, int& before, bool final) {
            const std::uint32_t lists = ghost_list_mask(x(i, 0), x(i, 1), x(i, 2), bands);
            if (final) {
              mask(i) = lists;
              if (lists != 0) near(before) = i;
            }
            before += lists != 0 ? 1 : 0;
          },
          m);
      // Once more, into more room, if the lists outgrew it.
      if (m > 0) {
        while (!scan_sends(m)) grow(sends_, send_start_[kGhostLists]);
      }
    }
    for (int list = 0; list < kGhostLists; ++list) {
      counts[list] = send_start_[list + 1] - send_start_[list];
    }
  }

  // select_sends' scan over the m atoms near a face into sends_ and
  // send_start_ (one wait for the device); false if the entries did not fit
  // in sends_ (then only send_start_ is right).
  bool scan_sends(int m) {
    if (m > INT_MAX / kGhostLists) {
      throw Error("Kokkos MD store: " + std::to_string(m) +
                  " atoms near the faces are more than one rank can list");
    }
    const Masks mask = mask_;
    const Ints near = near_, send = sends_;
    const Starts start = send_starts_;
    const long room = static_cast<long>(send.extent(0));
    const int entries = kGhostLists * m;
    // start(all): all lists' entries (a local copy: a View's operator() takes
    // its index by reference, which device code cannot do to kGhostLists).
    const int all = kGhostLists;
    Kokkos::parallel_scan(
        "mpsfw::md::select_sends", Indices(0, entries),
        KOKKOS_LAMBDA(int e, long& before, bool final) {
          const int list = e / m;
          const int i = near(e - list * m);
          const long take = (mask(i) >> list) & 1u;
          if (final) {
            if (e == list * m) start(list) = before;
            if (take != 0 && before < room) send(before) = i;
            if (e == entries - 1) start(all) = before + take;
          }
          before += take;
        });
    Kokkos::deep_copy(send_starts_host_, send_starts_);
    for (int list = 0; list <= kGhostLists; ++list) send_start_[list] = send_starts_host_(list);
    return send_start_[kGhostLists] <= room;
  }

  // The masked lists' entries in one kernel, list after list; `out` is in
  // the space's memory.
  void pack_sends(std::uint32_t lists, double* out) override {
    const Runs r = runs(lists, nullptr);
    const int total = checked_count(r.at[r.count]);
    if (total == 0) return;
    const Kokkos::View<double*, Memory, Kokkos::MemoryTraits<Kokkos::Unmanaged>> packed(
        out, 3 * static_cast<size_t>(total));
    const Ints send = sends_;
    const PositionArray x = x_;
    Kokkos::parallel_for(
        "mpsfw::md::pack_positions", Indices(0, total), KOKKOS_LAMBDA(int p) {
          const int k = run_of(r, p);
          const int i = send(r.from[k] + (p - r.at[k]));
          for (int d = 0; d < 3; ++d) packed(3 * p + d) = x(i, d) + r.shift[k][d];
        });
    Space().fence();
  }

  void reserve_ghosts(long count) override { ghost_slots(count); }

  void unpack_ghosts(const double* in_buffer, long first_slot, long count) override {
    const int first_ghost = checked_count(first_slot), n = checked_count(count);
    const long end = static_cast<long>(first_ghost) + n;
    ghost_slots(end);
    if (n == 0) return;
    const Kokkos::View<const double*, Memory, Kokkos::MemoryTraits<Kokkos::Unmanaged>> in(
        in_buffer, 3 * static_cast<size_t>(end));
    const PositionArray x = x_;
    const int base = owned_;
    Kokkos::parallel_for(
        "mpsfw::md::unpack_positions", Indices(first_ghost, first_ghost + n), KOKKOS_LAMBDA(int g) {
          for (int d = 0; d < 3; ++d) x(base + g, d) = in(3 * g + d);
          x(base + g, 3) = 0;
        });
  }

  void copy_sends_to_ghosts(std::uint32_t lists, const long first[kGhostLists]) override {
    const Runs r = runs(lists, first);
    long end = ghosts_;
    for (int k = 0; k < r.count; ++k) {
      if (r.at[k + 1] > r.at[k]) end = std::max(end, r.to[k] + r.at[k + 1] - r.at[k]);
    }
    ghost_slots(end);
    grow(image_root_, ghosts_);
    grow(image_shift_, ghosts_);
    const int total = checked_count(r.at[r.count]);
    if (total == 0) return;
    const PositionArray x = x_, shift_by = image_shift_;
    const Ints send = sends_, root = image_root_;
    const int owned = owned_;
    // Sources are owned atoms, targets ghosts: none is both.
    Kokkos::parallel_for(
        "mpsfw::md::copy_own_images", Indices(0, total), KOKKOS_LAMBDA(int p) {
          const int k = run_of(r, p);
          const int i = send(r.from[k] + (p - r.at[k]));
          const int slot = static_cast<int>(r.to[k] + (p - r.at[k]));
          for (int d = 0; d < 3; ++d) x(owned + slot, d) = x(i, d) + r.shift[k][d];
          x(owned + slot, 3) = 0;
          // The owned atom this ghost images, and by how much.
          root(slot) = i;
          for (int d = 0; d < 3; ++d) shift_by(slot, d) = r.shift[k][d];
        });
  }

  void refresh_own_images() override {
    const PositionArray x = x_, shift_by = image_shift_;
    const Ints root = image_root_;
    const int owned = owned_;
    Kokkos::parallel_for(
        "mpsfw::md::refresh_images", Indices(0, ghosts_), KOKKOS_LAMBDA(int g) {
          for (int d = 0; d < 3; ++d) x(owned + g, d) = x(root(g), d) + shift_by(g, d);
        });
  }

  // On a GPU space the positions are cudaMalloc'ed (x_memory_), so ranks on
  // the GPU push ghosts straight into each other's arrays (core/particles/same_gpu_ghosts.hpp);
  // host memory is not shared between processes.
  const void* positions_base() const override {
    return kokkos_on_gpu() ? static_cast<const void*>(x_.data()) : nullptr;
  }
  long positions_generation() const override { return x_generation_; }

  // One list: push_all with that target alone.
  void push_sends(int list, void* target, long slot) override {
    void* targets[kGhostLists] = {};
    long slots[kGhostLists] = {};
    targets[list] = target;
    slots[list] = slot;
    push_all(targets, slots, StepHandshake{});
  }

  // Every list with a target in one kernel instead of a launch per list. The
  // step's handshake is a native kernel (StreamSignals), so with one asked
  // for this declines and the caller pushes, then waits, apart. Kokkos's
  // default CUDA instance runs on a blocking stream, so this kernel is
  // ordered with the waits mpsfw enqueues on the default stream.
  bool push_all(void* const targets[kGhostLists], const long slots[kGhostLists],
                const StepHandshake& handshake) override {
    if (!handshake.empty()) return false;
    PushTargets to{};
    std::uint32_t lists = 0;
    for (int list = 0; list < kGhostLists; ++list) {
      if (targets[list] == nullptr) continue;
      lists |= std::uint32_t{1} << list;
      to.at[list] = static_cast<double*>(targets[list]) + 4 * slots[list];
    }
    const Runs r = runs(lists, nullptr);
    const int total = checked_count(r.at[r.count]);
    if (total == 0) return true;
    const PositionArray x = x_;
    const Ints send = sends_;
    Kokkos::parallel_for(
        "mpsfw::md::push_all", Indices(0, total), KOKKOS_LAMBDA(int p) {
          const int k = run_of(r, p);
          const long t = p - r.at[k];
          const int i = send(r.from[k] + t);
          double* out = to.at[r.list[k]] + 4 * t;
          for (int d = 0; d < 3; ++d) out[d] = x(i, d) + r.shift[k][d];
          out[3] = 0;
        });
    return true;
  }
  void synchronize() override { Kokkos::fence(); }

  void build_neighbors(const CellGrid& grid, double reach) override {
    const int n = owned_ + ghosts_;
    cell_order(grid, n);
    grow(neighbor_count_, owned_);
    const double reach2 = reach * reach;
    const int owned = owned_;
    // A team per link cell, a thread per atom of it (neighbor_lists below);
    // once more with wider rows if one did not fit.
    for (;;) {
      if (static_cast<long>(lists_.extent(0)) < owned ||
          static_cast<int>(lists_.extent(1)) != width_) {
        lists_ = Lists();  // free before allocating the new rows
        lists_ = Lists("mpsfw::md::neighbors", static_cast<size_t>(owned + owned / 4 + 16),
                       static_cast<size_t>(width_));
      }
      const int longest = neighbor_lists(grid, reach2);
      if (longest <= width_) break;
      width_ = longest + longest / 8 + 8;
    }
    grow(built_x_, owned_);
    const PositionArray x = x_, built = built_x_;
    Kokkos::parallel_for(
        "mpsfw::md::remember_build", Indices(0, owned), KOKKOS_LAMBDA(int i) {
          for (int d = 0; d < 4; ++d) built(i, d) = x(i, d);
        });
    listed_ = n;
    built_owned_ = owned_;
  }

  double max_displacement() const override {
    if (built_owned_ != owned_) return HUGE_VAL;  // no build since a change
    const PositionArray x = x_, built = built_x_;
    double worst = 0;
    Kokkos::parallel_reduce(
        "mpsfw::md::max_displacement", Indices(0, owned_),
        KOKKOS_LAMBDA(int i, double& most) {
          double r2 = 0;
          for (int d = 0; d < 3; ++d) {
            const double delta = x(i, d) - built(i, d);
            r2 += delta * delta;
          }
          if (!(r2 >= 0)) r2 = 1e300;  // NaN: far enough to force a rebuild, which reports it
          if (r2 > most) most = r2;
        },
        Kokkos::Max<double>(worst));
    return std::sqrt(worst);
  }

  std::vector<double> download_build_positions() const override {
    if (built_owned_ != owned_) return {};
    return interleaved(built_x_);
  }

  // Displacements are measured afresh each time: `moved` adds nothing.
  void restore_positions(const std::vector<double>& to, double /*moved*/) override {
    if (to.size() != 3 * static_cast<size_t>(owned_)) {
      throw Error("Kokkos MD store: restore_positions of a different atom count");
    }
    flat_.reserve(3L * owned_);
    std::copy(to.begin(), to.end(), flat_.host.data());
    flat_.to_device(3L * owned_);
    const Reals in = flat_.device;
    const PositionArray x = x_;
    Kokkos::parallel_for(
        "mpsfw::md::restore_positions", Indices(0, owned_), KOKKOS_LAMBDA(int i) {
          for (int d = 0; d < 3; ++d) x(i, d) = in(3 * i + d);
        });
  }

  void compute_forces(const LjParams& p) override {
    require_current_lists();
    const PositionArray x = x_;
    const Vectors f = f_;
    const Lists list = lists_;
    const Ints count = neighbor_count_;
    // F_i = sum over listed j within r_c of f_over_r(r_ij) (x_i - x_j).
    Kokkos::parallel_for(
        "mpsfw::md::forces", Indices(0, owned_), KOKKOS_LAMBDA(int i) {
          const Point xi = point(x, i);
          double fi[3] = {0, 0, 0};
          walk_neighbours(
              count(i), i, [&](int k) { return list(i, k); }, [&](int j) { return point(x, j); },
              [&](const Point& q) {
                with_pair_in_cutoff(xi.c, q.c, p, [&](const double* dx, double, const PairTerm& t) {
                  for (int d = 0; d < 3; ++d) fi[d] += t.f_over_r * dx[d];
                });
              });
          for (int d = 0; d < 3; ++d) f(i, d) = fi[d];
        });
  }

  ForceSums pair_sums(const LjParams& p) const override {
    require_current_lists();
    const PositionArray x = x_;
    const Lists list = lists_;
    const Ints count = neighbor_count_;
    ForceSums sums;
    // Each pair's energy and virial are split half to each atom, so sums over
    // owned atoms count every pair once even across ranks.
    Kokkos::parallel_reduce(
        "mpsfw::md::pair_sums", Indices(0, owned_),
        KOKKOS_LAMBDA(int i, double& potential, double& virial) {
          const Point xi = point(x, i);
          walk_neighbours(
              count(i), i, [&](int k) { return list(i, k); }, [&](int j) { return point(x, j); },
              [&](const Point& q) {
                with_pair_in_cutoff(xi.c, q.c, p, [&](const double*, double r2, const PairTerm& t) {
                  potential += 0.5 * t.energy;
                  virial += 0.5 * t.f_over_r * r2;
                });
              });
        },
        Kokkos::Sum<double>(sums.potential), Kokkos::Sum<double>(sums.virial));
    return sums;
  }

  MotionSums motion(const LjParams& p) const override {
    const Vectors v = v_;
    MotionSums m;
    Kokkos::parallel_reduce(
        "mpsfw::md::motion", Indices(0, owned_),
        KOKKOS_LAMBDA(int i, double& kinetic, double& px, double& py, double& pz) {
          kinetic += kinetic_energy(v(i, 0), v(i, 1), v(i, 2), p);
          px += p.mass * v(i, 0);
          py += p.mass * v(i, 1);
          pz += p.mass * v(i, 2);
        },
        Kokkos::Sum<double>(m.kinetic), Kokkos::Sum<double>(m.momentum[0]),
        Kokkos::Sum<double>(m.momentum[1]), Kokkos::Sum<double>(m.momentum[2]));
    return m;
  }

  // Full lists into lists_ (entries past width_ counted, not stored) in the
  // order every store lists: the 27 cells around the atom's cell by (z, y)
  // row, each row's three cells along x one range of cell order; returns the
  // longest. A team per cell, a thread per atom of it: the team loads each
  // row's atoms into its scratch tile a team's width at a time, and each
  // thread tests its atom against the tile (on a GPU a team is a warp; on
  // the host one thread).
  int neighbor_lists(const CellGrid& grid, double reach2) {
    using Team = Kokkos::TeamPolicy<Space>::member_type;
    using Tile = Kokkos::View<double* [4], Kokkos::LayoutRight, Space::scratch_memory_space,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    using TileAtoms =
        Kokkos::View<int*, Space::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const int team_size = kokkos_on_gpu() ? 32 : 1;
    const int cells = grid.count[0] * grid.count[1] * grid.count[2];
    const size_t scratch = Tile::shmem_size(team_size) + TileAtoms::shmem_size(team_size);
    const auto policy = as_kernel_argument(Kokkos::TeamPolicy<Space>(cells, team_size))
                            .set_scratch_size(0, Kokkos::PerTeam(scratch));
    const PositionArray x = x_;
    const Ints order = order_, start = cell_start_, count = neighbor_count_;
    const Lists list = lists_;
    const int owned = owned_, capacity = width_;
    int longest = 0;
    Kokkos::parallel_reduce(
        "mpsfw::md::neighbor_lists", policy,
        KOKKOS_LAMBDA(const Team& team, int& most) {
          const Tile tile(team.team_scratch(0), team_size);
          const TileAtoms tile_atom(team.team_scratch(0), team_size);
          const int me = team.team_rank();
          const int cell = team.league_rank();
          const int nx = grid.count[0], ny = grid.count[1], nz = grid.count[2];
          const int cx = cell % nx, cy = (cell / nx) % ny, cz = cell / (nx * ny);
          const int x_lo = cx > 0 ? cx - 1 : 0, x_hi = cx < nx - 1 ? cx + 1 : nx - 1;
          const int end = start(cell + 1);
          for (int first = start(cell); first < end; first += team_size) {
            const int s = first + me;
            const int i = s < end ? order(s) : owned;
            const bool mine = i < owned;  // ghosts need no list
            const Point pi = mine ? point(x, i) : Point{{0, 0, 0, 0}};
            int k = 0;
            for (int z = cz > 0 ? cz - 1 : 0; z <= (cz < nz - 1 ? cz + 1 : nz - 1); ++z) {
              for (int y = cy > 0 ? cy - 1 : 0; y <= (cy < ny - 1 ? cy + 1 : ny - 1); ++y) {
                const int row = (z * ny + y) * nx;
                const int row_end = start(row + x_hi + 1);
                for (int t0 = start(row + x_lo); t0 < row_end; t0 += team_size) {
                  team.team_barrier();  // the previous tile is no longer read
                  if (t0 + me < row_end) {
                    const int j = order(t0 + me);
                    for (int d = 0; d < 3; ++d) tile(me, d) = x(j, d);
                    tile_atom(me) = j;
                  }
                  team.team_barrier();
                  if (!mine) continue;
                  const int n = row_end - t0 < team_size ? row_end - t0 : team_size;
                  for (int u = 0; u < n; ++u) {
                    const int j = tile_atom(u);
                    const double dx = pi.c[0] - tile(u, 0), dy = pi.c[1] - tile(u, 1),
                                 dz = pi.c[2] - tile(u, 2);
                    if (j == i || dx * dx + dy * dy + dz * dz >= reach2) continue;
                    if (k < capacity) list(i, k) = j;
                    ++k;
                  }
                }
              }
            }
            if (mine) {
              count(i) = k;
              if (k > most) most = k;
            }
          }
        },
        Kokkos::Max<int>(longest));
    return longest;
  }

  // Stable counting sort of atoms 0 .. n-1 by link cell of `grid`: order_
  // lists atom indices cell by cell (store order within a cell),
  // cell_start_[c] .. cell_start_[c + 1] being cell c's.
  void cell_order(const CellGrid& grid, int n) {
    const int cells =
        checked_count(static_cast<long>(grid.count[0]) * grid.count[1] * grid.count[2]);
    grow(cell_of_, n);
    grow(order_, n);
    grow(cell_start_, cells + 1);
    grow(cell_fill_, cells + 1);
    // On the space's instance: no fence (the plain deep_copy waits for the device).
    Kokkos::deep_copy(Space(), first(cell_fill_, cells + 1), 0);
    const PositionArray x = x_;
    const Ints cell = cell_of_, fill = cell_fill_, start = cell_start_, order = order_;
    Kokkos::parallel_for(
        "mpsfw::md::count_cells", Indices(0, n), KOKKOS_LAMBDA(int i) {
          const int c = (link_cell_along(x(i, 2), grid, 2) * grid.count[1] +
                         link_cell_along(x(i, 1), grid, 1)) *
                            grid.count[0] +
                        link_cell_along(x(i, 0), grid, 0);
          cell(i) = c;
          Kokkos::atomic_fetch_add(&fill(c), 1);
        });
    Kokkos::parallel_scan(
        "mpsfw::md::cell_starts", Indices(0, cells + 1),
        KOKKOS_LAMBDA(int c, int& before, bool final) {
          const int in_cell = fill(c);
          if (final) start(c) = before;
          before += in_cell;
        });
    Kokkos::deep_copy(Space(), first(fill, cells + 1), first(start, cells + 1));
    Kokkos::parallel_for(
        "mpsfw::md::place_in_cells", Indices(0, n),
        KOKKOS_LAMBDA(int i) { order(Kokkos::atomic_fetch_add(&fill(cell(i)), 1)) = i; });
    // Threads placed a cell's atoms in any order: sorted back into store
    // order (insertion sort: a cell holds a few tens of atoms).
    Kokkos::parallel_for(
        "mpsfw::md::order_cells", Indices(0, cells), KOKKOS_LAMBDA(int c) {
          for (int a = start(c) + 1; a < start(c + 1); ++a) {
            const int atom = order(a);
            int b = a;
            for (; b > start(c) && order(b - 1) > atom; --b) order(b) = order(b - 1);
            order(b) = atom;
          }
        });
  }

  // Packs atom index(t) (atom t where index is empty), t < count, into
  // records_[t].
  void pack_records(const Ints& index, int count) const {
    grow(records_, count);
    const Records r = records_;
    const AtomViews from = atoms();
    const bool all = index.extent(0) == 0;
    Kokkos::parallel_for(
        "mpsfw::md::pack_atoms", Indices(0, count),
        KOKKOS_LAMBDA(int t) { r(t) = from.record(all ? t : index(t)); });
  }

  // Owned positions of `from` as [3 i + d] on the host.
  std::vector<double> interleaved(const PositionArray& from) const {
    flat_.reserve(3L * owned_);
    const Reals out = flat_.device;
    Kokkos::parallel_for(
        "mpsfw::md::interleave_positions", Indices(0, owned_), KOKKOS_LAMBDA(int i) {
          for (int d = 0; d < 3; ++d) out(3 * i + d) = from(i, d);
        });
    flat_.to_host(3L * owned_);
    return std::vector<double>(flat_.host.data(), flat_.host.data() + 3L * owned_);
  }

 private:
  // The lists in `lists` (bit `list`) as runs, in list order: written from
  // first[list] on (ghost slots), or where their entries lie back to back
  // (packed positions) where first is nullptr.
  Runs runs(std::uint32_t lists, const long* first) const {
    Runs r{};
    for (int list = 0; list < kGhostLists; ++list) {
      if ((lists >> list & 1u) == 0) continue;
      const int k = r.count++;
      r.list[k] = list;
      r.from[k] = send_start_[list];
      r.at[k + 1] = r.at[k] + send_start_[list + 1] - send_start_[list];
      r.to[k] = first != nullptr ? first[list] : r.at[k];
      for (int d = 0; d < 3; ++d) r.shift[k][d] = send_shift_[list][d];
    }
    return r;
  }

  void require_current_lists() const {
    if (listed_ != owned_ + ghosts_) throw Error("MD: forces without a current build_neighbors");
  }

  AtomViews atoms() const { return {x_, v_, f_, id_}; }
  AtomViews spares() const { return {spare_x_, spare_v_, spare_f_, spare_id_}; }

  // Makes room for at least `count` ghosts.
  void ghost_slots(long count) {
    if (ghosts_ >= count) return;
    ghosts_ = checked_count(count);
    reserve_positions(checked_count(static_cast<long>(owned_) + ghosts_));
  }

  // Room for `rows` positions in x_memory_; a new array keeps the old rows
  // and counts as a new generation (other ranks map it again).
  void reserve_positions(int rows) {
    if (static_cast<int>(x_.extent(0)) >= rows) return;
    const size_t room = static_cast<size_t>(rows + rows / 4 + 16);
    Array<double> bigger(kokkos_memory(), 4 * room);
    const PositionArray to(bigger.data(), room);
    if (x_.extent(0) > 0) {
      Kokkos::deep_copy(Kokkos::subview(to, std::make_pair(size_t{0}, x_.extent(0)), Kokkos::ALL),
                        x_);
    }
    x_memory_ = std::move(bigger);
    x_ = to;
    ++x_generation_;
  }

  void reserve_spares(int n) {
    grow(spare_x_, n);
    grow(spare_v_, n);
    grow(spare_f_, n);
    grow(spare_id_, n);
  }
  // The first n spares (filled in the new order) become the atoms; the
  // positions are copied back, so that their array (which other ranks on
  // the GPU may have mapped) stays where it is.
  void take_spares(int n) {
    Kokkos::deep_copy(Space(), Kokkos::subview(x_, std::make_pair(0, n), Kokkos::ALL),
                      Kokkos::subview(spare_x_, std::make_pair(0, n), Kokkos::ALL));
    std::swap(v_, spare_v_);
    std::swap(f_, spare_f_);
    std::swap(id_, spare_id_);
  }

  int owned_ = 0, ghosts_ = 0;
  Array<double> x_memory_;  // 4 per atom: owned atoms, then ghosts
  PositionArray x_;         // over x_memory_
  long x_generation_ = 0;   // counts reallocations of x_memory_
  Vectors v_{"mpsfw::md::v", 0}, f_{"mpsfw::md::f", 0};
  Ids id_{"mpsfw::md::id", 0};
  // Where take_leaving and sort_by_cell write the atoms in their new order.
  Positions spare_x_{"mpsfw::md::spare_x", 0};
  Vectors spare_v_{"mpsfw::md::spare_v", 0}, spare_f_{"mpsfw::md::spare_f", 0};
  Ids spare_id_{"mpsfw::md::spare_id", 0};
  mutable Records records_{"mpsfw::md::records", 0};
  Ints index_{"mpsfw::md::leaving", 0};
  // Binning: each atom's cell, atoms in cell order, where each cell starts.
  Ints cell_of_{"mpsfw::md::cell_of", 0}, order_{"mpsfw::md::order", 0};
  Ints cell_start_{"mpsfw::md::cell_start", 0}, cell_fill_{"mpsfw::md::cell_fill", 0};
  // Neighbour lists: owned atom i's are lists_(i, k), k < neighbor_count_(i).
  Lists lists_;
  Ints neighbor_count_{"mpsfw::md::neighbor_count", 0};
  int width_ = 64;
  int listed_ = -1;       // atoms listed by the last build; -1: none since a change
  int built_owned_ = -1;  // owned atoms at the last build; -1: none since a change
  Positions built_x_{"mpsfw::md::built_x", 0};
  // Ghost plan (select_sends): each owned atom's lists, and the send entries,
  // list after list: list l's atoms are sends_[send_start_[l]] ..
  // sends_[send_start_[l + 1] - 1], sent shifted by send_shift_[l].
  Masks mask_{"mpsfw::md::ghost_list_mask", 0};
  Ints near_{"mpsfw::md::near_faces", 0};  // owned atoms in some send list
  Ints sends_{"mpsfw::md::sends", 0};
  Starts send_starts_{"mpsfw::md::send_starts", kGhostLists + 1};
  decltype(Kokkos::create_mirror_view(send_starts_)) send_starts_host_ =
      Kokkos::create_mirror_view(send_starts_);
  long send_start_[kGhostLists + 1] = {};
  double send_shift_[kGhostLists][3] = {};
  mutable Staging flat_;
  // Per ghost slot placed by copy_sends_to_ghosts: its owned atom and shift.
  Ints image_root_{"mpsfw::md::image_root", 0};
  Positions image_shift_{"mpsfw::md::image_shift", 0};
};

}  // namespace

namespace detail {
std::unique_ptr<MdStore> make_kokkos_md_store() { return std::make_unique<KokkosMdStore>(); }
}  // namespace detail

}  // namespace mpsfw::md
