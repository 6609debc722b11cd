#pragma once
// The Brownian store on mpsfw's particle arrays (ParticleArrays: fields,
// migration hooks, ghosts, cells, lists), with only the example's own work
// written here, once, over the backend's primitives (Exec: HostExec or
// CudaExec): the force loop, the move and the sums, each a for_each over
// owned particles calling brownian_physics.hpp.
#include <cmath>

#include "brownian_store.hpp"
#include <mpsfw/core/particles/particle_arrays.hpp>

namespace brownian {

template <class Exec>
class BrownianArrays final : public mpsfw::ParticleArrays<Exec, BrownianStore> {
  using Arrays = mpsfw::ParticleArrays<Exec, BrownianStore>;

 public:
  // The fields, declared once (indices in declaration order): the id travels
  // and is written; the force stays home.
  static constexpr int kId = 0, kF = 1;

  BrownianArrays()
      : Arrays({{"id", 1, mpsfw::FieldType::Integer, true, false, "ids", "id"},
                {"f", 3, mpsfw::FieldType::Real, false}}) {}

  // F_i = sum over listed j within sigma of f_over_r(r_ij) (x_i - x_j), in list order.
  void compute_forces(const Physics& p) override {
    this->sum_pairs_into(
        kF, MPSFW_LAMBDA(const double* xi, const double* xj, double* fi) {
          with_pair_in_range(xi, xj, p, [&](const double* dx, const PairTerm& t) {
            for (int d = 0; d < 3; ++d) fi[d] += t.f_over_r * dx[d];
          });
        });
  }

  // x_i += dt / gamma F_i + sqrt(2 kT dt / gamma) xi(seed, id_i, step, d).
  void move(const Physics& p, long step) override {
    const double* f = this->real(kF);
    const std::int64_t* id = this->integer(kId);
    const long cap = this->capacity();
    this->move_each(MPSFW_LAMBDA(long i, double* x) {
      for (int d = 0; d < 3; ++d) {
        const double xi = gaussian(p.seed, id[i], step, d);
        x[d] = moved(x[d], f[d * cap + i], xi, p);
      }
    });
  }

  // Each pair's energy half to each particle: sums over owned particles count
  // every pair once, across ranks too.
  LocalSums sums(const Physics& p) const override {
    const double* x = this->positions();
    const double* f = this->real(kF);
    const long cap = this->capacity();
    LocalSums s;
    s.potential = this->pair_sum(MPSFW_LAMBDA(const double* xi, const double* xj) {
      double e = 0;
      with_pair_in_range(xi, xj, p, [&](const double*, const PairTerm& t) { e = 0.5 * t.energy; });
      return e;
    });
    s.max_force = std::sqrt(this->exec().max_of(
        this->owned(), MPSFW_LAMBDA(long i) {
          double f2 = 0;
          for (int d = 0; d < 3; ++d) f2 += f[d * cap + i] * f[d * cap + i];
          return f2 != f2 ? HUGE_VAL : f2;  // NaN: reported as not finite
        }));
    s.not_finite = this->exec().count(
        this->owned(), MPSFW_LAMBDA(long i) {
          const double r = x[4 * i] + x[4 * i + 1] + x[4 * i + 2];
          return r - r == 0 ? 0L : 1L;  // inf - inf and NaN are NaN
        });
    return s;
  }
};

}  // namespace brownian
