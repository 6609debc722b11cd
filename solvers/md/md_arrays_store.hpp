#pragma once
// MD's store on the particle layer's arrays (core/particles/particle_arrays.hpp):
// the atoms' velocities, forces and ids as named fields, migration, ghosts,
// cells and neighbour lists from the layer, and here only MD's own work over
// them — Verlet kick and drift, the thermostat's scaling, forces and sums from
// md_physics.hpp under the pair style `Style` (pair_style.hpp) — written once
// over the backend's primitives (Exec).
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "md_store.hpp"
#include <mpsfw/core/particles/particle_arrays.hpp>

namespace mpsfw::md {

template <class Exec, class Style>
class MdArraysStore final : public ParticleArrays<Exec, MdStore> {
  using Arrays = ParticleArrays<Exec, MdStore>;

 public:
  // The declaration's field indices (atom_record.hpp).
  static constexpr int kV = kVelocityField, kF = kForceField, kId = kIdField;

  explicit MdArraysStore(const Style& style) : Arrays(atom_field_specs()), style_(style) {}

  void assign(const std::vector<AtomRecord>& atoms) override {
    pending_.due = false;  // the atoms it was for are gone
    this->assign_records(records_of(atoms));
  }
  std::vector<AtomRecord> download() const override {
    settle();
    return atoms_of(this->download_records());
  }
  std::vector<double> download_forces() const override {
    const long n = this->owned(), cap = this->capacity();
    std::vector<double> f(static_cast<size_t>(3 * cap > 0 ? 3 * cap : 0)), out;
    memory::copy(f.data(), Backend::Host, this->real(kF), Arrays::kSpace,
                 f.size() * sizeof(double));
    out.resize(static_cast<size_t>(3 * n));
    for (long i = 0; i < n; ++i) {
      for (int d = 0; d < 3; ++d)
        out[static_cast<size_t>(3 * i + d)] = f[static_cast<size_t>(d * cap + i)];
    }
    return out;
  }

  // The kick that ends a step waits for the next kick_drift, which applies
  // it in its own pass, first and with the same arithmetic (the same bits):
  // one launch a step less. Whatever reads, moves or changes the velocities
  // before then applies it first (settle).
  void kick(double half_dt, double mass) override {
    settle();
    pending_ = {true, half_dt, mass};
  }
  void kick_drift(double half_dt, double dt, double mass) override {
    double* v = this->real(kV);
    const double* f = this->real(kF);
    const long cap = this->capacity();
    const PendingKick before = pending_;
    pending_.due = false;
    // Nothing reads the ghosts from here to the step's pushes.
    this->move_each_ending_ghost_reads(MPSFW_LAMBDA(long i, double* x) {
      for (int d = 0; d < 3; ++d) {
        double vi = v[d * cap + i];
        if (before.due) vi = kicked(vi, f[d * cap + i], before.half_dt, before.mass);
        vi = kicked(vi, f[d * cap + i], half_dt, mass);
        v[d * cap + i] = vi;
        x[d] = drifted(x[d], vi, dt);
      }
    });
  }
  void scale_velocities(double factor) override {
    settle();
    double* v = this->real(kV);
    const long cap = this->capacity();
    this->exec().for_each(
        this->owned(), MPSFW_LAMBDA(long i) {
          for (int d = 0; d < 3; ++d) v[d * cap + i] *= factor;
        });
  }

  void take_leaving_atoms(const double lo[3], const double hi[3],
                          std::vector<AtomRecord>* leaving) override {
    settle();  // atoms move, their forces do not (they do not travel)
    ParticleRecords records(this->record_layout());
    Arrays::take_leaving(lo, hi, &records);
    const auto* first = static_cast<const AtomRecord*>(records.data());
    leaving->insert(leaving->end(), first, first + records.size());
  }
  void add_owned_atoms(const std::vector<AtomRecord>& atoms) override {
    settle();
    Arrays::add_owned(records_of(atoms));
  }
  void sort_by_cell(const CellGrid& grid) override {
    settle();
    Arrays::sort_by_cell(grid);
  }

  // F_i = sum over listed j within r_c of f_over_r(r_ij) (x_i - x_j).
  void compute_forces() override {
    const Style p = style_;
    this->sum_pairs_into(
        kF, MPSFW_LAMBDA(const double* xi, const double* xj, double* fi) {
          with_pair_in_cutoff(xi, xj, p, [&](const double* dx, double, const PairTerm& t) {
            for (int d = 0; d < 3; ++d) fi[d] += t.f_over_r * dx[d];
          });
        });
  }

  // Each pair's energy and virial are split half to each atom, so sums over
  // owned atoms count every pair once even across ranks.
  ForceSums pair_sums() const override {
    const Style p = style_;
    ForceSums sums;
    sums.potential = this->pair_sum(MPSFW_LAMBDA(const double* xi, const double* xj) {
      double e = 0;
      with_pair_in_cutoff(xi, xj, p,
                          [&](const double*, double, const PairTerm& t) { e = 0.5 * t.energy; });
      return e;
    });
    sums.virial = this->pair_sum(MPSFW_LAMBDA(const double* xi, const double* xj) {
      double w = 0;
      with_pair_in_cutoff(xi, xj, p, [&](const double*, double r2, const PairTerm& t) {
        w = 0.5 * t.f_over_r * r2;
      });
      return w;
    });
    return sums;
  }

  MotionSums motion(double mass) const override {
    settle();
    const double* v = this->real(kV);
    const long cap = this->capacity();
    MotionSums m;
    m.kinetic = this->exec().sum(
        this->owned(),
        MPSFW_LAMBDA(long i) { return kinetic_energy(v[i], v[cap + i], v[2 * cap + i], mass); });
    for (int d = 0; d < 3; ++d) {
      m.momentum[d] = this->exec().sum(
          this->owned(), MPSFW_LAMBDA(long i) { return mass * v[d * cap + i]; });
    }
    return m;
  }

  struct PendingKick {
    bool due = false;
    double half_dt = 0;
    double mass = 1;
  };
  // The deferred kick, applied now (logically const: the velocities are
  // already what it makes them). Public, with PendingKick, only because nvcc's
  // device lambdas may neither be in a private member function nor capture a
  // private type.
  void settle() const {
    if (!pending_.due) return;
    const PendingKick k = pending_;
    pending_.due = false;
    double* v = const_cast<double*>(this->real(kV));
    const double* f = this->real(kF);
    const long cap = this->capacity();
    this->exec().for_each(
        this->owned(), MPSFW_LAMBDA(long i) {
          for (int d = 0; d < 3; ++d)
            v[d * cap + i] = kicked(v[d * cap + i], f[d * cap + i], k.half_dt, k.mass);
        });
  }

 private:
  Style style_;
  mutable PendingKick pending_;
};

// The store for the style `pair` holds, on the backend of Exec.
template <class Exec>
std::unique_ptr<MdStore> make_arrays_store(const PairStyle& pair) {
  return std::visit(
      [](const auto& style) -> std::unique_ptr<MdStore> {
        return std::make_unique<MdArraysStore<Exec, std::decay_t<decltype(style)>>>(style);
      },
      pair);
}

}  // namespace mpsfw::md
