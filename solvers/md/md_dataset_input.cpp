#include "md_dataset_input.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "core/error.hpp"
#include "core/h5_io.hpp"
#include "core/number_text.hpp"

namespace mpsfw::md {
namespace {

const char* const kAxis[3] = {"x", "y", "z"};

std::string shape(const std::vector<std::uint64_t>& dims) {
  if (dims.empty()) return "a scalar";
  std::string text;
  for (std::uint64_t d : dims) text += "[" + std::to_string(d) + "]";
  return text;
}

std::string where(const std::string& file, const std::string& dataset) {
  return file + ": dataset /md/" + dataset;
}

// What the file holds, once presence, types and shapes are known to be right.
struct Layout {
  std::uint64_t atoms = 0;
  bool has_ids = false;
};

// A numeric [N][3] dataset; `atoms` is N when already fixed by /md/positions.
std::uint64_t check_rows(const std::string& file, hid_t group, const std::string& name,
                         const std::string& meaning, const std::uint64_t* atoms) {
  if (!h5::has_dataset(group, name)) {
    throw InputError(where(file, name) +
                     " is missing: md.initial = dataset needs a float64 dataset of shape [N][3] (" +
                     meaning + " of each atom)");
  }
  const h5::DatasetInfo info = h5::dataset_info(group, name);
  if (!info.is_float && !info.is_integer) {
    throw InputError(where(file, name) + ": expected a numeric (float64) dataset, got a " +
                     info.type_name + " dataset");
  }
  if (atoms != nullptr) {
    const std::vector<std::uint64_t> want = {*atoms, 3};
    if (info.dims != want) {
      throw InputError(where(file, name) + ": expected shape [N][3] = " + shape(want) +
                       " (N atoms, as in /md/positions), got " + shape(info.dims));
    }
    return *atoms;
  }
  if (info.dims.size() != 2 || info.dims[1] != 3) {
    throw InputError(where(file, name) + ": expected shape [N][3], got " + shape(info.dims) +
                     " (one row of " + meaning + " per atom)");
  }
  if (info.dims[0] == 0) {
    throw InputError(where(file, name) + ": expected at least one atom, got shape " +
                     shape(info.dims));
  }
  return info.dims[0];
}

Layout inspect(const std::string& file, hid_t f) {
  if (!h5::has_group(f, "md")) {
    throw InputError(file +
                     ": group /md is missing: md.initial = dataset needs datasets /md/positions "
                     "and /md/velocities of shape [N][3]");
  }
  h5::Handle g = h5::open_group(f, "md");
  Layout layout;
  layout.atoms = check_rows(file, g.get(), "positions", "x, y, z", nullptr);
  check_rows(file, g.get(), "velocities", "vx, vy, vz", &layout.atoms);
  layout.has_ids = h5::has_dataset(g.get(), "ids");
  if (layout.has_ids) {
    const h5::DatasetInfo info = h5::dataset_info(g.get(), "ids");
    if (!info.is_integer) {
      throw InputError(where(file, "ids") + ": expected an integer (int64) dataset, got a " +
                       info.type_name + " dataset");
    }
    const std::vector<std::uint64_t> want = {layout.atoms};
    if (info.dims != want) {
      throw InputError(where(file, "ids") + ": expected shape [N] = " + shape(want) +
                       " (one id per row of /md/positions), got " + shape(info.dims));
    }
  } else if (h5::has_group(g.get(), "ids")) {
    throw InputError(where(file, "ids") +
                     ": expected an integer (int64) dataset of shape [N], "
                     "got a group");
  }
  return layout;
}

std::string row_text(const double* v) {
  return "[" + exact_number(v[0]) + ", " + exact_number(v[1]) + ", " + exact_number(v[2]) + "]";
}

void check_finite(const std::string& file, const std::string& name, std::uint64_t row,
                  const double* v) {
  for (int d = 0; d < 3; ++d) {
    if (!std::isfinite(v[d])) {
      throw InputError(where(file, name) + ": row " + std::to_string(row) +
                       ": expected finite numbers, got " + row_text(v));
    }
  }
}

void check_in_box(const std::string& file, std::uint64_t row, const double* x,
                  const double box[3]) {
  for (int d = 0; d < 3; ++d) {
    if (x[d] >= 0 && x[d] < box[d]) continue;
    const std::string axis = kAxis[d];
    throw InputError(where(file, "positions") + ": row " + std::to_string(row) + ": " + axis +
                     " = " + exact_number(x[d]) + " is outside the box [0, " +
                     exact_number(box[d]) + ") (md.box_" + axis + " = " + exact_number(box[d]) +
                     "); expected 0 <= " + axis + " < md.box_" + axis +
                     " (wrap atoms into the periodic box)");
  }
}

void check_ids(const std::string& file, const std::vector<std::int64_t>& ids) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0) {
      throw InputError(where(file, "ids") + ": row " + std::to_string(i) +
                       ": expected an id >= 0, got " + std::to_string(ids[i]));
    }
  }
  std::vector<std::pair<std::int64_t, size_t>> sorted(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) sorted[i] = {ids[i], i};
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i].first == sorted[i - 1].first) {
      throw InputError(where(file, "ids") + ": rows " + std::to_string(sorted[i - 1].second) +
                       " and " + std::to_string(sorted[i].second) + " both have id " +
                       std::to_string(sorted[i].first) + "; expected every id once");
    }
  }
}

const std::string& input_file(const MdConfig& c) {
  if (c.input_file.empty()) {
    throw InputError(
        "md.initial = dataset: no input file; the atoms come from its datasets /md/positions "
        "and /md/velocities");
  }
  return c.input_file;
}

}  // namespace

long dataset_atom_count(const std::string& file) {
  h5::Handle f = h5::open_file_readonly(file);
  return static_cast<long>(inspect(file, f.get()).atoms);
}

std::vector<AtomRecord> all_dataset_atoms(const MdConfig& c) {
  const std::string& file = input_file(c);
  h5::Handle f = h5::open_file_readonly(file);
  const Layout layout = inspect(file, f.get());
  h5::Handle g = h5::open_group(f.get(), "md");
  const std::vector<double> x = h5::read_all_doubles(g.get(), "positions");
  const std::vector<double> v = h5::read_all_doubles(g.get(), "velocities");
  std::vector<std::int64_t> ids;
  if (layout.has_ids) ids = h5::read_all_int64(g.get(), "ids");
  const size_t n = static_cast<size_t>(layout.atoms);
  if (x.size() != 3 * n || v.size() != 3 * n || (layout.has_ids && ids.size() != n)) {
    throw Error(file + ": reading /md: got fewer values than the datasets' shapes say");
  }
  for (size_t i = 0; i < n; ++i) {
    check_finite(file, "positions", i, &x[3 * i]);
    check_in_box(file, i, &x[3 * i], c.box);
  }
  for (size_t i = 0; i < n; ++i) check_finite(file, "velocities", i, &v[3 * i]);
  if (layout.has_ids) check_ids(file, ids);

  std::vector<AtomRecord> atoms(n);
  for (size_t i = 0; i < n; ++i) {
    AtomRecord& r = atoms[i];
    for (int d = 0; d < 3; ++d) {
      r.x[d] = x[3 * i + static_cast<size_t>(d)];
      r.v[d] = v[3 * i + static_cast<size_t>(d)];
    }
    r.id = layout.has_ids ? ids[i] : static_cast<std::int64_t>(i);
  }
  return atoms;
}

std::vector<AtomRecord> dataset_atoms(const MdConfig& c, const Subdomain& domain) {
  std::vector<AtomRecord> atoms = all_dataset_atoms(c);
  atoms.erase(std::remove_if(atoms.begin(), atoms.end(),
                             [&](const AtomRecord& r) { return !domain.contains(r.x); }),
              atoms.end());
  return atoms;
}

}  // namespace mpsfw::md
