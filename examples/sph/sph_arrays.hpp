#pragma once
// The SPH store on mpsfw's particle arrays, with only the example's own work
// written here, once, over the backend's primitives (Exec: HostExec or
// CudaExec): the two pair passes (for_each_row: each owned particle's row,
// reading the neighbour's fields, ghosts included), the move and the sums,
// each calling sph_physics.hpp. Pair sums are fixed point (FixedPoint): the
// same bits in any order, so the run is the same bits on any rank count.
#include <cmath>
#include <cstdint>
#include <utility>

#include "sph_store.hpp"
#include <mpsfw/core/particles/pair_shares.hpp>
#include <mpsfw/core/particles/particle_arrays.hpp>

namespace sph {

// x_i - x_j into dx; returns its squared length.
MPSFW_HD double separation(const double* xi, const double* xj, double dx[3]) {
  double r2 = 0;
  for (int d = 0; d < 3; ++d) {
    dx[d] = xi[d] - xj[d];
    r2 += dx[d] * dx[d];
  }
  return r2;
}

// |v_i|^2.
MPSFW_HD double speed2(const mpsfw::FieldView<double>& v, long i) {
  return v(i, 0) * v(i, 0) + v(i, 1) * v(i, 1) + v(i, 2) * v(i, 2);
}

template <class Exec>
class SphArrays final : public mpsfw::ParticleArrays<Exec, SphStore> {
  using Arrays = mpsfw::ParticleArrays<Exec, SphStore>;

 public:
  // The fields, declared once (indices in declaration order): the id, the
  // velocity and the density travel and are written; velocity and density
  // reach ghosts; the acceleration and the concentration gradient stay home,
  // rewritten after every move.
  static constexpr int kId = 0, kVelocity = 1, kDensity = 2, kAcceleration = 3, kGradC = 4;
  SphArrays()
      : Arrays({{"id", 1, mpsfw::FieldType::Integer, true, false, "ids", "id"},
                {"velocity", 3, mpsfw::FieldType::Real, true, true, "velocities", "velocity"},
                {"density", 1, mpsfw::FieldType::Real, true, true, "densities", "density"},
                {"acceleration", 3, mpsfw::FieldType::Real, false, false},
                {"grad_c", 3, mpsfw::FieldType::Real, false, false}}) {}

  // rho_i = m W(0) + sum over listed j of m W(r_ij).
  void compute_densities(const Physics& p) override {
    const mpsfw::FieldView<double> rho = this->real_view(kDensity);
    const mpsfw::FixedPoint fixed;
    this->for_each_row(MPSFW_LAMBDA(const mpsfw::PairRow& r) {
      std::int64_t sum = fixed.of(density_term(0, p));
      r.each([&](int, const double* xj) {
        double dx[3];
        const double r2 = separation(r.xi.c, xj, dx);
        if (r2 < 4 * p.h * p.h) sum += fixed.of(density_term(r2, p));
      });
      rho(r.i) = fixed.value(sum);
    });
  }

  // dv_i/dt and grad C_i from every listed j within 2h: its velocity and
  // density, owned or ghost.
  void compute_accelerations(const Physics& p) override {
    const mpsfw::FieldView<double> v = this->real_view(kVelocity);
    const mpsfw::FieldView<double> rho = this->real_view(kDensity);
    const mpsfw::FieldView<double> a = this->real_view(kAcceleration);
    const mpsfw::FieldView<double> grad_c = this->real_view(kGradC);
    const mpsfw::FixedPoint fixed;
    this->for_each_row(MPSFW_LAMBDA(const mpsfw::PairRow& r) {
      const int i = r.i;
      const double rho_i = rho(i), p_i = pressure(rho_i, p);
      const double vi[3] = {v(i, 0), v(i, 1), v(i, 2)};
      std::int64_t sum[3] = {0, 0, 0}, gradient[3] = {0, 0, 0};
      r.each([&](int j, const double* xj) {
        double dx[3], dv[3], term[3];
        const double r2 = separation(r.xi.c, xj, dx);
        if (!(r2 < 4 * p.h * p.h)) return;
        const double rho_j = rho(j);
        for (int d = 0; d < 3; ++d) dv[d] = vi[d] - v(j, d);
        if (acceleration_term(dx, r2, dv, rho_i, p_i, rho_j, pressure(rho_j, p), p, term)) {
          for (int d = 0; d < 3; ++d) sum[d] += fixed.of(term[d]);
        }
        if (concentration_gradient_term(dx, r2, rho_j, p, term)) {
          for (int d = 0; d < 3; ++d) gradient[d] += fixed.of(term[d]);
        }
      });
      for (int d = 0; d < 3; ++d) {
        a(i, d) = fixed.value(sum[d]);
        grad_c(i, d) = fixed.value(gradient[d]);
      }
    });
  }

  // v += dt a, then x += dt v (symplectic Euler), then the shift.
  void move(const Physics& p) override {
    const mpsfw::FieldView<double> v = this->real_view(kVelocity);
    const mpsfw::FieldView<double> a = this->real_view(kAcceleration);
    const mpsfw::FieldView<double> grad_c = this->real_view(kGradC);
    this->move_each(MPSFW_LAMBDA(long i, double* x) {
      double vi[3], g[3], dx[3];
      for (int d = 0; d < 3; ++d) {
        vi[d] = v(i, d) += p.dt * a(i, d);
        g[d] = grad_c(i, d);
      }
      shift(vi, g, p, dx);
      for (int d = 0; d < 3; ++d) x[d] += p.dt * vi[d] + dx[d];
    });
  }

  LocalSums sums(const Physics& p) override {
    const mpsfw::FieldView<double> v = this->real_view(kVelocity);
    const mpsfw::FieldView<double> rho = this->real_view(kDensity);
    const double* x = std::as_const(*this).positions();
    const long n = this->owned();
    LocalSums s;
    s.kinetic = this->exec().sum(
        n, MPSFW_LAMBDA(long i) { return 0.5 * speed2(v, i); });
    s.max_speed = std::sqrt(this->exec().max_of(
        n, MPSFW_LAMBDA(long i) {
          const double s2 = speed2(v, i);
          return s2 == s2 ? s2 : HUGE_VAL;  // NaN: reported as not finite
        }));
    s.density_error = this->exec().max_of(
        n, MPSFW_LAMBDA(long i) { return std::fabs(rho(i) - p.rho0) / p.rho0; });
    s.not_finite = this->exec().count(
        n, MPSFW_LAMBDA(long i) {
          const double r = x[4 * i] + x[4 * i + 1] + x[4 * i + 2] + speed2(v, i);
          return r - r == 0 ? 0L : 1L;  // inf - inf and NaN are NaN
        });
    return s;
  }
};

}  // namespace sph
