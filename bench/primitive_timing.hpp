#pragma once
// The particle layer's primitives of one backend (an Exec of
// core/particles), each call waited for, and what a launch of one particle
// costs the host: md_rebuild_ops times CudaExec's, and KokkosExec's through
// md_rebuild_ops_kokkos.cpp. Included by sources compiled for that backend.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_support.hpp"
#include <mpsfw/core/base/hd.hpp>
#include <mpsfw/core/device/memory.hpp>

namespace mpsfw::bench {

// Seconds of each named operation, one entry a round.
using OperationSeconds = std::map<std::string, std::vector<double>>;

inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

inline void print_medians(const std::string& title, const OperationSeconds& seconds) {
  std::printf("%s, medians in microseconds\n", title.c_str());
  for (const auto& [op, s] : seconds)
    std::printf("  %-40s %10.1f\n", op.c_str(), 1e6 * median_of(s));
  std::fflush(stdout);
}

// Drops each operation's first `warm_up` rounds.
inline void drop_warm_up(OperationSeconds& seconds, int warm_up) {
  for (auto& [op, s] : seconds) s.erase(s.begin(), s.begin() + std::min<long>(warm_up, s.size()));
}

// Adds the seconds `work` takes to seconds[op], from an idle device to an
// idle device (`wait` waits for the device's work).
template <class Wait, class Work>
void time_waited(const Wait& wait, const std::string& op, const Work& work,
                 OperationSeconds& seconds) {
  wait();
  const auto t0 = std::chrono::steady_clock::now();
  work();
  wait();
  seconds[op].push_back(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

// kBackToBack for_each calls of one particle with `body`, then one wait:
// per call, the host's time launching and the time until done.
constexpr int kBackToBack = 200;
template <class Exec, class F>
void time_back_to_back(const Exec& exec, const std::string& name, const F& body,
                       OperationSeconds& seconds) {
  exec.synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < kBackToBack; ++k) exec.for_each(1, body);
  const auto t1 = std::chrono::steady_clock::now();
  exec.synchronize();
  const auto t2 = std::chrono::steady_clock::now();
  seconds[name + ", launching"].push_back(std::chrono::duration<double>(t1 - t0).count() /
                                          kBackToBack);
  seconds[name + ", until done"].push_back(std::chrono::duration<double>(t2 - t0).count() /
                                           kBackToBack);
}

// Exec's calls at n particles (sort_by_key over `keys` keys), each waited
// for, `rounds` rounds after two of warm-up; then for_each of one particle
// back to back (an MPSFW_LAMBDA capturing seven values). Prints the medians
// under `name`.
template <class Exec>
void time_primitives(const Exec& exec, const std::string& name, long n, int keys, int rounds) {
  constexpr Backend space = Exec::kSpace;
  Array<double> x(space, static_cast<size_t>(4 * n));
  fill_test_pattern(x);
  Array<int> key(space, static_cast<size_t>(n));
  Array<long> order(space, static_cast<size_t>(n)), out(space, static_cast<size_t>(n));
  Array<long> start(space, static_cast<size_t>(keys) + 1);
  double* xp = x.data();
  int* kp = key.data();
  long* op = out.data();
  const int k = keys;
  const double a = 1, b = 0, c = 0, d = 0, e = 0, f = 0;
  const auto touch = MPSFW_LAMBDA(long i) { xp[4 * i + 3] = 0; };
  const auto key_of = MPSFW_LAMBDA(long i) { return static_cast<int>((i * 7919) % k); };
  const auto below = MPSFW_LAMBDA(long i) { return xp[4 * i] < 0.5 ? 1L : 0L; };
  const auto value = MPSFW_LAMBDA(long i) { return xp[4 * i + 1]; };
  const auto odd = MPSFW_LAMBDA(long i) { return i & 1; };
  const auto store = MPSFW_LAMBDA(long i, long before) { op[i] = before; };
  const auto scale = MPSFW_LAMBDA(long i) { xp[4 * i] = xp[4 * i] * a + b + c + d + e + f; };
  OperationSeconds seconds, launches;
  const auto timed_call = [&](const std::string& op_name, const std::function<void()>& work) {
    time_waited([&] { exec.synchronize(); }, op_name, work, seconds);
  };
  const std::string at_n = " (" + std::to_string(n) + ")";
  for (int r = 0; r < rounds + 2; ++r) {
    timed_call("for_each" + at_n, [&] { exec.for_each(n, touch); });
    timed_call("count" + at_n, [&] { (void)exec.count(n, below); });
    timed_call("sum" + at_n, [&] { (void)exec.sum(n, value); });
    timed_call("max_of" + at_n, [&] { (void)exec.max_of(n, value); });
    timed_call("scan" + at_n, [&] { exec.scan(n, odd, store); });
    timed_call("sort_by_key" + at_n + ", " + std::to_string(keys) + " keys",
               [&] { exec.sort_by_key(n, keys, key_of, kp, order.data(), start.data()); });
    timed_call("copy 8 bytes to the host", [&] {
      long v = 0;
      memory::copy(&v, Backend::Host, op, space, sizeof v);
    });
    time_back_to_back(exec, "MPSFW_LAMBDA", scale, launches);
  }
  drop_warm_up(seconds, 2);
  drop_warm_up(launches, 2);
  print_medians(name + "'s primitives alone", seconds);
  print_medians(name + ": for_each of one particle, " + std::to_string(kBackToBack) +
                    " back to back, per call",
                launches);
}

}  // namespace mpsfw::bench
