#include "solver_options.hpp"

#include "core/error.hpp"

namespace mpsfw {

std::string solver_usage() {
  return "usage: mpirun -np N solver INPUT.h5 [options]\n"
         "  --set group.key=value   override a scalar of the input file (repeatable)\n"
         "  --backend auto|cuda|host  where to compute (default: the input's run.backend)\n"
         "  --mps auto|on|off       NVIDIA MPS for ranks that share a GPU (default: the input's\n"
         "                          mps.enable, auto)\n"
         "  --mps-atp auto|N        active thread percentage per rank (mps.active_thread_percentage)\n"
         "  --output FILE.h5        write field snapshots (and FILE.xmf)\n"
         "  --report FILE.json      write the run report as JSON\n"
         "  --help, --version\n"
         "The input format is described in docs/input-format.md.\n";
}

SolverOptions parse_solver_options(const std::vector<std::string>& args) {
  SolverOptions o;
  const auto value_of = [&](size_t& i, const std::string& flag) -> std::string {
    const std::string& a = args[i];
    if (a.size() > flag.size() && a[flag.size()] == '=') return a.substr(flag.size() + 1);
    if (i + 1 >= args.size()) throw InputError(flag + " needs a value\n" + solver_usage());
    return args[++i];
  };
  const auto is = [](const std::string& a, const std::string& flag) {
    return a == flag || a.rfind(flag + "=", 0) == 0;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--version") {
      o.version = true;
    } else if (is(a, "--set")) {
      const std::string v = value_of(i, "--set");
      o.overrides.push_back(v);
      o.origins.push_back("--set " + v);
    } else if (is(a, "--backend")) {
      const std::string v = value_of(i, "--backend");
      o.overrides.push_back("run.backend=" + v);
      o.origins.push_back("--backend " + v);
    } else if (is(a, "--mps")) {
      const std::string v = value_of(i, "--mps");
      o.overrides.push_back("mps.enable=" + v);
      o.origins.push_back("--mps " + v);
    } else if (is(a, "--mps-atp")) {
      const std::string v = value_of(i, "--mps-atp");
      o.overrides.push_back("mps.active_thread_percentage=" + v);
      o.origins.push_back("--mps-atp " + v);
    } else if (is(a, "--output")) {
      const std::string v = value_of(i, "--output");
      o.overrides.push_back("run.output_file=" + v);
      o.origins.push_back("--output " + v);
    } else if (is(a, "--report")) {
      o.report_file = value_of(i, "--report");
    } else if (!a.empty() && a[0] == '-') {
      throw InputError("unknown option '" + a + "'\n" + solver_usage());
    } else if (o.input.empty()) {
      o.input = a;
    } else {
      throw InputError("more than one input file ('" + o.input + "', '" + a + "')\n" +
                       solver_usage());
    }
  }
  if (o.input.empty() && !o.help && !o.version) {
    throw InputError("no input file given\n" + solver_usage());
  }
  return o;
}

}  // namespace mpsfw
