#include "workload.hpp"

#include "error.hpp"

namespace mpsfw {

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

std::vector<std::string> WorkloadRegistry::names() const {
  std::vector<std::string> out;
  for (const WorkloadSpec& s : specs_) out.push_back(s.name);
  return out;
}

std::vector<ParamSpec> WorkloadRegistry::schema_of(const std::string& name) const {
  return input_schema(names(), find(name, "workload registry").keys());
}

}  // namespace mpsfw
