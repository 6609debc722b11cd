// The operations of MD's step and rebuild, each timed on its own, for MD's
// CUDA store (`cuda`: make_md_store) and MD on the particle layer's CUDA
// primitives (`layer`: MdArraysStore<CudaExec>) in one process, the stores
// taking turns: which operation holds the layer back, without a profiler.
// One rank, in.lj (fcc rho 0.8442, T 1.44, cutoff 2.5, skin 0.3, dt 0.005).
// Each round drifts every store's atoms the same few steps (forces, kick,
// drift), then times, waiting for the GPU after each: migrate, sort by cell,
// ghost exchange, list build, forces, and a step's kick-drift with the
// displacement check. Prints each operation's median over the rounds.
//   md_rebuild_ops [--cells N (40)] [--rounds R (20)] [--stores "cuda layer"]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_support.hpp"
#include "core/decomposition.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/particles/cuda_exec.cuh"
#include "core/particles/particle_exchange.hpp"
#include "core/particles/subdomain.hpp"
#include "solvers/md/md_arrays_store.hpp"
#include "solvers/md/md_config.hpp"
#include "solvers/md/md_initial.hpp"

namespace {

using namespace mpsfw;
using namespace mpsfw::md;

std::unique_ptr<MdStore> store_named(const std::string& name) {
  if (name == "cuda") return make_md_store(Backend::Cuda);
  if (name == "layer") return std::make_unique<MdArraysStore<CudaExec>>();
  throw Error("md_rebuild_ops: --stores takes cuda and layer, not " + name);
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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void time_stores(const std::string& stores, const MdConfig& config,
                 const CartDecomposition& decomposition, const Subdomain& domain,
                 const std::vector<AtomRecord>& atoms, double reach, double half_dt, int rounds);

int run(int argc, char** argv) {
  int cells = 40, rounds = 20;
  std::string stores = "cuda layer";
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
  const DeviceBinding device = bind_device(Backend::Cuda, 0, 1, CudaGate::without_mps());
  const MdConfig config = md_config_from(md_params_from_overrides(
      {"md.cells_x=" + std::to_string(cells), "md.cells_y=" + std::to_string(cells),
       "md.cells_z=" + std::to_string(cells)}));
  const CartDecomposition decomposition(MPI_COMM_WORLD, link_cells(config), config.rank_grid_hint,
                                        {true, true, true});
  const Subdomain domain = subdomain_of(decomposition, config.box);
  const std::vector<AtomRecord> atoms = fcc_atoms(config, domain, MPI_COMM_WORLD);
  const double reach = ghost_width(config), half_dt = 0.5 * config.dt;
  time_stores(stores, config, decomposition, domain, atoms, reach, half_dt, rounds);
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
  }
}

}  // namespace

int main(int argc, char** argv) {
  return mpsfw::bench::mpi_bench_main("md_rebuild_ops", argc, argv, run);
}
