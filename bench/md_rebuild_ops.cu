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
// costs beside its bytes (bench/primitive_timing.hpp); Kokkos's too where a
// Kokkos store was timed.
//   md_rebuild_ops [--cells N (40)] [--rounds R (20)] [--stores "cuda kokkos host"]
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_support.hpp"
#include "bench/md_rebuild_ops_kokkos.hpp"
#include "bench/primitive_timing.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/cuda_exec.cuh>
#include <mpsfw/core/particles/ghost_lists.hpp>
#include <mpsfw/core/particles/particle_exchange.hpp>
#include <mpsfw/core/particles/subdomain.hpp>
#include <mpsfw/solvers/md/md_config.hpp>
#include <mpsfw/solvers/md/md_initial.hpp>
#include <mpsfw/solvers/md/md_store.hpp>

namespace {

using namespace mpsfw;
using namespace mpsfw::md;

std::unique_ptr<MdStore> store_named(const std::string& name, const PairStyle& pair) {
  return make_md_store(parse_backend(name), pair);
}

// One store and its exchange, and what each operation took, per round.
struct Subject {
  std::string name;
  std::unique_ptr<MdStore> store;
  std::unique_ptr<ParticleExchange> exchange;
  bench::OperationSeconds seconds;
};

template <class Work>
void timed(Subject& s, const char* op, const Work& work) {
  bench::time_waited([&] { s.store->synchronize(); }, op, work, s.seconds);
}

// The bands of the only rank: every list wraps.
GhostBands one_rank_bands(const Subdomain& domain, double reach) {
  GhostBands b{};
  for (int d = 0; d < 3; ++d) {
    b.low[d] = domain.lo[d] + reach;
    b.high[d] = domain.hi[d] - reach;
  }
  for (int list = 0; list < kNeighbours; ++list) {
    for (int d = 0; d < 3; ++d) b.shift[list][d] = -neighbour_step(list, d) * domain.box[d];
  }
  return b;
}

void time_launches(const CudaExec& exec, int rounds);

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
  const int keys = grid.count[0] * grid.count[1] * grid.count[2];
  {
    const CudaExec exec;
    bench::time_primitives(exec, "CudaExec", n, keys, rounds);
    time_launches(exec, rounds);
  }
  if (kokkos) bench::time_kokkos_primitives(n, keys, rounds);
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
              store_named(name, config.pair),
              std::make_unique<ParticleExchange>(decomposition, domain, reach),
              {}};
    s.store->assign(atoms);
    s.exchange->migrate(*s.store);
    s.store->sort_by_cell(s.exchange->cell_grid());
    s.exchange->exchange_ghosts(*s.store);
    s.store->build_neighbors(s.exchange->cell_grid(), reach);
    s.store->compute_forces();
    subjects.push_back(std::move(s));
  }
  const CellGrid grid = subjects.front().exchange->cell_grid();
  const GhostBands bands = one_rank_bands(domain, reach);
  long counts[kNeighbours] = {};
  for (int r = 0; r < rounds; ++r) {
    for (Subject& s : subjects) {  // the stores take turns: drift hits them alike
      MdStore& store = *s.store;
      for (int step = 0; step < 8; ++step) {  // atoms move, some leave the box
        store.kick_drift(half_dt, config.dt, config.mass);
        s.exchange->update_ghosts(store);
        store.compute_forces();
        store.kick(half_dt, config.mass);
      }
      timed(s, "kick-drift + check", [&] {
        store.kick_drift(half_dt, config.dt, config.mass);
        (void)store.max_displacement();
      });
      timed(s, "migrate", [&] { s.exchange->migrate(store); });
      timed(s, "sort by cell", [&] { store.sort_by_cell(grid); });
      timed(s, "ghost: select", [&] {
        store.clear_ghosts();
        store.select_sends(bands, counts);
      });
      timed(s, "ghost: own images", [&] {
        long first[kNeighbours], total = 0;
        for (int list = 0; list < kNeighbours; ++list) {
          first[list] = total;
          total += counts[list];
        }
        store.reserve_ghosts(total);
        store.copy_sends_to_ghosts((std::uint32_t{1} << kNeighbours) - 1, first);
      });
      timed(s, "ghost exchange", [&] { s.exchange->exchange_ghosts(store); });
      timed(s, "list build", [&] { store.build_neighbors(grid, reach); });
      timed(s, "forces", [&] { store.compute_forces(); });
      timed(s, "ghost update", [&] { s.exchange->update_ghosts(store); });
      store.kick(half_dt, config.mass);
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
      for (Subject& s : subjects) std::printf(" %10.1f", 1e6 * bench::median_of(s.seconds[op]));
      std::printf("\n");
    }
    std::fflush(stdout);  // an abort later would lose it
  }
}

// What a launch costs the host beside primitive_timing.hpp's MPSFW_LAMBDA
// (a __host__ __device__ lambda, which nvcc wraps in a heap-allocated holder
// copied with each copy of it): the same body as a __device__ lambda and as a
// plain functor, each capturing the same seven values.
struct Scale {
  double* x;
  double a, b, c, d, e, f;
  __device__ void operator()(long i) const { x[4 * i] = x[4 * i] * a + b + c + d + e + f; }
};
void time_launches(const CudaExec& exec, int rounds) {
  Array<double> values(Backend::Cuda, 4);
  bench::fill_test_pattern(values);
  double* x = values.data();
  const double a = 1, b = 0, c = 0, d = 0, e = 0, f = 0;
  bench::OperationSeconds seconds;
  for (int r = 0; r < rounds + 2; ++r) {
    bench::time_back_to_back(
        exec, "__device__ lambda",
        [=] __device__(long i) { x[4 * i] = x[4 * i] * a + b + c + d + e + f; }, seconds);
    bench::time_back_to_back(exec, "functor", Scale{x, a, b, c, d, e, f}, seconds);
  }
  bench::drop_warm_up(seconds, 2);
  bench::print_medians("CudaExec: for_each of one particle, " + std::to_string(bench::kBackToBack) +
                           " back to back, per call",
                       seconds);
}

}  // namespace

int main(int argc, char** argv) {
  return mpsfw::bench::mpi_bench_main("md_rebuild_ops", argc, argv, run);
}
