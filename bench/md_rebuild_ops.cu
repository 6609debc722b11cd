// The operations of MD's step and rebuild, each timed on its own, for MD's
// stores of the backends named (`cuda`, the default, and `host`), in one
// process, the stores taking turns: which operation costs what, without a
// profiler. One rank, in.lj (fcc rho 0.8442, T 1.44, cutoff 2.5, skin 0.3,
// dt 0.005).
// Each round drifts every store's atoms the same few steps (forces, kick,
// drift), then times, waiting for the device after each: migrate, sort by
// cell, ghost exchange (and, apart, its two parts: selecting the send lists
// and, one rank being every list's receiver, copying them into ghost slots),
// list build, forces, and a step's kick-drift with the displacement check.
// Prints each operation's median over the rounds. Then the particle layer's
// CUDA primitives alone at the same sizes, each call waited for: what a call
// costs beside its bytes.
//   md_rebuild_ops [--cells N (40)] [--rounds R (20)] [--stores "cuda kokkos host"]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_support.hpp"
#include "core/decomposition.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/particles/cuda_exec.cuh"
#include "core/particles/ghost_lists.hpp"
#include "core/particles/particle_exchange.hpp"
#include "core/particles/subdomain.hpp"
#include "solvers/md/md_config.hpp"
#include "solvers/md/md_initial.hpp"
#include "solvers/md/md_store.hpp"

namespace {

using namespace mpsfw;
using namespace mpsfw::md;

std::unique_ptr<MdStore> store_named(const std::string& name) {
  return make_md_store(parse_backend(name));
}

// One store and its exchange, and what each operation took, per round.
struct Subject {
  std::string name;
  std::unique_ptr<MdStore> store;
  std::unique_ptr<ParticleExchange> exchange;
  std::map<std::string, std::vector<double>> seconds;
};

template <class Work>
void timed(Subject& s, const char* op, const Work& work) {
  s.store->synchronize();
  const auto start = std::chrono::steady_clock::now();
  work();
  s.store->synchronize();
  s.seconds[op].push_back(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// The bands of the only rank: every list wraps.
GhostBands one_rank_bands(const Subdomain& domain, double reach) {
  GhostBands b{};
  for (int d = 0; d < 3; ++d) {
    b.low[d] = domain.lo[d] + reach;
    b.high[d] = domain.hi[d] - reach;
  }
  for (int list = 0; list < kGhostLists; ++list) {
    for (int d = 0; d < 3; ++d) b.shift[list][d] = -list_offset(list, d) * domain.box[d];
  }
  return b;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void time_primitives(long n, int keys, int rounds);
void time_launches(const CudaExec& exec, double* x, int rounds);

void time_stores(const std::string& stores, const MdConfig& config,
                 const CartDecomposition& decomposition, const Subdomain& domain,
                 const std::vector<AtomRecord>& atoms, double reach, double half_dt, int rounds);

int run(int argc, char** argv) {
  int cells = 40, rounds = 20;
  std::string stores = "cuda";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--cells") {
      cells = std::atoi(value.c_str());
    } else if (key == "--rounds") {
      rounds = std::atoi(value.c_str());
    } else if (key == "--stores") {
      stores = value;
    } else {
      throw Error("md_rebuild_ops: unknown option " + key);
    }
  }
  // A Kokkos store needs Kokkos started, on the same GPU as the CUDA ones.
  const bool kokkos = (" " + stores + " ").find(" kokkos ") != std::string::npos;
  const DeviceBinding device =
      bind_device(kokkos ? Backend::Kokkos : Backend::Cuda, 0, 1, CudaGate::without_mps());
  const MdConfig config = md_config_from(md_params_from_overrides(
      {"md.cells_x=" + std::to_string(cells), "md.cells_y=" + std::to_string(cells),
       "md.cells_z=" + std::to_string(cells)}));
  const CartDecomposition decomposition(MPI_COMM_WORLD, link_cells(config), config.rank_grid_hint,
                                        {true, true, true});
  const Subdomain domain = subdomain_of(decomposition, config.box);
  const std::vector<AtomRecord> atoms = fcc_atoms(config, domain, MPI_COMM_WORLD);
  const double reach = ghost_width(config), half_dt = 0.5 * config.dt;
  time_stores(stores, config, decomposition, domain, atoms, reach, half_dt, rounds);
  const long n = static_cast<long>(atoms.size());
  const CellGrid grid = ParticleExchange(decomposition, domain, reach).cell_grid();
  time_primitives(n, grid.count[0] * grid.count[1] * grid.count[2], rounds);
  release_device(device);  // after the stores freed their memory
  return 0;
}

void time_stores(const std::string& stores, const MdConfig& config,
                 const CartDecomposition& decomposition, const Subdomain& domain,
                 const std::vector<AtomRecord>& atoms, double reach, double half_dt, int rounds) {
  std::vector<Subject> subjects;
  std::istringstream names(stores);
  for (std::string name; names >> name;) {
    Subject s{name,
              store_named(name),
              std::make_unique<ParticleExchange>(decomposition, domain, reach),
              {}};
    s.store->assign(atoms);
    s.exchange->migrate(*s.store);
    s.store->sort_by_cell(s.exchange->cell_grid());
    s.exchange->exchange_ghosts(*s.store);
    s.store->build_neighbors(s.exchange->cell_grid(), reach);
    s.store->compute_forces(config.lj);
    subjects.push_back(std::move(s));
  }
  const CellGrid grid = subjects.front().exchange->cell_grid();
  const GhostBands bands = one_rank_bands(domain, reach);
  long counts[kGhostLists] = {};
  for (int r = 0; r < rounds; ++r) {
    for (Subject& s : subjects) {  // the stores take turns: drift hits them alike
      MdStore& store = *s.store;
      for (int step = 0; step < 8; ++step) {  // atoms move, some leave the box
        store.kick_drift(half_dt, config.dt, config.lj);
        s.exchange->update_ghosts(store);
        store.compute_forces(config.lj);
        store.kick(half_dt, config.lj);
      }
      timed(s, "kick-drift + check", [&] {
        store.kick_drift(half_dt, config.dt, config.lj);
        (void)store.max_displacement();
      });
      timed(s, "migrate", [&] { s.exchange->migrate(store); });
      timed(s, "sort by cell", [&] { store.sort_by_cell(grid); });
      timed(s, "ghost: select", [&] {
        store.clear_ghosts();
        store.select_sends(bands, counts);
      });
      timed(s, "ghost: own images", [&] {
        long first[kGhostLists], total = 0;
        for (int list = 0; list < kGhostLists; ++list) {
          first[list] = total;
          total += counts[list];
        }
        store.reserve_ghosts(total);
        store.copy_sends_to_ghosts((std::uint32_t{1} << kGhostLists) - 1, first);
      });
      timed(s, "ghost exchange", [&] { s.exchange->exchange_ghosts(store); });
      timed(s, "list build", [&] { store.build_neighbors(grid, reach); });
      timed(s, "forces", [&] { store.compute_forces(config.lj); });
      timed(s, "ghost update", [&] { s.exchange->update_ghosts(store); });
      store.kick(half_dt, config.lj);
    }
  }
  if (decomposition.rank() == 0) {
    std::printf("md_rebuild_ops: %ld atoms, %d rounds, medians in microseconds\n",
                static_cast<long>(atoms.size()), rounds);
    std::printf("%-20s", "operation");
    for (const Subject& s : subjects) std::printf(" %10s", s.name.c_str());
    std::printf("\n");
    for (const auto& [op, unused] : subjects.front().seconds) {
      std::printf("%-20s", op.c_str());
      for (Subject& s : subjects) std::printf(" %10.1f", 1e6 * median(s.seconds[op]));
      std::printf("\n");
    }
    std::fflush(stdout);  // an abort later would lose it
  }
}

void print_medians(const std::string& title, std::map<std::string, std::vector<double>>& seconds) {
  std::printf("%s, medians in microseconds\n", title.c_str());
  for (auto& [op, s] : seconds) std::printf("  %-28s %10.1f\n", op.c_str(), 1e6 * median(s));
  std::fflush(stdout);
}

// CudaExec's calls alone, each waited for.
void time_primitives(long n, int keys, int rounds) {
  CudaExec exec;
  Array<double> x(Backend::Cuda, static_cast<size_t>(4 * n));
  bench::fill_test_pattern(x);
  Array<int> key(Backend::Cuda, static_cast<size_t>(n));
  Array<long> order(Backend::Cuda, static_cast<size_t>(n)),
      out(Backend::Cuda, static_cast<size_t>(n));
  Array<long> start(Backend::Cuda, static_cast<size_t>(keys) + 1);
  double* xp = x.data();
  int* kp = key.data();
  long* op = out.data();
  const int k = keys;
  const auto touch = MPSFW_LAMBDA(long i) { xp[4 * i + 3] = 0; };
  const auto make_keys = MPSFW_LAMBDA(long i) { kp[i] = static_cast<int>((i * 7919) % k); };
  const auto below = MPSFW_LAMBDA(long i) { return xp[4 * i] < 0.5 ? 1L : 0L; };
  const auto value = MPSFW_LAMBDA(long i) { return xp[4 * i + 1]; };
  const auto odd = MPSFW_LAMBDA(long i) { return i & 1; };
  const auto store = MPSFW_LAMBDA(long i, long before) { op[i] = before; };
  exec.for_each(n, make_keys);
  std::map<std::string, std::vector<double>> seconds;
  const auto timed_call = [&](const std::string& name, const std::function<void()>& work) {
    exec.synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    work();
    exec.synchronize();
    seconds[name].push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  const std::string at_n = " (" + std::to_string(n) + ")";
  for (int r = 0; r < rounds + 2; ++r) {
    timed_call("for_each" + at_n, [&] { exec.for_each(n, touch); });
    timed_call("count" + at_n, [&] { (void)exec.count(n, below); });
    timed_call("sum" + at_n, [&] { (void)exec.sum(n, value); });
    timed_call("max_of" + at_n, [&] { (void)exec.max_of(n, value); });
    timed_call("scan" + at_n, [&] { exec.scan(n, odd, store); });
    timed_call("sort_by_key" + at_n + ", " + std::to_string(keys) + " keys",
               [&] { exec.sort_by_key(kp, n, keys, order.data(), start.data()); });
    timed_call("copy 8 bytes to the host", [&] {
      long v = 0;
      memory::copy(&v, Backend::Host, op, Backend::Cuda, sizeof v);
    });
  }
  for (auto& [name, s] : seconds) s.erase(s.begin(), s.begin() + 2);  // warm-up
  print_medians("CudaExec's primitives alone", seconds);
  time_launches(exec, xp, rounds);
}

// What a launch costs the host: kLaunches for_each calls of one particle
// back to back, then one wait, per call; the body as MPSFW_LAMBDA (a
// __host__ __device__ lambda, which nvcc wraps in a heap-allocated holder
// copied with each copy of it), as a __device__ lambda, and as a plain
// functor, each capturing the same seven values.
struct Scale {
  double* x;
  double a, b, c, d, e, f;
  __device__ void operator()(long i) const { x[4 * i] = x[4 * i] * a + b + c + d + e + f; }
};
void time_launches(const CudaExec& exec, double* x, int rounds) {
  constexpr int kLaunches = 200;
  const double a = 1, b = 0, c = 0, d = 0, e = 0, f = 0;
  std::map<std::string, std::vector<double>> seconds;
  const auto per_launch = [&](const std::string& name, const std::function<void()>& launch) {
    exec.synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < kLaunches; ++k) launch();
    const auto t1 = std::chrono::steady_clock::now();
    exec.synchronize();
    const auto t2 = std::chrono::steady_clock::now();
    seconds[name + ", launching"].push_back(std::chrono::duration<double>(t1 - t0).count() /
                                            kLaunches);
    seconds[name + ", until done"].push_back(std::chrono::duration<double>(t2 - t0).count() /
                                             kLaunches);
  };
  for (int r = 0; r < rounds + 2; ++r) {
    per_launch("MPSFW_LAMBDA", [&] {
      exec.for_each(
          1, MPSFW_LAMBDA(long i) { x[4 * i] = x[4 * i] * a + b + c + d + e + f; });
    });
    per_launch("__device__ lambda", [&] {
      exec.for_each(1, [=] __device__(long i) { x[4 * i] = x[4 * i] * a + b + c + d + e + f; });
    });
    per_launch("functor", [&] { exec.for_each(1, Scale{x, a, b, c, d, e, f}); });
  }
  for (auto& [name, s] : seconds) s.erase(s.begin(), s.begin() + 2);  // warm-up
  print_medians(
      "for_each of one particle, " + std::to_string(kLaunches) + " back to back, per call",
      seconds);
}

}  // namespace

int main(int argc, char** argv) {
  return mpsfw::bench::mpi_bench_main("md_rebuild_ops", argc, argv, run);
}
