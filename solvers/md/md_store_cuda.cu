// CUDA backend of the MD store: every atom lives on the GPU as a structure of
// arrays. Kernels do the per-atom updates, the neighbour-list build and the
// force loop (one thread per owned atom over its full list, stored transposed
// so that a warp's loads of the k-th neighbour are one coalesced read); Thrust
// sorts atoms into cells, compacts leaving atoms and ghost send lists, and sums.
// Ghost positions are packed and unpacked on the device; what goes through MPI
// is staged in pinned host memory. Buffers keep their capacity, and Thrust's
// temporary storage is reused, so a step allocates nothing.
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "md_store.hpp"

namespace mpsfw::md {
namespace {

constexpr int kThreads = 256;       // per block, simple per-atom kernels
constexpr int kForceThreads = 128;  // per block, force kernel
constexpr int kNeighborThreads = 32;  // per block, neighbour build: one link cell (~20 atoms)

unsigned blocks_for(int n, int threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

// Atom counts and indices are int on the device.
int checked_count(long n) {
  if (n < 0 || n > INT_MAX / 2) {
    throw Error("CUDA MD store: " + std::to_string(n) + " atoms are more than one rank can index");
  }
  return static_cast<int>(n);
}

// A device array that keeps its capacity: resizing within it allocates nothing.
template <class T>
class DeviceBuffer {
 public:
  T* data() { return array_.data(); }
  const T* data() const { return array_.data(); }
  // Room for n elements; the first `keep` survive a reallocation.
  void reserve(int n, int keep = 0) {
    if (static_cast<std::size_t>(n) <= array_.size()) return;
    const std::size_t want = static_cast<std::size_t>(n) + static_cast<std::size_t>(n) / 4 + 64;
    Array<T> bigger(Backend::Cuda, want);
    if (keep > 0) {
      MPSFW_CUDA_CHECK(
          cudaMemcpy(bigger.data(), array_.data(), keep * sizeof(T), cudaMemcpyDeviceToDevice));
    }
    array_.swap(bigger);
    ++generation_;
  }
  void swap(DeviceBuffer& o) noexcept {
    array_.swap(o.array_);
    std::swap(generation_, o.generation_);
    ++generation_;
    ++o.generation_;
  }
  // Changes whenever data() may have.
  long generation() const { return generation_; }

 private:
  Array<T> array_;
  long generation_ = 0;
};

// Page-locked host memory that keeps its capacity (MPI staging).
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { memory::release_pinned(Backend::Cuda, data_); }
  T* data() { return data_; }
  void reserve(long n) {
    if (n <= capacity_) return;
    const long want = n + n / 4 + 64;
    T* bigger = static_cast<T*>(memory::allocate_pinned(Backend::Cuda, want * sizeof(T)));
    memory::release_pinned(Backend::Cuda, data_);
    data_ = bigger;
    capacity_ = want;
  }

 private:
  T* data_ = nullptr;
  long capacity_ = 0;
};

// Thrust's temporary storage (sort, copy_if, reduce): a block returned by one
// call is handed out again to the next, and regrown when too small. A block
// returned by a call that does not wait (policy_nosync) may still be read by
// its kernels: the next user is later on the same stream, and regrowing frees
// it with cudaFree, which waits for the device.
class TempStorage {
 public:
  using value_type = char;
  char* allocate(std::ptrdiff_t bytes) {
    const std::size_t want = static_cast<std::size_t>(bytes);
    Block* reuse = nullptr;
    for (Block& b : blocks_) {
      if (b.in_use) continue;
      if (b.array.size() >= want) {
        b.in_use = true;
        return b.array.data();
      }
      reuse = &b;
    }
    if (reuse == nullptr) {
      blocks_.emplace_back();
      reuse = &blocks_.back();
    }
    reuse->array = Array<char>(Backend::Cuda, want + want / 4);
    reuse->in_use = true;
    return reuse->array.data();
  }
  void deallocate(char* p, std::size_t) {
    for (Block& b : blocks_) {
      if (b.array.data() == p) b.in_use = false;
    }
  }

 private:
  struct Block {
    Array<char> array;
    bool in_use = false;
  };
  std::vector<Block> blocks_;
};

// A position padded to 32 bytes: one aligned sector, so the force loop's
// gather of a neighbour is one memory transaction, not three.
struct alignas(32) Position {
  double c[4];  // x, y, z, unused
};

// Device pointers to the per-atom arrays: x for owned atoms and ghosts, the
// rest for owned atoms only.
struct AtomArrays {
  Position* x;
  double* v[3];
  double* f[3];
  std::int64_t* id;
};
struct AtomView {
  const Position* x;
  const double* v[3];
  const double* f[3];
  const std::int64_t* id;
};
// Positions in cell order, each atom's cell and store index, and where each
// cell begins (start[c + 1] is where it ends).
struct CellOrder {
  const Position* x;
  const int* key;
  const int* atom;
  const int* start;
};

__device__ int thread_index() { return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); }

// Unpacks records into slots [offset, offset + count); their forces are zero.
__global__ void unpack_atoms_kernel(const AtomRecord* in, int count, AtomArrays a, int offset) {
  const int t = thread_index();
  if (t >= count) return;
  const int i = offset + t;
  a.x[i] = Position{{in[t].x[0], in[t].x[1], in[t].x[2], 0.0}};
  for (int d = 0; d < 3; ++d) {
    a.v[d][i] = in[t].v[d];
    a.f[d][i] = 0;
  }
  a.id[i] = in[t].id;
}

// Packs atom index[t] (atom t without an index) into record t.
__global__ void pack_atoms_kernel(AtomView a, const int* index, int count, AtomRecord* out) {
  const int t = thread_index();
  if (t >= count) return;
  const int i = index != nullptr ? index[t] : t;
  AtomRecord r;
  for (int d = 0; d < 3; ++d) {
    r.x[d] = a.x[i].c[d];
    r.v[d] = a.v[d][i];
  }
  r.id = a.id[i];
  out[t] = r;
}

// Positions of send list `index` (shifted by `shift` along `dim`) packed
// x, y, z per atom into out.
__global__ void pack_positions_kernel(AtomView a, const int* index, int count, int dim, double shift,
                                      double* out) {
  const int t = thread_index();
  if (t >= count) return;
  Position q = a.x[index[t]];
  q.c[dim] += shift;
  for (int d = 0; d < 3; ++d) out[3 * t + d] = q.c[d];
}

// Packed positions into slots [first, first + count).
__global__ void unpack_positions_kernel(const double* in, int count, AtomArrays a, int first) {
  const int t = thread_index();
  if (t >= count) return;
  a.x[first + t] = Position{{in[3 * t], in[3 * t + 1], in[3 * t + 2], 0.0}};
}

// Send list `index` (shifted) straight into to[0 .. count): ghost slots of
// this rank or, mapped, of another on the GPU. The sources are atoms that
// existed before this stage's slots, so none is written.
__global__ void copy_positions_kernel(const Position* from, const int* index, int count, int dim,
                                      double shift, Position* to) {
  const int t = thread_index();
  if (t >= count) return;
  Position q = from[index[t]];
  q.c[dim] += shift;
  to[t] = q;
}

// Own periodic images: send list `index` into this rank's ghost slots
// [first, first + count) as copy_positions_kernel does, and for each slot the
// owned atom it images and the shift from it (each dimension shifted at most
// once: by that dimension's stage).
__global__ void copy_own_images_kernel(Position* x, int owned, const int* index, int count, int dim,
                                       double shift, int first, int* root, Position* image) {
  const int t = thread_index();
  if (t >= count) return;
  const int i = index[t];
  Position q = x[i];
  q.c[dim] += shift;
  x[owned + first + t] = q;
  const bool is_owned = i < owned;
  Position by = is_owned ? Position{{0.0, 0.0, 0.0, 0.0}} : image[i - owned];
  by.c[dim] += shift;
  root[first + t] = is_owned ? i : root[i - owned];
  image[first + t] = by;
}

// Every ghost from the owned atom it images: x[root] + shift, per component.
__global__ void refresh_images_kernel(Position* x, int owned, int ghosts, const int* root,
                                      const Position* image) {
  const int g = thread_index();
  if (g >= ghosts) return;
  Position q = x[root[g]];
  const Position by = image[g];
  for (int d = 0; d < 3; ++d) q.c[d] += by.c[d];
  x[owned + g] = q;
}

// Forces of owned atoms interleaved as out[3 i + d].
__global__ void interleave_forces_kernel(AtomView a, int count, double* out) {
  const int i = thread_index();
  if (i >= count) return;
  for (int d = 0; d < 3; ++d) out[3 * i + d] = a.f[d][i];
}

// v += half_dt F / m for owned atoms.
__global__ void kick_kernel(AtomArrays a, int count, double half_dt, LjParams p) {
  const int i = thread_index();
  if (i >= count) return;
  for (int d = 0; d < 3; ++d) a.v[d][i] = kicked(a.v[d][i], a.f[d][i], half_dt, p);
}

// v += half_dt F / m, then x += dt v, for owned atoms (positions are folded
// into the box when they migrate), and the largest squared distance from the
// positions at the last neighbour build, kept as the bits of a non-negative
// double (ordered like the values).
__global__ void kick_drift_kernel(AtomArrays a, int count, double half_dt, double dt, LjParams p,
                                  const Position* built, unsigned long long* farthest2) {
  const int i = thread_index();
  double r2 = 0;
  if (i < count) {
    Position x = a.x[i];
    const Position x0 = built[i];
    for (int d = 0; d < 3; ++d) {
      const double v = kicked(a.v[d][i], a.f[d][i], half_dt, p);
      a.v[d][i] = v;
      x.c[d] = drifted(x.c[d], v, dt);
      const double delta = x.c[d] - x0.c[d];
      r2 += delta * delta;
    }
    a.x[i] = x;
    if (!(r2 >= 0)) r2 = 1e300;  // NaN: far enough to force a rebuild, which reports it
  }
  for (int o = 16; o > 0; o /= 2) r2 = fmax(r2, __shfl_down_sync(0xffffffffu, r2, o));
  if ((threadIdx.x & 31) == 0 && r2 > 0) {
    atomicMax(farthest2, static_cast<unsigned long long>(__double_as_longlong(r2)));
  }
}

// x += dt v for owned atoms (no displacement bookkeeping: tests' drift).
__global__ void drift_kernel(AtomArrays a, int count, double dt) {
  const int i = thread_index();
  if (i >= count) return;
  for (int d = 0; d < 3; ++d) a.x[i].c[d] = drifted(a.x[i].c[d], a.v[d][i], dt);
}

// Owned atoms outside [0, box) along a dimension in `fold` moved to their
// periodic image inside; those still outside (a jump of more than a box) are
// counted into *lost.
__global__ void fold_kernel(AtomArrays a, int count, Position box, Position fold, int* lost) {
  const int i = thread_index();
  if (i >= count) return;
  Position x = a.x[i];
  bool inside = true;
  for (int d = 0; d < 3; ++d) {
    if (fold.c[d] == 0 || (x.c[d] >= 0 && x.c[d] < box.c[d])) continue;
    x.c[d] = across_periodic_edge(x.c[d], box.c[d]);
    inside = inside && x.c[d] >= 0 && x.c[d] < box.c[d];
  }
  a.x[i] = x;
  if (!inside) atomicAdd(lost, 1);
}

// v *= factor for owned atoms.
__global__ void scale_kernel(AtomArrays a, int count, double factor) {
  const int i = thread_index();
  if (i >= count) return;
  for (int d = 0; d < 3; ++d) a.v[d][i] *= factor;
}

// Moves owned atom from[t] into slot to[t] (a hole left by a leaving atom).
__global__ void move_atoms_kernel(AtomArrays a, const int* to, const int* from, int count) {
  const int t = thread_index();
  if (t >= count) return;
  const int i = to[t], j = from[t];
  a.x[i] = a.x[j];
  for (int d = 0; d < 3; ++d) {
    a.v[d][i] = a.v[d][j];
    a.f[d][i] = a.f[d][j];
  }
  a.id[i] = a.id[j];
}

// Owned atom order[s] into slot s of the `to` arrays (the sort by cell).
__global__ void permute_atoms_kernel(AtomView from, const int* order, int count, AtomArrays to) {
  const int s = thread_index();
  if (s >= count) return;
  const int i = order[s];
  to.x[s] = from.x[i];
  for (int d = 0; d < 3; ++d) to.v[d][s] = from.v[d][i];
  to.id[s] = from.id[i];
}

// Cell of x along dimension d, clamped into the grid.
__device__ int cell_along(double x, const CellGrid& g, int d) {
  const double c = floor((x - g.origin[d]) / g.width[d]);
  if (!(c >= 0)) return 0;  // also NaN
  return c >= g.count[d] - 1 ? g.count[d] - 1 : static_cast<int>(c);
}

// Linear link cell (x fastest) of every atom, and the identity permutation that
// the sort by cell then reorders.
__global__ void cell_keys_kernel(AtomView a, int count, CellGrid g, int* key, int* order) {
  const int i = thread_index();
  if (i >= count) return;
  const int cx = cell_along(a.x[i].c[0], g, 0);
  const int cy = cell_along(a.x[i].c[1], g, 1);
  const int cz = cell_along(a.x[i].c[2], g, 2);
  key[i] = (cz * g.count[1] + cy) * g.count[0] + cx;
  order[i] = i;
}

// Positions in cell order, so that the atoms of one cell lie side by side.
__global__ void gather_positions_kernel(AtomView a, const int* order, int count, Position* out) {
  const int s = thread_index();
  if (s >= count) return;
  out[s] = a.x[order[s]];
}

// Full neighbour lists, transposed: neighbour k of owned atom i at
// list[k * stride + i], for every other atom (owned or ghost) within `reach`
// in its own and the 26 adjacent cells, in cell order. One block per cell, a
// thread per atom of it: the block loads each neighbouring row of cells (the
// three cells along x of one (y, z) row are consecutive in cell order) into
// shared memory in tiles, and every thread tests its atom against the tile.
// Counts past `capacity` are counted, not stored; the largest goes to *longest.
__global__ void __launch_bounds__(kNeighborThreads)
    neighbor_kernel(CellOrder c, int owned, CellGrid g, double reach2, int capacity, int stride,
                    int* list, int* count, int* longest) {
  __shared__ Position tile[kNeighborThreads];
  __shared__ int tile_atom[kNeighborThreads];
  const int cell = static_cast<int>(blockIdx.x);
  const int nx = g.count[0], ny = g.count[1], nz = g.count[2];
  const int cx = cell % nx, cy = (cell / nx) % ny, cz = cell / (nx * ny);
  const int x_lo = cx > 0 ? cx - 1 : 0;
  const int x_hi = cx < nx - 1 ? cx + 1 : nx - 1;
  const int begin = c.start[cell], end = c.start[cell + 1];
  for (int first = begin; first < end; first += blockDim.x) {
    const int s = first + static_cast<int>(threadIdx.x);
    const int i = s < end ? c.atom[s] : owned;
    const bool mine = i < owned;  // ghosts need no list
    if (!__syncthreads_or(mine)) continue;
    Position pi{};
    if (mine) pi = c.x[s];
    int k = 0;
    for (int z = cz - 1; z <= cz + 1; ++z) {
      if (z < 0 || z >= nz) continue;
      for (int y = cy - 1; y <= cy + 1; ++y) {
        if (y < 0 || y >= ny) continue;
        const int row = (z * ny + y) * nx;
        const int row_end = c.start[row + x_hi + 1];
        for (int t0 = c.start[row + x_lo]; t0 < row_end; t0 += blockDim.x) {
          __syncthreads();  // the previous tile is no longer read
          const int t = t0 + static_cast<int>(threadIdx.x);
          if (t < row_end) {
            tile[threadIdx.x] = c.x[t];
            tile_atom[threadIdx.x] = c.atom[t];
          }
          __syncthreads();
          if (!mine) continue;
          const int n = min(static_cast<int>(blockDim.x), row_end - t0);
          for (int u = 0; u < n; ++u) {
            const int j = tile_atom[u];
            const double dx = pi.c[0] - tile[u].c[0], dy = pi.c[1] - tile[u].c[1],
                         dz = pi.c[2] - tile[u].c[2];
            if (j == i || dx * dx + dy * dy + dz * dz >= reach2) continue;
            if (k < capacity) list[k * stride + i] = j;
            ++k;
          }
        }
      }
    }
    if (mine) {
      count[i] = k;
      atomicMax(longest, k);
    }
  }
}

// One thread per owned atom: the LJ force from the atoms of its list within
// the cutoff into f; with Sums instead its halves of those pairs' energies
// and virials.
template <bool Sums>
__global__ void __launch_bounds__(kForceThreads)
    force_kernel(const Position* __restrict__ x, int owned, const int* __restrict__ list,
                 const int* __restrict__ count, int stride, LjParams p, double* f0, double* f1,
                 double* f2, double* energy, double* virial) {
  const int i = thread_index();
  if (i >= owned) return;
  const Position pi = x[i];
  const double xi = pi.c[0], yi = pi.c[1], zi = pi.c[2];
  const double cut2 = p.cutoff * p.cutoff;
  const int n = count[i];
  double fx = 0, fy = 0, fz = 0, e = 0, w = 0;
#pragma unroll 1  // measured on an H200: unrolling by 4 (the compiler's choice too) costs 10%
  for (int k = 0; k < n; ++k) {
    const Position q = x[list[k * stride + i]];
    const double dx = xi - q.c[0], dy = yi - q.c[1], dz = zi - q.c[2];
    const double r2 = dx * dx + dy * dy + dz * dz;
    if (r2 >= cut2) continue;  // lj_pair would give zero
    const PairTerm t = lj_pair(r2, p);
    fx += t.f_over_r * dx;
    fy += t.f_over_r * dy;
    fz += t.f_over_r * dz;
    if (Sums) {
      e += 0.5 * t.energy;
      w += 0.5 * t.f_over_r * r2;
    }
  }
  if (Sums) {
    energy[i] = e;
    virial[i] = w;
  } else {
    f0[i] = fx;
    f1[i] = fy;
    f2[i] = fz;
  }
}

// Whether atom i is outside [lo, hi) along one dimension (== want).
struct Leaves {
  const Position* x;
  int dim;
  double lo, hi;
  bool want;
  __device__ bool operator()(int i) const {
    const double c = x[i].c[dim];
    return (c < lo || c >= hi) == want;
  }
};

// Whether atom i lies below the low edge or at or above the high edge.
struct NearEdge {
  const Position* x;
  int dim;
  double low_edge, high_edge;
  __device__ bool operator()(int i) const {
    const double c = x[i].c[dim];
    return c < low_edge || c >= high_edge;
  }
};

struct EnergyVirial {
  double energy, virial;
};
struct AddEnergyVirial {
  __host__ __device__ EnergyVirial operator()(const EnergyVirial& a, const EnergyVirial& b) const {
    return {a.energy + b.energy, a.virial + b.virial};
  }
};
struct AtomEnergyVirial {
  const double* energy;
  const double* virial;
  __device__ EnergyVirial operator()(int i) const { return {energy[i], virial[i]}; }
};

struct Motion {
  double kinetic, p[3];
};
struct AddMotion {
  __host__ __device__ Motion operator()(const Motion& a, const Motion& b) const {
    return {a.kinetic + b.kinetic, {a.p[0] + b.p[0], a.p[1] + b.p[1], a.p[2] + b.p[2]}};
  }
};
struct AtomMotion {
  const double* v[3];
  LjParams params;
  __device__ Motion operator()(int i) const {
    const double vx = v[0][i], vy = v[1][i], vz = v[2][i];
    return {kinetic_energy(vx, vy, vz, params),
            {params.mass * vx, params.mass * vy, params.mass * vz}};
  }
};

class CudaMdStore final : public MdStore {
  // Thrust on the default stream, its temporary storage from temp_ (defined
  // first: the members below deduce its type).
  mutable TempStorage temp_;
  auto policy() const { return thrust::cuda::par(temp_); }
  // For calls whose result stays on the device: no wait for the device at
  // the end (everything runs on one stream, so later work still follows).
  auto policy_nosync() const { return thrust::cuda::par_nosync(temp_); }

 public:
  CudaMdStore() {
    farthest2_.reserve(1);
    longest_.reserve(1);
    MPSFW_CUDA_CHECK(cudaMemset(farthest2_.data(), 0, sizeof(unsigned long long)));
  }

  long owned() const override { return owned_; }
  long ghosts() const override { return ghosts_; }

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

  void drift(double dt) override {
    if (owned_ == 0) return;
    drift_kernel<<<blocks_for(owned_, kThreads), kThreads>>>(arrays(), owned_, dt);
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  void kick_drift(double half_dt, double dt, const LjParams& p) override {
    if (owned_ == 0) return;
    // Without a build since the atoms changed there is nothing to measure
    // from: the next check must rebuild anyway (max_displacement says so).
    built_x_.reserve(owned_);
    kick_drift_kernel<<<blocks_for(owned_, kThreads), kThreads>>>(
        arrays(), owned_, half_dt, dt, p, built_x_.data(), farthest2_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  long fold_periodic(const bool fold[3], const double box[3]) override {
    clear_ghosts();
    if (owned_ == 0) return 0;
    const Position b{{box[0], box[1], box[2], 0.0}};
    const Position f{{fold[0] ? 1.0 : 0.0, fold[1] ? 1.0 : 0.0, fold[2] ? 1.0 : 0.0, 0.0}};
    MPSFW_CUDA_CHECK(cudaMemset(longest_.data(), 0, sizeof(int)));
    fold_kernel<<<blocks_for(owned_, kThreads), kThreads>>>(arrays(), owned_, b, f, longest_.data());
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
  void take_leaving(int dim, double lo, double hi, std::vector<AtomRecord>* to_low,
                    std::vector<AtomRecord>* to_high) override {
    clear_ghosts();
    if (owned_ == 0) return;
    const thrust::counting_iterator<int> first(0);
    index_.reserve(owned_);
    const int leaving =
        static_cast<int>(thrust::copy_if(policy(), first, first + owned_, index_.data(),
                                         Leaves{x_.data(), dim, lo, hi, true}) -
                         index_.data());
    if (leaving == 0) return;

    records_.reserve(leaving);
    pack_atoms_kernel<<<blocks_for(leaving, kThreads), kThreads>>>(view(), index_.data(), leaving,
                                                                   records_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
    atom_staging_.resize(static_cast<std::size_t>(leaving));
    MPSFW_CUDA_CHECK(cudaMemcpy(atom_staging_.data(), records_.data(),
                                atom_staging_.size() * sizeof(AtomRecord), cudaMemcpyDeviceToHost));
    for (const AtomRecord& r : atom_staging_) (r.x[dim] < lo ? to_low : to_high)->push_back(r);

    const int kept = owned_ - leaving;
    fillers_.reserve(leaving);
    const int moves =
        static_cast<int>(thrust::copy_if(policy(), first + kept, first + owned_, fillers_.data(),
                                         Leaves{x_.data(), dim, lo, hi, false}) -
                         fillers_.data());
    if (moves > 0) {  // the first `moves` leaving indices are the holes below `kept`
      move_atoms_kernel<<<blocks_for(moves, kThreads), kThreads>>>(arrays(), index_.data(),
                                                                   fillers_.data(), moves);
      MPSFW_CUDA_CHECK_LAUNCH();
    }
    owned_ = kept;
  }

  void add_owned(const std::vector<AtomRecord>& atoms) override {
    clear_ghosts();  // owned atoms must precede the ghosts
    append_owned(atoms);
  }

  void sort_by_cell(const CellGrid& grid) override {
    clear_ghosts();
    if (owned_ == 0) return;
    check_grid(grid);
    key_.reserve(owned_);
    order_.reserve(owned_);
    cell_keys_kernel<<<blocks_for(owned_, kThreads), kThreads>>>(view(), owned_, grid, key_.data(),
                                                                 order_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
    thrust::stable_sort_by_key(policy_nosync(), key_.data(), key_.data() + owned_, order_.data());
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
    listed_ = -1;
  }

  void select_sends(int dim, double low_edge, double high_edge, double low_shift, double high_shift,
                    long counts[2]) override {
    const int n = owned_ + ghosts_;
    const thrust::counting_iterator<int> first(0);
    const double shifts[2] = {low_shift, high_shift};
    for (int side = 0; side < 2; ++side) {
      SendList& list = sends_[2 * dim + side];
      list.dim = dim;
      list.shift = shifts[side];
      list.index.reserve(n);
      const NearEdge near{x_.data(), dim, side == 0 ? low_edge : -HUGE_VAL,
                          side == 0 ? HUGE_VAL : high_edge};
      list.count = n == 0 ? 0
                          : static_cast<int>(thrust::copy_if(policy(), first, first + n,
                                                             list.index.data(), near) -
                                             list.index.data());
      counts[side] = list.count;
    }
  }

  const double* pack_sends(int list) override {
    const SendList& send = sends_[list];
    host_out_.reserve(3L * send.count);
    if (send.count == 0) return host_out_.data();
    device_out_.reserve(3 * send.count);
    pack_positions_kernel<<<blocks_for(send.count, kThreads), kThreads>>>(
        view(), send.index.data(), send.count, send.dim, send.shift, device_out_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
    MPSFW_CUDA_CHECK(cudaMemcpy(host_out_.data(), device_out_.data(),
                                3 * static_cast<std::size_t>(send.count) * sizeof(double),
                                cudaMemcpyDeviceToHost));
    return host_out_.data();
  }

  double* receive_buffer(long count) override {
    host_in_.reserve(3 * count);
    return host_in_.data();
  }

  void unpack_ghosts(long first, long count) override {
    const int slots = ghost_slots(first, count);
    if (count == 0) return;
    device_in_.reserve(slots * 3);
    MPSFW_CUDA_CHECK(cudaMemcpy(device_in_.data(), host_in_.data(),
                                3 * static_cast<std::size_t>(count) * sizeof(double),
                                cudaMemcpyHostToDevice));
    unpack_positions_kernel<<<blocks_for(slots, kThreads), kThreads>>>(
        device_in_.data(), slots, arrays(), owned_ + static_cast<int>(first));
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  void copy_sends_to_ghosts(int list, long first) override {
    const SendList& send = sends_[list];
    ghost_slots(first, send.count);
    if (send.count == 0) return;
    image_root_.reserve(ghosts_, static_cast<int>(first));
    image_shift_.reserve(ghosts_, static_cast<int>(first));
    copy_own_images_kernel<<<blocks_for(send.count, kThreads), kThreads>>>(
        x_.data(), owned_, send.index.data(), send.count, send.dim, send.shift,
        static_cast<int>(first), image_root_.data(), image_shift_.data());
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
    const SendList& send = sends_[list];
    if (send.count == 0) return;
    copy_positions_kernel<<<blocks_for(send.count, kThreads), kThreads>>>(
        x_.data(), send.index.data(), send.count, send.dim, send.shift,
        static_cast<Position*>(target) + slot);
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  void synchronize() override { MPSFW_CUDA_CHECK(cudaDeviceSynchronize()); }

  void build_neighbors(const CellGrid& grid, double reach) override {
    const int n = owned_ + ghosts_;
    const long cells = check_grid(grid);
    listed_ = n;
    built_x_.reserve(capacity_);
    MPSFW_CUDA_CHECK(cudaMemset(farthest2_.data(), 0, sizeof(unsigned long long)));
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
    thrust::stable_sort_by_key(policy_nosync(), key_.data(), key_.data() + n, order_.data());
    const thrust::counting_iterator<int> first(0);
    thrust::lower_bound(policy_nosync(), key_.data(), key_.data() + n, first,
                        first + static_cast<int>(cells) + 1, start_.data());
    gather_positions_kernel<<<blocks_for(n, kThreads), kThreads>>>(
        view(), order_.data(), n, sorted_x_.data());
    MPSFW_CUDA_CHECK_LAUNCH();

    // The lists; once more with room for the longest if one did not fit.
    const CellOrder order{sorted_x_.data(),
                          key_.data(), order_.data(), start_.data()};
    stride_ = (owned_ + 31) / 32 * 32;
    neighbor_count_.reserve(owned_);
    for (;;) {
      neighbors_.reserve(static_cast<int>(std::min<long>(static_cast<long>(width_) * stride_, INT_MAX)));
      if (static_cast<long>(width_) * stride_ > INT_MAX) {
        throw Error("CUDA MD store: neighbour lists of " + std::to_string(width_) + " x " +
                    std::to_string(stride_) + " entries are more than one rank can index");
      }
      MPSFW_CUDA_CHECK(cudaMemset(longest_.data(), 0, sizeof(int)));
      neighbor_kernel<<<static_cast<unsigned>(cells), kNeighborThreads>>>(
          order, owned_, grid, reach * reach, width_, stride_, neighbors_.data(),
          neighbor_count_.data(), longest_.data());
      MPSFW_CUDA_CHECK_LAUNCH();
      int longest = 0;
      MPSFW_CUDA_CHECK(cudaMemcpy(&longest, longest_.data(), sizeof(int), cudaMemcpyDeviceToHost));
      if (longest <= width_) break;
      width_ = (longest + longest / 8 + 7) / 8 * 8;
    }
  }

  double max_displacement() const override {
    if (listed_ != owned_ + ghosts_) return HUGE_VAL;  // no build since the atoms changed
    unsigned long long bits = 0;
    MPSFW_CUDA_CHECK(cudaMemcpy(&bits, farthest2_.data(), sizeof bits, cudaMemcpyDeviceToHost));
    double r2;
    std::memcpy(&r2, &bits, sizeof r2);
    return std::sqrt(r2);
  }

  void compute_forces(const LjParams& p) override {
    require_current_lists();
    if (owned_ == 0) return;
    force_kernel<false><<<blocks_for(owned_, kForceThreads), kForceThreads>>>(
        x_.data(), owned_, neighbors_.data(), neighbor_count_.data(),
        stride_, p, f_[0].data(), f_[1].data(), f_[2].data(), nullptr, nullptr);
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  ForceSums pair_sums(const LjParams& p) const override {
    require_current_lists();
    ForceSums sums;
    if (owned_ == 0) return sums;
    energy_.reserve(owned_);
    virial_.reserve(owned_);
    force_kernel<true><<<blocks_for(owned_, kForceThreads), kForceThreads>>>(
        x_.data(), owned_, neighbors_.data(), neighbor_count_.data(),
        stride_, p, nullptr, nullptr, nullptr, energy_.data(), virial_.data());
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
  // Atoms one stage of the ghost exchange sends to one side, and how.
  struct SendList {
    DeviceBuffer<int> index;
    int count = 0;
    int dim = 0;
    double shift = 0;
  };

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
    MPSFW_CUDA_CHECK(cudaMemcpy(records_.data(), atoms.data(), atoms.size() * sizeof(AtomRecord),
                                cudaMemcpyHostToDevice));
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
  DeviceBuffer<Position> sorted_x_;
  DeviceBuffer<int> neighbors_, neighbor_count_, longest_;
  int width_ = 64;  // room per atom in the lists (grows to the longest)
  int stride_ = 0;  // entries between an atom's consecutive neighbours
  // Owned positions at the last build, and the largest squared move since.
  DeviceBuffer<Position> built_x_;
  DeviceBuffer<unsigned long long> farthest2_;
  // The ghost plan's send lists and the buffers its positions move through.
  SendList sends_[6];
  DeviceBuffer<double> device_out_, device_in_;
  PinnedBuffer<double> host_out_, host_in_;
  // Per ghost slot placed by copy_sends_to_ghosts: its owned atom and shift.
  DeviceBuffer<int> image_root_;
  DeviceBuffer<Position> image_shift_;
  // Per-atom sums and scratch for moving records, also used by const functions.
  mutable DeviceBuffer<double> energy_, virial_;
  mutable DeviceBuffer<AtomRecord> records_;
  mutable DeviceBuffer<int> index_, fillers_;
  mutable DeviceBuffer<double> flat_;
  mutable std::vector<AtomRecord> atom_staging_;
};

}  // namespace

namespace detail {
std::unique_ptr<MdStore> make_cuda_md_store() { return std::make_unique<CudaMdStore>(); }
}  // namespace detail

}  // namespace mpsfw::md
