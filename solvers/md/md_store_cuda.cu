// CUDA backend of the MD store: every atom lives on the GPU as a structure of
// arrays. Kernels do the per-atom updates and the link-cell force loop; Thrust
// sorts atoms into cells, compacts leaving atoms and selected ghosts, and sums.
// Buffers keep their capacity, and Thrust's temporary storage is reused, so a
// step with a steady atom count allocates nothing.
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/transform_reduce.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "md_store.hpp"

namespace mpsfw::md {
namespace {

constexpr int kThreads = 256;       // per block, simple per-atom kernels
constexpr int kForceThreads = 128;  // per block, force kernel

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
  }

 private:
  Array<T> array_;
};

// Thrust's temporary storage (sort, copy_if, reduce): a block returned by one
// call is handed out again to the next, and regrown when too small.
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

// Device pointers to the per-atom arrays: x for owned atoms and ghosts, the
// rest for owned atoms only.
struct AtomArrays {
  double* x[3];
  double* v[3];
  double* f[3];
  std::int64_t* id;
};
struct AtomView {
  const double* x[3];
  const double* v[3];
  const double* f[3];
  const std::int64_t* id;
};
// Positions in cell order, each atom's cell and store index, and where each
// cell begins (start[c + 1] is where it ends).
struct CellOrder {
  const double* x[3];
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
  for (int d = 0; d < 3; ++d) {
    a.x[d][i] = in[t].x[d];
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
    r.x[d] = a.x[d][i];
    r.v[d] = a.v[d][i];
  }
  r.id = a.id[i];
  out[t] = r;
}

// Unpacks ghost positions into slots [offset, offset + count).
__global__ void unpack_positions_kernel(const GhostRecord* in, int count, AtomArrays a,
                                        int offset) {
  const int t = thread_index();
  if (t >= count) return;
  for (int d = 0; d < 3; ++d) a.x[d][offset + t] = in[t].x[d];
}

// Packs the position of atom index[t] into ghost record t.
__global__ void pack_positions_kernel(AtomView a, const int* index, int count, GhostRecord* out) {
  const int t = thread_index();
  if (t >= count) return;
  const int i = index[t];
  GhostRecord g;
  for (int d = 0; d < 3; ++d) g.x[d] = a.x[d][i];
  out[t] = g;
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

// x += dt v for owned atoms (folded into the box when they migrate).
__global__ void drift_kernel(AtomArrays a, int count, double dt) {
  const int i = thread_index();
  if (i >= count) return;
  for (int d = 0; d < 3; ++d) a.x[d][i] = drifted(a.x[d][i], a.v[d][i], dt);
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
  for (int d = 0; d < 3; ++d) {
    a.x[d][i] = a.x[d][j];
    a.v[d][i] = a.v[d][j];
    a.f[d][i] = a.f[d][j];
  }
  a.id[i] = a.id[j];
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
  const int cx = cell_along(a.x[0][i], g, 0);
  const int cy = cell_along(a.x[1][i], g, 1);
  const int cz = cell_along(a.x[2][i], g, 2);
  key[i] = (cz * g.count[1] + cy) * g.count[0] + cx;
  order[i] = i;
}

// Positions in cell order, so that the atoms of one cell lie side by side.
__global__ void gather_positions_kernel(AtomView a, const int* order, int count, double* x0,
                                        double* x1, double* x2) {
  const int s = thread_index();
  if (s >= count) return;
  const int i = order[s];
  x0[s] = a.x[0][i];
  x1[s] = a.x[1][i];
  x2[s] = a.x[2][i];
}

// One thread per atom in cell order. For an owned atom: the LJ force from every
// other atom (owned or ghost) in its own and the 26 adjacent cells, and its
// halves of those pairs' energies and virials, stored at its store index. The
// three cells along x of one (y, z) row are consecutive in cell order, so each
// row is one range.
__global__ void __launch_bounds__(kForceThreads)
    force_kernel(CellOrder c, int count, int owned, CellGrid g, LjParams p, AtomArrays a,
                 double* energy, double* virial) {
  const int s = thread_index();
  if (s >= count) return;
  const int i = c.atom[s];
  if (i >= owned) return;
  const int nx = g.count[0], ny = g.count[1], nz = g.count[2];
  const int key = c.key[s];
  const int cx = key % nx, cy = (key / nx) % ny, cz = key / (nx * ny);
  const int x_lo = cx > 0 ? cx - 1 : 0;
  const int x_hi = cx < nx - 1 ? cx + 1 : nx - 1;
  const double xi = c.x[0][s], yi = c.x[1][s], zi = c.x[2][s];
  const double cut2 = p.cutoff * p.cutoff;
  double fx = 0, fy = 0, fz = 0, e = 0, w = 0;
  for (int z = cz - 1; z <= cz + 1; ++z) {
    if (z < 0 || z >= nz) continue;
    for (int y = cy - 1; y <= cy + 1; ++y) {
      if (y < 0 || y >= ny) continue;
      const int row = (z * ny + y) * nx;
      const int end = c.start[row + x_hi + 1];
      for (int u = c.start[row + x_lo]; u < end; ++u) {
        if (u == s) continue;
        const double dx = xi - c.x[0][u], dy = yi - c.x[1][u], dz = zi - c.x[2][u];
        const double r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= cut2) continue;  // lj_pair would give zero
        const PairTerm t = lj_pair(r2, p);
        fx += t.f_over_r * dx;
        fy += t.f_over_r * dy;
        fz += t.f_over_r * dz;
        e += 0.5 * t.energy;
        w += 0.5 * t.f_over_r * r2;
      }
    }
  }
  a.f[0][i] = fx;
  a.f[1][i] = fy;
  a.f[2][i] = fz;
  energy[i] = e;
  virial[i] = w;
}

// Whether atom i is outside [lo, hi) along one dimension (== want).
struct Leaves {
  const double* x;
  double lo, hi;
  bool want;
  __device__ bool operator()(int i) const { return (x[i] < lo || x[i] >= hi) == want; }
};

// Whether atom i lies below the low edge or at or above the high edge.
struct NearEdge {
  const double* x;
  double low_edge, high_edge;
  __device__ bool operator()(int i) const { return x[i] < low_edge || x[i] >= high_edge; }
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

 public:
  long owned() const override { return owned_; }
  long ghosts() const override { return ghosts_; }

  void assign(const std::vector<AtomRecord>& atoms) override {
    owned_ = 0;
    ghosts_ = 0;
    binned_ = -1;
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
    ghosts_ = 0;
    binned_ = -1;
    if (owned_ == 0) return;
    const thrust::counting_iterator<int> first(0);
    index_.reserve(owned_);
    const int leaving =
        static_cast<int>(thrust::copy_if(policy(), first, first + owned_, index_.data(),
                                         Leaves{x_[dim].data(), lo, hi, true}) -
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
                                         Leaves{x_[dim].data(), lo, hi, false}) -
                         fillers_.data());
    if (moves > 0) {  // the first `moves` leaving indices are the holes below `kept`
      move_atoms_kernel<<<blocks_for(moves, kThreads), kThreads>>>(arrays(), index_.data(),
                                                                   fillers_.data(), moves);
      MPSFW_CUDA_CHECK_LAUNCH();
    }
    owned_ = kept;
  }

  void add_owned(const std::vector<AtomRecord>& atoms) override {
    ghosts_ = 0;  // owned atoms must precede the ghosts
    binned_ = -1;
    append_owned(atoms);
  }

  void select_ghosts(int dim, double low_edge, double high_edge, std::vector<GhostRecord>* to_low,
                     std::vector<GhostRecord>* to_high) const override {
    const int n = owned_ + ghosts_;
    if (n == 0) return;
    const thrust::counting_iterator<int> first(0);
    index_.reserve(n);
    const int count =
        static_cast<int>(thrust::copy_if(policy(), first, first + n, index_.data(),
                                         NearEdge{x_[dim].data(), low_edge, high_edge}) -
                         index_.data());
    if (count == 0) return;
    ghost_records_.reserve(count);
    pack_positions_kernel<<<blocks_for(count, kThreads), kThreads>>>(view(), index_.data(), count,
                                                                     ghost_records_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
    ghost_staging_.resize(static_cast<std::size_t>(count));
    MPSFW_CUDA_CHECK(cudaMemcpy(ghost_staging_.data(), ghost_records_.data(),
                                ghost_staging_.size() * sizeof(GhostRecord),
                                cudaMemcpyDeviceToHost));
    for (const GhostRecord& g : ghost_staging_) {  // an atom may go both ways
      if (g.x[dim] < low_edge) to_low->push_back(g);
      if (g.x[dim] >= high_edge) to_high->push_back(g);
    }
  }

  void add_ghosts(const std::vector<GhostRecord>& ghosts) override {
    const int count = checked_count(static_cast<long>(ghosts.size()));
    if (count == 0) return;
    const int n = owned_ + ghosts_;
    const int total = checked_count(static_cast<long>(n) + count);
    for (DeviceBuffer<double>& x : x_) x.reserve(total, n);
    ghost_records_.reserve(count);
    MPSFW_CUDA_CHECK(cudaMemcpy(ghost_records_.data(), ghosts.data(),
                                ghosts.size() * sizeof(GhostRecord), cudaMemcpyHostToDevice));
    unpack_positions_kernel<<<blocks_for(count, kThreads), kThreads>>>(ghost_records_.data(), count,
                                                                       arrays(), n);
    MPSFW_CUDA_CHECK_LAUNCH();
    ghosts_ += count;
  }

  void clear_ghosts() override {
    ghosts_ = 0;
    binned_ = -1;
  }

  void build_cells(const CellGrid& grid) override {
    const int n = owned_ + ghosts_;
    const long cells = static_cast<long>(grid.count[0]) * grid.count[1] * grid.count[2];
    if (grid.count[0] < 1 || grid.count[1] < 1 || grid.count[2] < 1 || cells >= INT_MAX) {
      throw Error("CUDA MD store: bad link-cell grid of " + std::to_string(cells) + " cells");
    }
    grid_ = grid;
    binned_ = n;
    if (n == 0) return;
    key_.reserve(n);
    order_.reserve(n);
    for (DeviceBuffer<double>& x : sorted_x_) x.reserve(n);
    start_.reserve(static_cast<int>(cells) + 1);

    // Bin into cells: a stable sort by cell, then where each cell begins.
    cell_keys_kernel<<<blocks_for(n, kThreads), kThreads>>>(view(), n, grid, key_.data(),
                                                            order_.data());
    MPSFW_CUDA_CHECK_LAUNCH();
    thrust::sort_by_key(policy(), key_.data(), key_.data() + n, order_.data());
    const thrust::counting_iterator<int> first(0);
    thrust::lower_bound(policy(), key_.data(), key_.data() + n, first,
                        first + static_cast<int>(cells) + 1, start_.data());
    gather_positions_kernel<<<blocks_for(n, kThreads), kThreads>>>(
        view(), order_.data(), n, sorted_x_[0].data(), sorted_x_[1].data(), sorted_x_[2].data());
    MPSFW_CUDA_CHECK_LAUNCH();
  }

  ForceSums compute_forces(const LjParams& p) override {
    ForceSums sums;
    const int n = owned_ + ghosts_;
    if (binned_ != n) throw Error("CUDA MD store: compute_forces without a current build_cells");
    if (owned_ == 0) return sums;
    const CellGrid& grid = grid_;
    energy_.reserve(owned_);
    virial_.reserve(owned_);
    const thrust::counting_iterator<int> first(0);
    const CellOrder order{{sorted_x_[0].data(), sorted_x_[1].data(), sorted_x_[2].data()},
                          key_.data(),
                          order_.data(),
                          start_.data()};
    force_kernel<<<blocks_for(n, kForceThreads), kForceThreads>>>(
        order, n, owned_, grid, p, arrays(), energy_.data(), virial_.data());
    MPSFW_CUDA_CHECK_LAUNCH();

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
    return {{x_[0].data(), x_[1].data(), x_[2].data()},
            {v_[0].data(), v_[1].data(), v_[2].data()},
            {f_[0].data(), f_[1].data(), f_[2].data()},
            id_.data()};
  }
  AtomView view() const {
    return {{x_[0].data(), x_[1].data(), x_[2].data()},
            {v_[0].data(), v_[1].data(), v_[2].data()},
            {f_[0].data(), f_[1].data(), f_[2].data()},
            id_.data()};
  }
  // Appends owned atoms after the current ones (the caller dropped the ghosts).
  void append_owned(const std::vector<AtomRecord>& atoms) {
    const int count = checked_count(static_cast<long>(atoms.size()));
    if (count == 0) return;
    const int total = checked_count(static_cast<long>(owned_) + count);
    for (int d = 0; d < 3; ++d) {
      x_[d].reserve(total, owned_);
      v_[d].reserve(total, owned_);
      f_[d].reserve(total, owned_);
    }
    id_.reserve(total, owned_);
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
  // Atoms: positions of owned atoms then ghosts; the rest for owned atoms.
  DeviceBuffer<double> x_[3], v_[3], f_[3];
  DeviceBuffer<std::int64_t> id_;
  // Link cells (rebuilt by every build_cells) and per-atom force sums.
  CellGrid grid_{};
  int binned_ = -1;  // atoms binned by the last build_cells; -1: none since a change
  DeviceBuffer<int> key_, order_, start_;
  DeviceBuffer<double> sorted_x_[3], energy_, virial_;
  // Scratch for moving records in and out, also used by const functions.
  mutable DeviceBuffer<AtomRecord> records_;
  mutable DeviceBuffer<GhostRecord> ghost_records_;
  mutable DeviceBuffer<int> index_, fillers_;
  mutable DeviceBuffer<double> flat_;
  mutable std::vector<AtomRecord> atom_staging_;
  mutable std::vector<GhostRecord> ghost_staging_;
};

}  // namespace

namespace detail {
std::unique_ptr<MdStore> make_cuda_md_store() { return std::make_unique<CudaMdStore>(); }
}  // namespace detail

}  // namespace mpsfw::md
