#include "input_writer.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include <mpsfw/core/base/atomic_file.hpp>
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>
#include <mpsfw/core/input/deck.hpp>
#include <mpsfw/core/input/param_attributes.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/core/io/input_file.hpp>
#include <mpsfw/mps/mps_config.hpp>

namespace mpsfw {

namespace {

// The input into partial_path(path) only; nothing else is touched.
void write_partial_input(const std::string& path, const Params& params,
                         const std::vector<double>& u0, std::array<std::uint64_t, 3> u0_dims) {
  const std::string tmp = partial_path(path);
  try {
    h5::Handle file = h5::create_file(tmp);
    write_param_attributes(file.get(), params);
    if (!u0.empty()) {
      h5::Handle heat = h5::has_group(file.get(), "heat") ? h5::open_group(file.get(), "heat")
                                                          : h5::create_group(file.get(), "heat");
      h5::write_dataset(heat.get(), "u0", u0_dims, u0.data());
    }
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
}

}  // namespace

void write_input_file(const std::string& path, const Params& params, const std::vector<double>& u0,
                      std::array<std::uint64_t, 3> u0_dims) {
  write_partial_input(path, params, u0, u0_dims);
  move_into_place(partial_path(path), path);
}

namespace {

// FNV-1a over the bytes of a dataset read as float64.
std::uint64_t hash_doubles(const std::vector<double>& v) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  for (size_t i = 0; i < v.size() * sizeof(double); ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

// A scalar's value as text: integers and exact numbers, strings in quotes or
// as they are (what --set takes); "" for a kind no key has.
std::string scalar_text(const h5::Scalar& s, bool quote_strings) {
  switch (s.kind) {
    case h5::Scalar::Kind::Integer:
      return std::to_string(s.integer);
    case h5::Scalar::Kind::Real:
      return exact_number(s.real);
    case h5::Scalar::Kind::Text:
      return quote_strings ? "\"" + s.text + "\"" : s.text;
    case h5::Scalar::Kind::Other:
      break;
  }
  return "";
}

void describe_group(hid_t group, const std::string& path, std::vector<std::string>* lines) {
  for (const std::string& a : h5::attribute_names(group)) {
    const h5::Scalar s = h5::read_scalar(group, a);
    const std::string text = s.kind == h5::Scalar::Kind::Other ? "?" : scalar_text(s, true);
    lines->push_back("attribute " + path + a + " (" + s.type_name + ") = " + text);
  }
  for (const std::string& m : h5::member_names(group)) {
    if (h5::has_group(group, m)) {
      h5::Handle g = h5::open_group(group, m);
      describe_group(g.get(), path + m + "/", lines);
    } else if (h5::has_dataset(group, m)) {
      const h5::DatasetInfo info = h5::dataset_info(group, m);
      std::string shape;
      std::uint64_t n = 1;
      for (std::uint64_t d : info.dims) {
        shape += "[" + std::to_string(d) + "]";
        n *= d;
      }
      // Every value as float64 (integers below 2^53 exactly): equal hashes, equal data.
      const std::vector<double> data = n > 0 && (info.is_float || info.is_integer)
                                           ? h5::read_all_doubles(group, m)
                                           : std::vector<double>{};
      lines->push_back("dataset " + path + m + " " + shape +
                       " fnv1a=" + std::to_string(hash_doubles(data)));
    }
  }
}

// A deck's settings, one a line as given: what a run reads from it.
std::string describe_deck(const std::string& path) {
  std::vector<std::string> sets, origins;
  read_deck(path, &sets, &origins);
  std::string out = "# " + path + ": a deck; its settings as --set lines (--set-file)\n";
  for (const std::string& s : sets) out += s + "\n";
  return out;
}

}  // namespace

std::string describe_input_file(const std::string& path) {
  if (is_deck(path)) return describe_deck(path);
  h5::Handle file = h5::open_file_readonly(path);
  h5::Handle root = h5::open_group(file.get(), "/");
  std::vector<std::string> lines;
  describe_group(root.get(), "/", &lines);
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

std::string describe_input_as_deck(const std::string& path) {
  if (is_deck(path)) return describe_deck(path);
  const InputAttributes input = read_input_attributes(path);
  std::string out = "# " + path + " as --set lines (--set-file); the command line's --set wins\n";
  std::vector<std::string> lines;
  for (const auto& [group, attributes] : input.groups) {
    for (const auto& [name, s] : attributes) {
      const std::string key = group.empty() ? name : group + "." + name;
      if (s.kind == h5::Scalar::Kind::Other) {
        lines.push_back("# " + key + ": a " + s.type_name + ", not a key a deck can set");
        continue;
      }
      const std::string value = scalar_text(s, false);
      // A checkpoint's step and time are its state's, which no deck sets.
      if (key == "step" || key == "time") {
        lines.push_back("# " + key + "=" + value + ": the saved state's, not a setting");
        continue;
      }
      // The solver first: it decides the schema of every other line.
      if (key == "solver") {
        out += key + "=" + value + "\n";
      } else {
        lines.push_back(key + "=" + value);
      }
    }
  }
  for (const std::string& l : lines) out += l + "\n";
  std::istringstream described(describe_input_file(path));
  for (std::string line; std::getline(described, line);) {
    if (line.rfind("dataset ", 0) == 0) out += "# " + line + " (stays in " + path + ")\n";
  }
  return out;
}

std::string solver_of(const std::vector<std::string>& sets, const std::string& fallback) {
  std::string solver = fallback;
  for (const std::string& set : sets) {
    if (set.rfind("solver=", 0) == 0) solver = set.substr(7);
  }
  return solver;
}

std::vector<ParamSpec> input_keys(const WorkloadRegistry& workloads, const std::string& solver) {
  std::vector<ParamSpec> keys = workloads.schema_of(solver);
  for (const ParamSpec& s : mps::mps_schema()) keys.push_back(s);
  return keys;
}

Params workload_params(const WorkloadRegistry& workloads, const Settings& settings,
                       const std::string& fallback_solver) {
  const std::vector<std::string>& sets = settings.sets;
  const std::string solver = solver_of(sets, fallback_solver);
  const WorkloadSpec& spec = workloads.find(solver, "--set solver=" + solver);
  std::vector<ParamSpec> keys = workloads.schema_of(solver);
  for (const ParamSpec& s : mps::mps_schema()) {
    const bool set = std::any_of(sets.begin(), sets.end(), [&](const std::string& o) {
      return o.rfind(s.name() + "=", 0) == 0;
    });
    if (set) keys.push_back(s);
  }
  Params params(keys);
  params.apply_override("solver=" + solver);
  if (spec.input_template) {
    for (const std::string& o : spec.input_template()) params.apply_override(o);
  }
  // Each set first against every key, so an unknown key's error lists them all.
  Params every_key(input_keys(workloads, solver));
  for (size_t i = 0; i < sets.size(); ++i) {
    const std::string origin = i < settings.origins.size() ? settings.origins[i] : "";
    every_key.apply_override(sets[i], origin);
    params.apply_override(sets[i], origin);
  }
  params.finalize();
  return params;
}

void write_workload_input(const WorkloadRegistry& workloads, const std::string& path,
                          const Settings& settings, const std::string& fallback_solver,
                          bool replace, const std::vector<double>& u0,
                          std::array<std::uint64_t, 3> u0_dims) {
  std::error_code ec;
  if (!replace &&
      std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found) {
    throw InputError("'" + path + "' exists; it is replaced only with --force");
  }
  const std::string solver = solver_of(settings.sets, fallback_solver);
  // Checked before it replaces anything: a refused input leaves the file
  // that was at `path` as it was.
  const std::string partial = partial_path(path);
  write_partial_input(path, workload_params(workloads, settings, fallback_solver), u0, u0_dims);
  try {
    Params check(input_keys(workloads, solver));
    std::vector<std::string> warnings;
    check.read_file(partial, &warnings);
    check.finalize();
    workloads.find(solver, "solver").create()->configure(check);
  } catch (const InputError& e) {
    std::remove(partial.c_str());
    // The message names the file the user asked for, not the partial one.
    std::string message = e.what();
    for (size_t at = message.find(partial); at != std::string::npos;
         at = message.find(partial, at + path.size())) {
      message.replace(at, partial.size(), path);
    }
    throw InputError(message);
  } catch (...) {
    std::remove(partial.c_str());
    throw;
  }
  move_into_place(partial, path);
}

}  // namespace mpsfw
