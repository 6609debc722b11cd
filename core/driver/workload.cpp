#include "workload.hpp"

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/input/checkpoint.hpp>
#include <mpsfw/core/io/h5md_file.hpp>
#include <mpsfw/core/io/xdmf_writer.hpp>

namespace mpsfw {

WeakScaling Workload::weak_scaling() const {
  return {{}, "this solver names no keys for weak scaling"};
}

std::vector<MemoryNeed> Workload::memory_needs(const CartDecomposition&, Backend) const {
  return {};
}

double Workload::work_of(const CartDecomposition& block) const {
  const Int3 c = block.local_cells();
  return static_cast<double>(c.x) * c.y * c.z;
}

CartDecomposition block_of_rank(MPI_Comm world, const Workload& workload, Int3 rank_grid) {
  return CartDecomposition(world, workload.cells_to_split(), rank_grid, {false, false, false},
                           workload.x_face_cost());
}

std::vector<std::pair<std::string, std::string>> Workload::output_files() const {
  const RunConfig& run = run_config();
  std::vector<std::pair<std::string, std::string>> files;
  if (!run.output_file.empty()) {
    const std::string h5 = resumed_output_path(run.output_file, run.start_step);
    files.push_back({h5, "run.output_file"});
    if (!is_h5md_path(h5)) files.push_back({xdmf_path_of(h5), "run.output_file"});
  }
  files.push_back({run.checkpoint_file, "run.checkpoint_file"});
  files.push_back({run.timeline_file, "run.timeline_file"});
  return files;
}

std::vector<std::string> Workload::closing_lines() const {
  const RunConfig& run = run_config();
  if (run.output_file.empty()) return {};
  const std::string h5 = resumed_output_path(run.output_file, run.start_step);
  if (is_h5md_path(h5)) return {"output written to " + h5 + " (H5MD)"};
  return {"output written to " + h5 + " (and " + xdmf_path_of(h5) + ")"};
}

void WorkloadRegistry::add(WorkloadSpec spec) {
  if (spec.name.empty() || !spec.keys || !spec.create) {
    throw Error("workload registry: a workload needs a name, its keys and a create function");
  }
  for (const WorkloadSpec& s : specs_) {
    if (s.name == spec.name)
      throw Error("workload registry: '" + spec.name + "' is registered twice");
  }
  specs_.push_back(std::move(spec));
}

const WorkloadSpec& WorkloadRegistry::find(const std::string& name,
                                           const std::string& origin) const {
  for (const WorkloadSpec& s : specs_) {
    if (s.name == name) return s;
  }
  std::string known;
  for (const std::string& n : names()) known += (known.empty() ? "" : "|") + n;
  throw InputError(origin + ": expected one of " + known +
                   " (the solvers this program knows), got \"" + name + "\"");
}

void check_backend(const WorkloadSpec& spec, Backend requested, const std::string& origin) {
  if (requested == Backend::Auto) return;
  std::string has;
  for (Backend b : spec.backends) {
    if (b == requested) return;
    has += std::string(has.empty() ? "" : ", ") + to_string(b);
  }
  throw InputError(origin + ": the " + spec.name + " workload has no " + to_string(requested) +
                   " backend (it has " + (has.empty() ? "none" : has) + ")");
}

Backend backend_to_bind(const WorkloadSpec& spec, Backend requested) {
  if (requested != Backend::Auto) return requested;
  for (Backend b : spec.backends) {
    if (b == Backend::Cuda) return Backend::Auto;
  }
  return Backend::Host;
}

std::vector<std::string> WorkloadRegistry::names() const {
  std::vector<std::string> out;
  for (const WorkloadSpec& s : specs_) out.push_back(s.name);
  return out;
}

std::vector<ParamSpec> WorkloadRegistry::schema_of(const std::string& name) const {
  return input_schema(names(), find(name, "workload registry").keys());
}

}  // namespace mpsfw
