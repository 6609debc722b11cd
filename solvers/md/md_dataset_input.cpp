#include "md_dataset_input.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

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

// Cells of a grid over the periodic box, each at least `reach` wide, so that
// atoms within `reach` of each other are in the same or adjacent cells.
struct CellGrid {
  int n[3] = {1, 1, 1};
  double width[3] = {1, 1, 1};

  CellGrid(const double box[3], double reach, size_t atoms) {
    // At most ~4 cells per atom: a sparse box does not cost memory.
    const double most = 4.0 * static_cast<double>(std::max<size_t>(atoms, 1)) + 27;
    double edge = reach;
    const double volume = box[0] * box[1] * box[2];
    if (volume / (edge * edge * edge) > most) edge = std::cbrt(volume / most);
    for (int d = 0; d < 3; ++d) {
      n[d] = std::max(1, static_cast<int>(std::min(box[d] / edge, 1e6)));
      width[d] = box[d] / n[d];
    }
  }
  int index_along(int d, double x) const {
    return std::min(n[d] - 1, std::max(0, static_cast<int>(x / width[d])));
  }
  size_t cell_of(const double* x) const {
    return (static_cast<size_t>(index_along(2, x[2])) * static_cast<size_t>(n[1]) +
            static_cast<size_t>(index_along(1, x[1]))) *
               static_cast<size_t>(n[0]) +
           static_cast<size_t>(index_along(0, x[0]));
  }
  size_t cells() const {
    return static_cast<size_t>(n[0]) * static_cast<size_t>(n[1]) * static_cast<size_t>(n[2]);
  }
  // The distinct cell indices along d next to (and including) cell i.
  std::vector<int> around(int d, int i) const {
    if (n[d] < 3) {
      std::vector<int> all(static_cast<size_t>(n[d]));
      for (int k = 0; k < n[d]; ++k) all[static_cast<size_t>(k)] = k;
      return all;
    }
    return {(i + n[d] - 1) % n[d], i, (i + 1) % n[d]};
  }
};

std::string short_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// Squared distance of the nearest periodic images of a and b.
double distance2(const double* a, const double* b, const double box[3]) {
  double r2 = 0;
  for (int d = 0; d < 3; ++d) {
    double dx = a[d] - b[d];
    dx -= box[d] * std::nearbyint(dx / box[d]);
    r2 += dx * dx;
  }
  return r2;
}

// Throws InputError naming the first pair (by row) of atoms closer than
// kMinSeparationSigma * sigma. `x` holds N rows of 3, all inside the box.
void check_separation(const std::string& file, const std::vector<double>& x,
                      const std::vector<std::int64_t>& ids, const double box[3], double sigma) {
  const size_t n = x.size() / 3;
  const double least = kMinSeparationSigma * sigma;
  const CellGrid grid(box, least, n);
  // Atoms sorted by cell (counting sort): those of cell c are
  // order[first[c] .. first[c + 1]).
  std::vector<size_t> cell(n), first(grid.cells() + 1, 0), order(n);
  for (size_t i = 0; i < n; ++i) {
    cell[i] = grid.cell_of(&x[3 * i]);
    ++first[cell[i] + 1];
  }
  for (size_t c = 0; c < grid.cells(); ++c) first[c + 1] += first[c];
  std::vector<size_t> next(first.begin(), first.end() - 1);
  for (size_t i = 0; i < n; ++i) order[next[cell[i]]++] = i;

  for (size_t i = 0; i < n; ++i) {
    const double* xi = &x[3 * i];
    size_t partner = n;  // the lowest row j > i that is too close
    double partner_r2 = 0;
    for (int cz : grid.around(2, grid.index_along(2, xi[2]))) {
      for (int cy : grid.around(1, grid.index_along(1, xi[1]))) {
        for (int cx : grid.around(0, grid.index_along(0, xi[0]))) {
          const size_t c =
              (static_cast<size_t>(cz) * static_cast<size_t>(grid.n[1]) + static_cast<size_t>(cy)) *
                  static_cast<size_t>(grid.n[0]) +
              static_cast<size_t>(cx);
          for (size_t k = first[c]; k < first[c + 1]; ++k) {
            const size_t j = order[k];
            if (j <= i || j >= partner) continue;
            const double r2 = distance2(xi, &x[3 * j], box);
            if (r2 < least * least) {
              partner = j;
              partner_r2 = r2;
            }
          }
        }
      }
    }
    if (partner == n) continue;
    const auto id = [&](size_t row) {
      return std::to_string(ids.empty() ? static_cast<std::int64_t>(row) : ids[row]);
    };
    throw InputError(where(file, "positions") + ": atoms " + id(i) + " and " + id(partner) +
                     " (rows " + std::to_string(i) + " and " + std::to_string(partner) + ") are " +
                     short_number(std::sqrt(partner_r2)) + " apart, closer than " +
                     exact_number(kMinSeparationSigma) + " sigma = " + exact_number(least) +
                     " (md.sigma = " + exact_number(sigma) +
                     "); expected every two atoms (and periodic images) at least " +
                     exact_number(kMinSeparationSigma) +
                     " sigma apart: overlapping atoms make the Lennard-Jones force blow up");
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
  check_separation(file, x, ids, c.box, c.lj.sigma);

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
