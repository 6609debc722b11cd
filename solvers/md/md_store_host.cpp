// The atoms of one rank in host memory, with OpenMP over owned atoms.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "md_store.hpp"

namespace mpsfw::md {
namespace {

class HostMdStore final : public MdStore {
 public:
  long owned() const override { return owned_; }
  long ghosts() const override { return static_cast<long>(x_.size()) / 3 - owned_; }

  void assign(const std::vector<AtomRecord>& atoms) override {
    x_.clear();
    v_.clear();
    id_.clear();
    owned_ = 0;
    add_owned(atoms);
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
    for (long k = 0; k < 3 * owned_; ++k) v_[static_cast<size_t>(k)] = kicked(v_[static_cast<size_t>(k)], f_[static_cast<size_t>(k)], half_dt, p);
  }

  void drift(double dt) override {
#pragma omp parallel for
    for (long k = 0; k < 3 * owned_; ++k) {
      x_[static_cast<size_t>(k)] = drifted(x_[static_cast<size_t>(k)], v_[static_cast<size_t>(k)], dt);
    }
  }

  void scale_velocities(double factor) override {
    for (long k = 0; k < 3 * owned_; ++k) v_[static_cast<size_t>(k)] *= factor;
  }

  void take_leaving(int dim, double lo, double hi, std::vector<AtomRecord>* to_low,
                    std::vector<AtomRecord>* to_high) override {
    clear_ghosts();
    long kept = 0;
    for (long i = 0; i < owned_; ++i) {
      const double c = x_[static_cast<size_t>(3 * i + dim)];
      if (c < lo || c >= hi) {
        (c < lo ? to_low : to_high)->push_back(record(i));
        continue;
      }
      move_atom(i, kept++);
    }
    owned_ = kept;
    resize(owned_);
  }

  void add_owned(const std::vector<AtomRecord>& atoms) override {
    clear_ghosts();
    for (const AtomRecord& a : atoms) {
      x_.insert(x_.end(), a.x, a.x + 3);
      v_.insert(v_.end(), a.v, a.v + 3);
      id_.push_back(a.id);
    }
    owned_ += static_cast<long>(atoms.size());
    f_.resize(x_.size(), 0.0);
  }

  void select_ghosts(int dim, double low_edge, double high_edge, std::vector<GhostRecord>* to_low,
                     std::vector<GhostRecord>* to_high) const override {
    const long n = static_cast<long>(x_.size()) / 3;
    for (long i = 0; i < n; ++i) {
      const double* p = &x_[static_cast<size_t>(3 * i)];
      if (p[dim] < low_edge) to_low->push_back({{p[0], p[1], p[2]}});
      if (p[dim] >= high_edge) to_high->push_back({{p[0], p[1], p[2]}});
    }
  }

  void add_ghosts(const std::vector<GhostRecord>& ghosts) override {
    for (const GhostRecord& g : ghosts) x_.insert(x_.end(), g.x, g.x + 3);
  }

  void clear_ghosts() override {
    x_.resize(static_cast<size_t>(3 * owned_));
    sorted_.clear();  // the cells no longer describe the atoms
  }

  void build_cells(const CellGrid& grid) override {
    grid_ = grid;
    bin(grid);
  }

  ForceSums compute_forces(const LjParams& p) override {
    if (sorted_.size() != x_.size() / 3) throw Error("MD: compute_forces without a current build_cells");
    const CellGrid& grid = grid_;
    double potential = 0, virial = 0;
    const int* n = grid.count;
    // F_i = sum over j within r_c of f_over_r(r_ij) (x_i - x_j); each pair's
    // energy and virial are split half to each atom, so sums over owned atoms
    // count every pair once even across ranks.
#pragma omp parallel for reduction(+ : potential, virial) schedule(static)
    for (long i = 0; i < owned_; ++i) {
      const double* xi = &x_[static_cast<size_t>(3 * i)];
      int c[3];
      for (int d = 0; d < 3; ++d) c[d] = cell_of(xi[d], grid, d);
      double f[3] = {0, 0, 0}, e = 0, w = 0;
      for (int cz = std::max(c[2] - 1, 0); cz <= std::min(c[2] + 1, n[2] - 1); ++cz) {
        for (int cy = std::max(c[1] - 1, 0); cy <= std::min(c[1] + 1, n[1] - 1); ++cy) {
          for (int cx = std::max(c[0] - 1, 0); cx <= std::min(c[0] + 1, n[0] - 1); ++cx) {
            const size_t cell = (static_cast<size_t>(cz) * n[1] + cy) * n[0] + cx;
            for (int s = cell_start_[cell]; s < cell_start_[cell + 1]; ++s) {
              const long j = sorted_[static_cast<size_t>(s)];
              if (j == i) continue;
              const double* xj = &x_[static_cast<size_t>(3 * j)];
              const double dx = xi[0] - xj[0], dy = xi[1] - xj[1], dz = xi[2] - xj[2];
              const double r2 = dx * dx + dy * dy + dz * dz;
              const PairTerm t = lj_pair(r2, p);
              f[0] += t.f_over_r * dx;
              f[1] += t.f_over_r * dy;
              f[2] += t.f_over_r * dz;
              e += 0.5 * t.energy;
              w += 0.5 * t.f_over_r * r2;
            }
          }
        }
      }
      for (int d = 0; d < 3; ++d) f_[static_cast<size_t>(3 * i + d)] = f[d];
      potential += e;
      virial += w;
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
  static int cell_of(double x, const CellGrid& g, int d) {
    const int c = static_cast<int>(std::floor((x - g.origin[d]) / g.width[d]));
    return std::min(std::max(c, 0), g.count[d] - 1);
  }

  // Counting sort of all atoms by link cell: sorted_ lists atom indices cell
  // by cell, cell_start_[c] .. cell_start_[c + 1] being cell c's range.
  void bin(const CellGrid& g) {
    const size_t cells = static_cast<size_t>(g.count[0]) * g.count[1] * g.count[2];
    const long n = static_cast<long>(x_.size()) / 3;
    cell_start_.assign(cells + 1, 0);
    cell_of_atom_.resize(static_cast<size_t>(n));
    for (long i = 0; i < n; ++i) {
      const double* p = &x_[static_cast<size_t>(3 * i)];
      const size_t c = (static_cast<size_t>(cell_of(p[2], g, 2)) * g.count[1] + cell_of(p[1], g, 1)) *
                           g.count[0] + cell_of(p[0], g, 0);
      cell_of_atom_[static_cast<size_t>(i)] = c;
      ++cell_start_[c + 1];
    }
    for (size_t c = 0; c < cells; ++c) cell_start_[c + 1] += cell_start_[c];
    std::vector<int> fill(cell_start_.begin(), cell_start_.end() - 1);
    sorted_.resize(static_cast<size_t>(n));
    for (long i = 0; i < n; ++i) sorted_[static_cast<size_t>(fill[cell_of_atom_[static_cast<size_t>(i)]]++)] = i;
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
  CellGrid grid_{};
  std::vector<double> x_;  // 3 per atom, owned then ghosts
  std::vector<double> v_, f_;  // 3 per owned atom (f_ may be longer: ignored)
  std::vector<std::int64_t> id_;
  std::vector<int> cell_start_;
  std::vector<size_t> cell_of_atom_;
  std::vector<long> sorted_;
};

}  // namespace

namespace detail {
std::unique_ptr<MdStore> make_host_md_store() { return std::make_unique<HostMdStore>(); }

#if !MPSFW_HAVE_CUDA
std::unique_ptr<MdStore> make_cuda_md_store() {
  throw Error("this build has no CUDA backend (configure with MPSFW_ENABLE_CUDA=ON)");
}
#endif
}  // namespace detail

std::unique_ptr<MdStore> make_md_store(Backend backend) {
  return backend == Backend::Cuda ? detail::make_cuda_md_store() : detail::make_host_md_store();
}

}  // namespace mpsfw::md
