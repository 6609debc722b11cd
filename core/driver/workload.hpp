#pragma once
// The seam between mpsfw's runtime and a solver. A solver is registered once,
// as a WorkloadSpec: the name an input's root attribute `solver` gives, its
// own parameter keys, and how to create it. The runtime (runtime/solver_main.hpp)
// reads the input, checks the keys, splits the ranks, binds the device, and
// then drives the Workload through configure -> start -> the time loop
// (core/driver/time_loop.hpp, over stepper()) -> report -> stop. Heat and MD are two such
// workloads; adding a third is a new folder under solvers/ (or a program of one's own), no edit of
// the runtime.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "report.hpp"
#include "time_loop.hpp"
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>

namespace mpsfw {

// What the runtime hands a workload when it starts: the ranks, the bound
// device, and facts about the machine.
struct RunContext {
  MPI_Comm world = MPI_COMM_WORLD;
  DeviceBinding device;
  std::string host;             // this rank's host name
  bool cuda_aware_mpi = false;  // MPI takes device pointers
};

// Memory a rank will allocate in one space, and what for (the memory
// preflight's estimate: --dry-run sets it against what is free).
struct MemoryNeed {
  Backend space = Backend::Host;  // Cuda: the GPU's memory
  std::int64_t bytes = 0;
  std::string what;  // "heat's fields and halo buffers"
};

// How a weak-scaling study grows an input: the three integer keys (x, y, z)
// it multiplies by the rank grid, so that every rank keeps the input's size
// (heat: heat.nx/ny/nz; md: md.cells_x/y/z); or, with no keys, why not.
struct WeakScaling {
  std::vector<std::string> keys;
  std::string refusal;
};

class Workload {
 public:
  virtual ~Workload() = default;

  // From finalized parameters (the workload's keys, /run and /mps): checks
  // what the schema cannot and keeps the configuration. Throws InputError
  // naming the file and key. No MPI, no CUDA. `params` outlives the workload
  // (a checkpoint repeats them).
  virtual void configure(const Params& params) = 0;
  // After configure: the shared /run values.
  virtual const RunConfig& run_config() const = 0;
  // The global grid the ranks split (heat: cells; MD: link cells), and what
  // a rank needs at least when that is more than one cell (added to the
  // message when a job cannot be split).
  virtual Int3 cells_to_split() const = 0;
  virtual std::string split_hint() const { return ""; }
  // How choosing the rank grid weighs a face across x against one across y
  // or z (choose_rank_grid's x_face_cost; a grid solver whose x faces are
  // strided in memory: kStridedFaceCost). The same value the workload's
  // decomposition takes, so the grid checked before the run (and printed by
  // --dry-run) is the run's.
  virtual double x_face_cost() const { return 1.0; }
  // After configure: how a weak-scaling study grows this input (the report's
  // weak_scaling; scripts/sweep.py and advise read it). By default: no keys.
  virtual WeakScaling weak_scaling() const;
  // After configure, before start: what the rank owning `block` will
  // allocate when its fields live in `memory` (Cuda or Host), the estimates
  // its own preflight checks at start. Collective over block.comm(). By
  // default none: --dry-run says the workload gives no estimate.
  virtual std::vector<MemoryNeed> memory_needs(const CartDecomposition& block,
                                               Backend memory) const;
  // After configure, before start: the work of the rank owning `block`, in
  // any unit the same for every rank (mps.active_thread_percentage =
  // balanced gives ranks sharing a GPU caps in proportion to it). Collective
  // over block.comm(). By default the cells of the block: right where every
  // cell costs the same.
  virtual double work_of(const CartDecomposition& block) const;
  // After configure, before start: what the input holds that the workload
  // will not read (a misspelt dataset), one line each; the runtime warns of
  // them (stderr on rank 0, and the report). By default none.
  virtual std::vector<std::string> input_warnings() const { return {}; }
  // Output files as (path, key that set it), checked before the run starts
  // (creatable, not the input, not one another). Empty paths are skipped. By
  // default run.output_file under its resumed name (resumed_output_path) and
  // the XDMF file beside it, and run.checkpoint_file.
  virtual std::vector<std::pair<std::string, std::string>> output_files() const;

  // Collective over context.world: builds the state on context.device.
  virtual void start(const RunContext& context) = 0;
  // One line for the job's start, after start(): "heat 64x64x64 cells, 100
  // steps on 4 ranks (1x2x2)".
  virtual std::string banner() const = 0;
  // After start(): the state the time loop steps (it records how the loop
  // ended: Steppable::loop()).
  virtual Steppable& stepper() = 0;
  // Collective: the report, complete on rank 0.
  virtual RunReport report(const Params& params, const RunContext& context,
                           const std::vector<std::string>& warnings) const = 0;
  // Frees the device memory: the runtime releases the device after it.
  virtual void stop() = 0;
  // Lines rank 0 prints after the report; by default where the output went
  // ("output written to X (and X.xmf)").
  virtual std::vector<std::string> closing_lines() const;
};

// Collective over `world`: this rank's block of the grid `workload` splits
// over `rank_grid`, as the workload's own decomposition will cut it (the
// estimates made before the run: memory_needs, work_of).
CartDecomposition block_of_rank(MPI_Comm world, const Workload& workload, Int3 rank_grid);

struct WorkloadSpec {
  std::string name;                              // the value of the input's `solver` attribute
  std::string summary;                           // one line for --help
  std::function<std::vector<ParamSpec>()> keys;  // own keys (not /run's shared ones, not /mps)
  std::function<std::unique_ptr<Workload>()> create;
  // "group.key=value" for every required key: a small valid input, which
  // mkinput starts from (may be empty when every key has a default).
  std::function<std::vector<std::string>()> input_template;
  // The backends the workload has kernels for: the runtime refuses another
  // `run.backend` before the run (naming these), and `auto` takes the host
  // where a GPU is visible but the workload has no cuda backend. The host
  // unless the workload names more (backends_built).
  std::vector<Backend> backends = {Backend::Host};
};

// The host, and CUDA and Kokkos where a solver built their kernels (a
// solver's <PREFIX>_HAVE_CUDA and <PREFIX>_HAVE_KOKKOS: mpsfw_backend_parts):
// a WorkloadSpec's backends.
inline std::vector<Backend> backends_built(bool cuda, bool kokkos) {
  std::vector<Backend> b = {Backend::Host};
  if (cuda) b.push_back(Backend::Cuda);
  if (kokkos) b.push_back(Backend::Kokkos);
  return b;
}

// Throws InputError naming `origin` (where run.backend was set), the workload
// and its backends when `requested` (not auto) is not one of spec.backends.
void check_backend(const WorkloadSpec& spec, Backend requested, const std::string& origin);
// The backend to bind for `requested`: itself, or for auto the host when the
// workload has no cuda backend.
Backend backend_to_bind(const WorkloadSpec& spec, Backend requested);

class WorkloadRegistry {
 public:
  // Throws Error on an empty or duplicate name or a spec without keys/create.
  void add(WorkloadSpec spec);
  // Throws InputError naming `origin` (where the name came from) and the
  // names that are known.
  const WorkloadSpec& find(const std::string& name, const std::string& origin) const;
  std::vector<std::string> names() const;
  const std::vector<WorkloadSpec>& specs() const { return specs_; }
  // The whole input schema of workload `name`: `solver` (any registered
  // name), /run, and its keys.
  std::vector<ParamSpec> schema_of(const std::string& name) const;

 private:
  std::vector<WorkloadSpec> specs_;
};

}  // namespace mpsfw
