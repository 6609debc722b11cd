#include "command_line.hpp"

#include <utility>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/nearest_names.hpp>
#include <mpsfw/core/device/build_info.hpp>
#include <mpsfw/core/device/kokkos_options.hpp>
#include <mpsfw/core/input/deck.hpp>

namespace mpsfw {

std::string command_line_usage(const std::string& program) {
  return "usage: mpirun -np N " + program +
         " INPUT [options]\n"
         "  INPUT                   an HDF5 input (INPUT.h5) or a text deck of key = value\n"
         "                          lines with its solver = NAME line (run.deck)\n"
         "  --set group.key=value   override a scalar of the input file (repeatable)\n"
         "  --set-file DECK.txt     --set lines from a file (key=value a line, # comments);\n"
         "                          --set on the command line wins\n"
         "  --backend auto|cuda|host|kokkos  where to compute (default: the input's run.backend)\n"
         "  --halo auto|mpi|ipc|same-gpu  grid halos and ghost particles between ranks on one\n"
         "                          GPU or peer GPUs copied device to device (CUDA IPC) or\n"
         "                          sent through MPI\n"
         "                          (run.halo, auto)\n"
         "  --mps auto|on|off       NVIDIA MPS for ranks that share a GPU (default: the input's\n"
         "                          mps.enable, auto)\n"
         "  --mps-atp auto|balanced|N  active thread percentage per rank; balanced: in\n"
         "                          proportion to each rank's work (mps.active_thread_percentage)\n"
         "  --output FILE.h5        write field snapshots (and FILE.xmf)\n"
         "  --report FILE.json      write the run report as JSON\n"
         "  --timeline FILE.json    every rank's phases over the run's second half, a Chrome\n"
         "                          trace for Perfetto (run.timeline_file)\n"
         "  --write-input FILE.h5   write a valid input (the solver's template plus --set\n"
         "                          values, solver=NAME picks the solver) and stop; an\n"
         "                          existing FILE is replaced only with --force\n"
         "  --describe FILE.h5      list every attribute and dataset of an input (a checkpoint\n"
         "                          too) and stop; with --as-set, as a deck for --set-file\n"
         "  --list-keys[=NAME]      every key an input may hold (type, default, range,\n"
         "                          meaning), of solver NAME or of all, and stop\n"
         "  --dry-run               check the input and the outputs, print the rank grid, each\n"
         "                          rank's node, GPU and MPS cap and whether MPS would start\n"
         "                          or be reused, and stop: no daemon, no GPU context\n"
         "  --kokkos-NAME[=VALUE]   Kokkos's own options (--kokkos-help lists them), handed to\n"
         "                          Kokkos::initialize on backend kokkos; not --kokkos-device-id\n"
         "                          or --kokkos-num-threads: mpsfw's binding sets both\n"
         "  --help, --version\n"
         "The input format is described in " +
         docs_location() + "/input-format.md (the documentation: " + docs_location() + ").\n";
}

// The key an option overrides ("" for --set itself), or nullptr.
static const char* key_set_by(const std::string& arg) {
  static const std::pair<const char*, const char*> kOptions[] = {
      {"--set", ""},
      {"--backend", "run.backend"},
      {"--halo", "run.halo"},
      {"--output", "run.output_file"},
      {"--timeline", "run.timeline_file"},
      {"--mps", "mps.enable"},
      {"--mps-atp", "mps.active_thread_percentage"}};
  const std::string flag = arg.substr(0, arg.find('='));
  for (const auto& [option, key] : kOptions) {
    if (flag == option) return key;
  }
  return nullptr;
}

CommandLine parse_command_line(const std::vector<std::string>& args, const std::string& program) {
  const std::string usage = command_line_usage(program);
  CommandLine o;
  std::vector<std::string> deck, deck_origins;  // --set-file lines: the command line wins
  const auto value_of = [&](size_t& i, const std::string& flag) -> std::string {
    const std::string& a = args[i];
    if (a.size() > flag.size() && a[flag.size()] == '=') return a.substr(flag.size() + 1);
    if (i + 1 >= args.size()) throw UsageError(flag + " needs a value\n" + usage);
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
    } else if (const char* key = key_set_by(a)) {
      // A shorthand for --set: validated like every other key, and errors
      // name the option the user typed.
      const std::string flag = a.substr(0, a.find('='));
      const std::string v = value_of(i, flag);
      o.overrides.push_back(*key ? std::string(key) + "=" + v : v);
      o.origins.push_back(flag + " " + v);
      refuse_state_key(o.overrides.back(), o.origins.back());
    } else if (is(a, "--report")) {
      o.report_file = value_of(i, "--report");
    } else if (is(a, "--write-input")) {
      o.write_input = value_of(i, "--write-input");
    } else if (is(a, "--set-file")) {
      o.decks.push_back(value_of(i, "--set-file"));
      read_deck(o.decks.back(), &deck, &deck_origins);
    } else if (a == "--list-keys" || a.rfind("--list-keys=", 0) == 0) {
      o.list_keys = true;
      if (a != "--list-keys") {
        o.list_keys_of = a.substr(std::string("--list-keys=").size());
      } else if (i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-') {
        o.list_keys_of = args[++i];  // --list-keys md, as --list-keys=md
      }
    } else if (a == "--as-set") {
      o.as_set = true;
    } else if (a == "--force") {
      o.force = true;
    } else if (a == "--dry-run") {
      o.dry_run = true;
    } else if (is(a, "--describe")) {
      o.describe = value_of(i, "--describe");
    } else if (is_kokkos_option(a)) {
      refuse_binding_option(a);
      o.kokkos_options.push_back(a);
      o.kokkos_help = o.kokkos_help || is_kokkos_help(a);
    } else if (!a.empty() && a[0] == '-') {
      static const std::vector<std::string> kKnown = {
          "--set",       "--set-file", "--backend",  "--halo",        "--mps",      "--mps-atp",
          "--output",    "--report",   "--timeline", "--write-input", "--describe", "--as-set",
          "--list-keys", "--dry-run",  "--force",    "--help",        "--version"};
      throw UsageError("unknown option '" + a + "'" +
                       did_you_mean(a.substr(0, a.find('=')), kKnown) + "\n" + usage);
    } else if (o.input.empty()) {
      o.input = a;
    } else {
      throw UsageError("more than one input file ('" + o.input + "', '" + a + "')\n" + usage);
    }
  }
  if (!o.write_input.empty() && !o.input.empty()) {
    throw UsageError("--write-input writes an input; it takes no input file ('" + o.input + "')\n" +
                     usage);
  }
  o.overrides.insert(o.overrides.begin(), deck.begin(), deck.end());
  o.origins.insert(o.origins.begin(), deck_origins.begin(), deck_origins.end());
  if (o.as_set && o.describe.empty()) {
    throw UsageError("--as-set is for --describe (it prints the input as a deck)\n" + usage);
  }
  if (o.force && o.write_input.empty()) {
    throw UsageError("--force is for --write-input (it replaces an existing file)\n" + usage);
  }
  const bool runs_nothing = !o.write_input.empty() || !o.describe.empty() || o.list_keys;
  if (o.dry_run && runs_nothing) {
    throw UsageError(
        "--dry-run checks a run; --write-input, --describe and --list-keys run "
        "nothing\n" +
        usage);
  }
  if (!o.kokkos_options.empty() && !o.kokkos_help && runs_nothing) {
    throw UsageError(o.kokkos_options[0] +
                     " is for Kokkos in a run; --write-input, --describe and --list-keys run "
                     "nothing\n" +
                     usage);
  }
  if (!o.describe.empty() && (!o.input.empty() || !o.write_input.empty())) {
    throw UsageError("--describe lists one file; it takes no input file or --write-input\n" +
                     usage);
  }
  if (o.input.empty() && o.write_input.empty() && o.describe.empty() && !o.list_keys && !o.help &&
      !o.version && !o.kokkos_help) {
    throw UsageError("no input file given\n" + usage);
  }
  return o;
}

}  // namespace mpsfw
