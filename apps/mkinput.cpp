// mkinput: writes a valid input file for any built-in solver.
//   mkinput OUT.h5 [--set group.key=value ...] [--u0 ramp|random:SEED]   (heat)
//   mkinput OUT.h5 --set solver=NAME [--set group.key=value ...]
//   mkinput --describe FILE.h5   (canonical listing of an input file)
// Unset required keys take the solver's input template (WorkloadSpec; for
// heat, heat_template() in solvers/heat/heat_config.hpp); the written file is
// read back and validated like the solver does, and removed again if it is
// not valid.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/paths.hpp>
#include <mpsfw/core/device/build_info.hpp>
#include <mpsfw/core/input/deck.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/runtime/input_writer.hpp>
#include <mpsfw/solvers/builtin_workloads.hpp>

namespace {

using namespace mpsfw;

// The usage text, naming the program as it was called (mpsfw-mkinput when installed).
std::string usage(const std::string& p) {
  const std::string pad(p.size(), ' ');
  return "usage: " + p +
         " OUT.h5 [--force] [--set group.key=value ...] [--u0 ramp|random:SEED]   (heat)\n"
         "       " +
         p +
         " OUT.h5 [--force] --set solver=NAME [--set group.key=value ...]\n"
         "       " +
         p +
         " --describe FILE.h5 [--as-set]\n"
         "       " +
         p +
         " --help | --version\n"
         "--force replaces an existing OUT.h5 (else it is refused)\n"
         "--set-file DECK.txt: --set lines from a file (key=value a line, # comments); --set wins\n"
         "--describe --as-set prints FILE.h5 as such a deck\n"
         "--u0 (heat) stores a dataset /heat/u0 and sets heat.initial=dataset:\n"
         "  ramp         u0 = (i + 2j + 3k) / (nx + 2ny + 3nz) at cell (i, j, k)\n"
         "  random:SEED  uniform values in [0, 1) from a 64-bit LCG seeded with SEED\n";
}

std::vector<double> make_u0(const std::string& kind, Int3 n) {
  std::vector<double> u(static_cast<size_t>(n.product()));
  if (kind == "ramp") {
    const double scale = 1.0 / (n.x + 2.0 * n.y + 3.0 * n.z);
    size_t t = 0;
    for (int k = 0; k < n.z; ++k)
      for (int j = 0; j < n.y; ++j)
        for (int i = 0; i < n.x; ++i) u[t++] = (i + 2.0 * j + 3.0 * k) * scale;
    return u;
  }
  if (kind.rfind("random:", 0) == 0) {
    std::uint64_t state = std::stoull(kind.substr(7));
    for (double& v : u) {
      // Knuth's MMIX LCG; the top 53 bits give a double in [0, 1).
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      v = static_cast<double>(state >> 11) * (1.0 / 9007199254740992.0);
    }
    return u;
  }
  throw InputError("--u0: expected ramp or random:SEED, got '" + kind + "'");
}

int run(const std::string& program, const std::vector<std::string>& args) {
  const std::string usage_text = usage(program);
  if ((args.size() == 2 || args.size() == 3) && args[0] == "--describe") {
    const bool as_set = args.size() == 3 && args[2] == "--as-set";
    if (args.size() == 3 && !as_set)
      throw UsageError("unexpected argument '" + args[2] + "'\n" + usage_text);
    std::fputs((as_set ? describe_input_as_deck(args[1]) : describe_input_file(args[1])).c_str(),
               stdout);
    return 0;
  }
  std::string out, u0_kind;
  Settings settings, deck;  // --set-file lines: the command line's --set wins
  bool force = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--set-file" && i + 1 < args.size()) {
      read_deck(args[++i], &deck.sets, &deck.origins);
    } else if (args[i] == "--set" && i + 1 < args.size()) {
      settings.sets.push_back(args[++i]);
      settings.origins.push_back("--set " + settings.sets.back());
      refuse_state_key(settings.sets.back(), settings.origins.back());
    } else if (args[i] == "--u0" && i + 1 < args.size()) {
      u0_kind = args[++i];
    } else if (args[i] == "--force") {
      force = true;
    } else if (args[i] == "--help" || args[i] == "-h") {
      std::fputs(usage_text.c_str(), stdout);
      return 0;
    } else if (args[i] == "--version") {
      std::fputs(build_description(program).c_str(), stdout);
      return 0;
    } else if (args[i][0] != '-' && out.empty()) {
      out = args[i];
    } else {
      throw UsageError("unexpected argument '" + args[i] + "'\n" + usage_text);
    }
  }
  if (out.empty()) throw UsageError("no output file given\n" + usage_text);
  settings.sets.insert(settings.sets.begin(), deck.sets.begin(), deck.sets.end());
  settings.origins.insert(settings.origins.begin(), deck.origins.begin(), deck.origins.end());

  const WorkloadRegistry workloads = builtin_workloads();
  const std::string solver = solver_of(settings.sets, "heat");
  if (u0_kind.empty()) {
    write_workload_input(workloads, out, settings, "heat", force);
  } else {
    if (solver != "heat") throw InputError("--u0 is for heat inputs, not solver=" + solver);
    settings.sets.insert(settings.sets.begin(), "heat.initial=dataset");
    settings.origins.insert(settings.origins.begin(), "--u0 " + u0_kind);
    // The grid size decides u0's shape: the parameters first, then the file.
    const Params params = workload_params(workloads, settings, "heat");
    const Int3 n{static_cast<int>(params.integer("heat.nx")),
                 static_cast<int>(params.integer("heat.ny")),
                 static_cast<int>(params.integer("heat.nz"))};
    write_workload_input(workloads, out, settings, "heat", force, make_u0(u0_kind, n),
                         {static_cast<std::uint64_t>(n.z), static_cast<std::uint64_t>(n.y),
                          static_cast<std::uint64_t>(n.x)});
  }
  std::printf("wrote %s\n", out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string program = program_name(argv[0], "mkinput");
  try {
    return run(program, std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
    return kUsageExitCode;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
    return 1;
  }
}
