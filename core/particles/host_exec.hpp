#pragma once
// The host backend of the particle layer's primitives (particle_arrays.hpp
// says what each must do): OpenMP over particles, sequential where the order
// of the result matters.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "neighbour_rows.hpp"
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/comm/step_handshake.hpp>
#include <mpsfw/core/mesh/box.hpp>

namespace mpsfw {

class HostExec {
 public:
  static constexpr Backend kSpace = Backend::Host;
  static constexpr bool kRowsTransposed = false;  // a thread walks its own rows
  static constexpr bool kFusedMax = true;         // max_later (particle_arrays.hpp)
  static constexpr bool kMaxLaterWaits = false;   // no handshake in max_later

  template <class F>
  void for_each(long n, const F& f) const {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) f(i);
  }

  // f(j, k) for every row j of every plane k of a box: the grid loops' nest
  // (a row's cells then run in order, vectorised, with no index arithmetic).
  template <class F>
  void for_each_row(const Box& box, const F& f) const {
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = box.lo.z; k < box.hi.z; ++k) {
      for (int j = box.lo.y; j < box.hi.y; ++j) f(j, k);
    }
  }

  // for_each for bodies that walk neighbour lists (a GPU launches them in
  // blocks of their own size).
  template <class F>
  void for_each_walk(long n, const F& f) const {
    for_each(n, f);
  }

  // No handshake on the device here: declined, the caller runs it apart.
  template <class F>
  bool for_each_then(long n, const F& f, const StepHandshake& h) const {
    if (!h.empty()) return false;
    for_each(n, f);
    return true;
  }

  template <class F>
  long count(long n, const F& f) const {
    long total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
    for (long i = 0; i < n; ++i) total += f(i);
    return total;
  }

  template <class F>
  double max_of(long n, const F& f) const {
    double worst = 0;
#pragma omp parallel for schedule(static) reduction(max : worst)
    for (long i = 0; i < n; ++i) worst = std::max(worst, f(i));
    return worst;
  }

  // max_of, its result kept for later_max.
  template <class F>
  void max_later(long n, const F& f) const {
    later_ = max_of(n, f);
  }
  double later_max() const { return later_; }

  // In index order (one thread: the same bits whatever the thread count).
  template <class F>
  double sum(long n, const F& f) const {
    double total = 0;
    for (long i = 0; i < n; ++i) total += f(i);
    return total;
  }

  template <class F, class Use>
  void scan(long n, const F& f, const Use& use) const {
    long before = 0;
    for (long i = 0; i < n; ++i) {
      const long v = f(i);
      use(i, before);
      before += v;
    }
  }

  // A stable counting sort: keys in [0, keys).
  template <class KeyOf>
  void sort_by_key(long n, int keys, const KeyOf& key_of, int* key, long* order,
                   long* start) const {
    for (long i = 0; i < n; ++i) key[i] = key_of(i);
    std::fill(start, start + keys + 1, 0L);
    for (long i = 0; i < n; ++i) ++start[key[i] + 1];
    for (int k = 0; k < keys; ++k) start[k + 1] += start[k];
    fill_.assign(start, start + keys);
    for (long i = 0; i < n; ++i) order[fill_[static_cast<size_t>(key[i])]++] = i;
  }

  // A thread a particle (neighbour_rows.hpp).
  long list_neighbours(const NeighbourBuild& b) const { return list_each_particle(*this, b); }

  void synchronize() const {}

 private:
  mutable std::vector<long> fill_;
  mutable double later_ = 0;
};

}  // namespace mpsfw
