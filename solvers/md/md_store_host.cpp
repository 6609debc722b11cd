// The atoms of one rank in host memory, with OpenMP over owned atoms.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/error.hpp"
#include "md_store.hpp"

namespace mpsfw::md {
namespace {

class HostMdStore final : public MdStore {
 public:
  long owned() const override { return owned_; }
  long ghosts() const override { return static_cast<long>(x_.size()) / 3 - owned_; }
  Backend space() const override { return Backend::Host; }

  double bytes_for(double owned, double ghosts, double neighbours) const override {
    // Owned: x, v, f, id, the positions at the build, and sort_by_cell's
    // copies of x, v, f, id; a list row as wide as build_neighbors makes it,
    // and its count. Every atom: x and the binning's cell, order and slot.
    const double row = neighbours + neighbours / 8 + 8;
    const double per_owned = (3 + 3 + 3 + 1 + 3 + 10) * 8.0 + (row + 1) * sizeof(long);
    const double per_atom = 3 * 8.0 + 3 * 8.0;
    return owned * per_owned + (owned + ghosts) * per_atom;
  }

  void assign(const std::vector<AtomRecord>& atoms) override {
    x_.clear();
    v_.clear();
    id_.clear();
    owned_ = 0;
    add_owned_atoms(atoms);
  }

  std::vector<AtomRecord> download() const override {
    std::vector<AtomRecord> out(static_cast<size_t>(owned_));
    for (long i = 0; i < owned_; ++i) {
      AtomRecord& a = out[static_cast<size_t>(i)];
      for (int d = 0; d < 3; ++d) {
        a.x[d] = x_[static_cast<size_t>(3 * i + d)];
        a.v[d] = v_[static_cast<size_t>(3 * i + d)];
      }
      a.id = id_[static_cast<size_t>(i)];
    }
    return out;
  }

  std::vector<double> download_forces() const override {
    return std::vector<double>(f_.begin(), f_.begin() + 3 * owned_);
  }

  void kick(double half_dt, const LjParams& p) override {
#pragma omp parallel for
    for (long k = 0; k < 3 * owned_; ++k)
      v_[static_cast<size_t>(k)] =
          kicked(v_[static_cast<size_t>(k)], f_[static_cast<size_t>(k)], half_dt, p);
  }

  void kick_drift(double half_dt, double dt, const LjParams& p) override {
#pragma omp parallel for
    for (long k = 0; k < 3 * owned_; ++k) {
      const size_t u = static_cast<size_t>(k);
      v_[u] = kicked(v_[u], f_[u], half_dt, p);
      x_[u] = drifted(x_[u], v_[u], dt);
    }
  }

  long fold_periodic(const bool fold[3], const double box[3]) override {
    clear_ghosts();
    long outside = 0;
    for (long i = 0; i < owned_; ++i) {
      for (int d = 0; d < 3; ++d) {
        double& c = x_[static_cast<size_t>(3 * i + d)];
        if (!fold[d] || (c >= 0 && c < box[d])) continue;
        c = across_periodic_edge(c, box[d]);
        outside += !(c >= 0 && c < box[d]);
      }
    }
    return outside;
  }

  void scale_velocities(double factor) override {
    for (long k = 0; k < 3 * owned_; ++k) v_[static_cast<size_t>(k)] *= factor;
  }

  void take_leaving_atoms(const double lo[3], const double hi[3],
                          std::vector<AtomRecord>* leaving) override {
    clear_ghosts();
    long kept = 0;
    for (long i = 0; i < owned_; ++i) {
      bool leaves = false;
      for (int d = 0; d < 3; ++d) {
        const double c = x_[static_cast<size_t>(3 * i + d)];
        leaves = leaves || c < lo[d] || c >= hi[d];
      }
      if (leaves) {
        leaving->push_back(record(i));
        continue;
      }
      move_atom(i, kept++);
    }
    owned_ = kept;
    resize(owned_);
  }

  void add_owned_atoms(const std::vector<AtomRecord>& atoms) override {
    clear_ghosts();
    for (const AtomRecord& a : atoms) {
      x_.insert(x_.end(), a.x, a.x + 3);
      v_.insert(v_.end(), a.v, a.v + 3);
      id_.push_back(a.id);
    }
    owned_ += static_cast<long>(atoms.size());
    f_.resize(x_.size(), 0.0);
  }

  void sort_by_cell(const CellGrid& grid) override {
    clear_ghosts();
    std::vector<long> order;
    cell_order(grid, owned_, &order);
    const std::vector<double> x = x_, v = v_, f = f_;
    const std::vector<std::int64_t> id = id_;
    for (long s = 0; s < owned_; ++s) {
      const size_t to = static_cast<size_t>(s), from = static_cast<size_t>(order[to]);
      for (int d = 0; d < 3; ++d) {
        x_[3 * to + d] = x[3 * from + d];
        v_[3 * to + d] = v[3 * from + d];
        f_[3 * to + d] = f[3 * from + d];
      }
      id_[to] = id[from];
    }
  }

  void clear_ghosts() override {
    x_.resize(static_cast<size_t>(3 * owned_));
    neighbors_built_ = -1;  // the lists no longer describe the atoms
  }

  void select_sends(const GhostBands& bands, long counts[kGhostLists]) override {
    for (int list = 0; list < kGhostLists; ++list) {
      sends_[list].clear();
      for (int d = 0; d < 3; ++d) send_shift_[list][d] = bands.shift[list][d];
    }
    for (long i = 0; i < owned_; ++i) {
      const double* c = &x_[static_cast<size_t>(3 * i)];
      std::uint32_t mask = ghost_list_mask(c[0], c[1], c[2], bands);
      for (int list = 0; mask != 0; ++list, mask >>= 1) {
        if (mask & 1u) sends_[list].push_back(i);
      }
    }
    for (int list = 0; list < kGhostLists; ++list)
      counts[list] = static_cast<long>(sends_[list].size());
  }

  void pack_sends(std::uint32_t lists, double* out) override {
    for (int list = 0; list < kGhostLists; ++list) {
      if (!(lists >> list & 1u)) continue;
      for (long i : sends_[list]) {
        position_of(list, i, out);
        out += 3;
      }
    }
  }

  void reserve_ghosts(long count) override { ghost_slots(count); }

  void unpack_ghosts(const double* in, long first, long count) override {
    ghost_slots(first + count);
    std::copy(in + 3 * first, in + 3 * (first + count), x_.begin() + 3 * (owned_ + first));
  }

  void copy_sends_to_ghosts(std::uint32_t lists, const long first[kGhostLists]) override {
    for (int list = 0; list < kGhostLists; ++list) {
      if (!(lists >> list & 1u)) continue;
      const std::vector<long>& send = sends_[list];
      ghost_slots(first[list] + static_cast<long>(send.size()));
      image_root_.resize(x_.size() / 3 - static_cast<size_t>(owned_));
      image_list_.resize(image_root_.size());
      for (size_t t = 0; t < send.size(); ++t) {
        const size_t slot = static_cast<size_t>(first[list]) + t;
        position_of(list, send[t], &x_[static_cast<size_t>(3 * owned_) + 3 * slot]);
        image_root_[slot] = send[t];  // the owned atom it images, through this list
        image_list_[slot] = list;
      }
    }
  }

  void refresh_own_images() override {
    const long ghosts = static_cast<long>(x_.size()) / 3 - owned_;
#pragma omp parallel for
    for (long g = 0; g < ghosts; ++g) {
      const size_t slot = static_cast<size_t>(g);
      position_of(image_list_[slot], image_root_[slot],
                  &x_[static_cast<size_t>(3 * owned_) + 3 * slot]);
    }
  }

  // Host memory is not shared with other processes: ghosts go through MPI.
  const void* positions_base() const override { return nullptr; }
  long positions_generation() const override { return 0; }
  void push_sends(int, void*, long) override {
    throw Error("MD host store: ghosts cannot be pushed into another process");
  }
  void synchronize() override {}

  void build_neighbors(const CellGrid& grid, double reach) override {
    const long n = static_cast<long>(x_.size()) / 3;
    cell_order(grid, n, &sorted_);
    const double reach2 = reach * reach;
    const int* count = grid.count;
    // One pass over the 27 cells around each owned atom into rows of width_
    // entries; once more with wider rows if one did not fit. The three cells
    // along x of one (y, z) row are consecutive in cell order: one range.
    neighbor_count_.assign(static_cast<size_t>(owned_), 0);
    for (;;) {
      neighbors_.resize(static_cast<size_t>(owned_) * static_cast<size_t>(width_));
      long longest = 0;
#pragma omp parallel for schedule(static) reduction(max : longest)
      for (long i = 0; i < owned_; ++i) {
        const double* xi = &x_[static_cast<size_t>(3 * i)];
        int c[3];
        for (int d = 0; d < 3; ++d) c[d] = link_cell_along(xi[d], grid, d);
        const int x_lo = std::max(c[0] - 1, 0), x_hi = std::min(c[0] + 1, count[0] - 1);
        long* row_out = &neighbors_[static_cast<size_t>(i) * static_cast<size_t>(width_)];
        long k = 0;
        for (int cz = std::max(c[2] - 1, 0); cz <= std::min(c[2] + 1, count[2] - 1); ++cz) {
          for (int cy = std::max(c[1] - 1, 0); cy <= std::min(c[1] + 1, count[1] - 1); ++cy) {
            const size_t row = (static_cast<size_t>(cz) * count[1] + cy) * count[0];
            for (long s = cell_start_[row + x_lo]; s < cell_start_[row + x_hi + 1]; ++s) {
              const long j = sorted_[static_cast<size_t>(s)];
              if (j == i || distance2(i, j) >= reach2) continue;
              if (k < width_) row_out[k] = j;
              ++k;
            }
          }
        }
        neighbor_count_[static_cast<size_t>(i)] = k;
        longest = std::max(longest, k);
      }
      if (longest <= width_) break;
      width_ = longest + longest / 8 + 8;
    }
    built_x_.assign(x_.begin(), x_.begin() + 3 * owned_);
    neighbors_built_ = n;
  }

  std::vector<double> download_build_positions() const override { return built_x_; }

  // The host store measures the displacement afresh each time: `moved` adds nothing.
  void restore_positions(const std::vector<double>& x, double /*moved*/) override {
    if (x.size() != static_cast<size_t>(3 * owned_))
      throw Error("MD host store: restore_positions of a different atom count");
    std::copy(x.begin(), x.end(), x_.begin());
  }

  double max_displacement() const override {
    if (built_x_.size() != static_cast<size_t>(3 * owned_))
      return HUGE_VAL;  // no build since a change
    double worst = 0;
#pragma omp parallel for reduction(max : worst)
    for (long k = 0; k < owned_; ++k) {
      double r2 = 0;
      for (int d = 0; d < 3; ++d) {
        const double delta =
            x_[static_cast<size_t>(3 * k + d)] - built_x_[static_cast<size_t>(3 * k + d)];
        r2 += delta * delta;
      }
      worst = std::max(worst, r2);
    }
    return std::sqrt(worst);
  }

  void compute_forces(const LjParams& p) override {
    require_current_lists();
    // F_i = sum over listed j within r_c of f_over_r(r_ij) (x_i - x_j).
#pragma omp parallel for schedule(static)
    for (long i = 0; i < owned_; ++i) {
      double f[3] = {0, 0, 0};
      for_each_pair(i, p, [&](const double dx[3], double, const PairTerm& t) {
        for (int d = 0; d < 3; ++d) f[d] += t.f_over_r * dx[d];
      });
      for (int d = 0; d < 3; ++d) f_[static_cast<size_t>(3 * i + d)] = f[d];
    }
  }

  ForceSums pair_sums(const LjParams& p) const override {
    require_current_lists();
    double potential = 0, virial = 0;
    // Each pair's energy and virial are split half to each atom, so sums over
    // owned atoms count every pair once even across ranks.
#pragma omp parallel for reduction(+ : potential, virial) schedule(static)
    for (long i = 0; i < owned_; ++i) {
      for_each_pair(i, p, [&](const double*, double r2, const PairTerm& t) {
        potential += 0.5 * t.energy;
        virial += 0.5 * t.f_over_r * r2;
      });
    }
    return {potential, virial};
  }

  MotionSums motion(const LjParams& p) const override {
    MotionSums m;
    for (long i = 0; i < owned_; ++i) {
      const double* v = &v_[static_cast<size_t>(3 * i)];
      m.kinetic += kinetic_energy(v[0], v[1], v[2], p);
      for (int d = 0; d < 3; ++d) m.momentum[d] += p.mass * v[d];
    }
    return m;
  }

 private:
  // Stable counting sort of atoms 0 .. n-1 by link cell: `order` lists atom
  // indices cell by cell, cell_start_[c] .. cell_start_[c + 1] being cell c's.
  void cell_order(const CellGrid& g, long n, std::vector<long>* order) {
    const size_t cells = static_cast<size_t>(g.count[0]) * g.count[1] * g.count[2];
    cell_start_.assign(cells + 1, 0);
    cell_of_atom_.resize(static_cast<size_t>(n));
    for (long i = 0; i < n; ++i) {
      const double* p = &x_[static_cast<size_t>(3 * i)];
      const size_t c = (static_cast<size_t>(link_cell_along(p[2], g, 2)) * g.count[1] +
                        link_cell_along(p[1], g, 1)) *
                           g.count[0] +
                       link_cell_along(p[0], g, 0);
      cell_of_atom_[static_cast<size_t>(i)] = c;
      ++cell_start_[c + 1];
    }
    for (size_t c = 0; c < cells; ++c) cell_start_[c + 1] += cell_start_[c];
    std::vector<long> fill(cell_start_.begin(), cell_start_.end() - 1);
    order->resize(static_cast<size_t>(n));
    for (long i = 0; i < n; ++i)
      (*order)[static_cast<size_t>(fill[cell_of_atom_[static_cast<size_t>(i)]]++)] = i;
  }

  double distance2(long i, long j) const {
    double r2 = 0;
    for (int d = 0; d < 3; ++d) {
      const double delta = x_[static_cast<size_t>(3 * i + d)] - x_[static_cast<size_t>(3 * j + d)];
      r2 += delta * delta;
    }
    return r2;
  }

  // Calls pair(dx, r2, term) for every listed neighbour of owned atom i within
  // the cutoff, dx = x_i - x_j, in list order.
  template <class Pair>
  void for_each_pair(long i, const LjParams& p, Pair&& pair) const {
    const double* xi = &x_[static_cast<size_t>(3 * i)];
    const long* row = &neighbors_[static_cast<size_t>(i) * static_cast<size_t>(width_)];
    for (long k = 0; k < neighbor_count_[static_cast<size_t>(i)]; ++k) {
      with_pair_in_cutoff(xi, &x_[static_cast<size_t>(3 * row[k])], p, pair);
    }
  }

  void require_current_lists() const {
    if (neighbors_built_ != static_cast<long>(x_.size()) / 3) {
      throw Error("MD: forces without a current build_neighbors");
    }
  }

  // Position of atom i shifted as send list `list` says, into out[0..2].
  void position_of(int list, long i, double* out) const {
    for (int d = 0; d < 3; ++d) out[d] = x_[static_cast<size_t>(3 * i + d)] + send_shift_[list][d];
  }

  // Makes room for at least `count` ghosts.
  void ghost_slots(long count) {
    if (x_.size() < static_cast<size_t>(3 * (owned_ + count)))
      x_.resize(static_cast<size_t>(3 * (owned_ + count)));
  }

  AtomRecord record(long i) const {
    AtomRecord a;
    for (int d = 0; d < 3; ++d) {
      a.x[d] = x_[static_cast<size_t>(3 * i + d)];
      a.v[d] = v_[static_cast<size_t>(3 * i + d)];
    }
    a.id = id_[static_cast<size_t>(i)];
    return a;
  }

  void move_atom(long from, long to) {
    if (from == to) return;
    for (int d = 0; d < 3; ++d) {
      x_[static_cast<size_t>(3 * to + d)] = x_[static_cast<size_t>(3 * from + d)];
      v_[static_cast<size_t>(3 * to + d)] = v_[static_cast<size_t>(3 * from + d)];
      f_[static_cast<size_t>(3 * to + d)] = f_[static_cast<size_t>(3 * from + d)];
    }
    id_[static_cast<size_t>(to)] = id_[static_cast<size_t>(from)];
  }

  void resize(long n) {
    x_.resize(static_cast<size_t>(3 * n));
    v_.resize(static_cast<size_t>(3 * n));
    f_.resize(static_cast<size_t>(3 * n));
    id_.resize(static_cast<size_t>(n));
  }

  long owned_ = 0;
  std::vector<double> x_;      // 3 per atom, owned then ghosts
  std::vector<double> v_, f_;  // 3 per owned atom (f_ may be longer: ignored)
  std::vector<std::int64_t> id_;
  // Link cells of the last binning, and the atoms in cell order.
  std::vector<long> cell_start_;
  std::vector<size_t> cell_of_atom_;
  std::vector<long> sorted_;
  // Neighbour lists in rows: owned atom i's are neighbors_[i * width_ + k],
  // k < neighbor_count_[i].
  std::vector<long> neighbor_count_, neighbors_;
  long width_ = 64;
  long neighbors_built_ = -1;    // atoms listed by the last build; -1: none since a change
  std::vector<double> built_x_;  // owned positions at the last build
  // Ghost plan: the 26 send lists (core/particles/ghost_lists.hpp), owned atoms each, and
  // what is added to the positions they send.
  std::vector<long> sends_[kGhostLists];
  double send_shift_[kGhostLists][3] = {};
  // Per ghost slot placed by copy_sends_to_ghosts: its owned atom and list.
  std::vector<long> image_root_;
  std::vector<int> image_list_;
};

}  // namespace

namespace detail {
std::unique_ptr<MdStore> make_host_md_store() { return std::make_unique<HostMdStore>(); }
}  // namespace detail

}  // namespace mpsfw::md
