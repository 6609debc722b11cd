#include "particle_input.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>
#include <mpsfw/core/io/h5_io.hpp>

namespace mpsfw {
namespace {

const char* const kAxis[3] = {"x", "y", "z"};

std::string shape(const std::vector<std::uint64_t>& dims) {
  if (dims.empty()) return "a scalar";
  std::string text;
  for (std::uint64_t d : dims) text += "[" + std::to_string(d) + "]";
  return text;
}

std::string pattern(int components) {
  return components == 1 ? "[N]" : "[N][" + std::to_string(components) + "]";
}

std::string row_text(const double* v, int components) {
  std::string text = "[";
  for (int c = 0; c < components; ++c) text += (c > 0 ? ", " : "") + exact_number(v[c]);
  return text + "]";
}

std::string short_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// The checks of one file's group; every message names the file and dataset.
class Checker {
 public:
  Checker(const std::string& file, const std::string& group, const ParticleInputFields& fields,
          const ParticleInputRules& rules)
      : file_(file), group_(group), fields_(fields), rules_(rules) {}

  std::string where(const std::string& name) const {
    return file_ + ": dataset /" + group_ + "/" + name;
  }
  bool optional(const std::string& name) const {
    return std::find(fields_.optional.begin(), fields_.optional.end(), name) !=
           fields_.optional.end();
  }

  // Whether the group and its positions are there (throws when required).
  bool present(hid_t file) const {
    if (h5::has_group(file, group_)) {
      h5::Handle g = h5::open_group(file, group_);
      if (h5::has_dataset(g.get(), "positions") || rules_.required) return true;
      return false;
    }
    if (!rules_.required) return false;
    std::string names = "/" + group_ + "/positions";
    for (const WrittenField& f : fields_.fields) {
      if (!optional(f.dataset)) names += " and /" + group_ + "/" + f.dataset;
    }
    throw InputError(file_ + ": group /" + group_ + " is missing: " + rules_.needed_by +
                     " needs datasets " + names);
  }

  // Presence, type and shape of a dataset of `components` per particle;
  // `rows` is N once /positions fixed it (-1 before). Returns N, or -1 for an
  // optional dataset that is absent.
  long check(hid_t g, const std::string& name, int components, bool integer, long rows) const {
    const std::string type = integer ? "int64" : "float64";
    if (!h5::has_dataset(g, name)) {
      if (h5::has_group(g, name)) {
        throw InputError(where(name) + ": expected " + (integer ? "an " : "a ") + type +
                         " dataset of shape " + pattern(components) + ", got a group");
      }
      if (optional(name)) return -1;
      throw InputError(where(name) + " is missing: " + rules_.needed_by + " needs " +
                       (integer ? "an " : "a ") + type + " dataset of shape " +
                       pattern(components));
    }
    const h5::DatasetInfo info = h5::dataset_info(g, name);
    if (integer && !info.is_integer) {
      throw InputError(where(name) + ": expected an integer (int64) dataset, got a " +
                       info.type_name + " dataset");
    }
    if (!info.is_float && !info.is_integer) {
      throw InputError(where(name) + ": expected a numeric (float64) dataset, got a " +
                       info.type_name + " dataset");
    }
    if (rows >= 0) {
      std::vector<std::uint64_t> want = {static_cast<std::uint64_t>(rows)};
      if (components > 1) want.push_back(static_cast<std::uint64_t>(components));
      if (info.dims != want) {
        throw InputError(where(name) + ": expected shape " + pattern(components) + " = " +
                         shape(want) + " (N " + rules_.nouns + ", as in /" + group_ +
                         "/positions), got " + shape(info.dims));
      }
      return rows;
    }
    if (info.dims.size() != 2 || info.dims[1] != 3) {
      throw InputError(where(name) + ": expected shape [N][3], got " + shape(info.dims) +
                       " (one row of x, y, z per " + rules_.noun + ")");
    }
    if (info.dims[0] == 0) {
      throw InputError(where(name) + ": expected at least one " + rules_.noun + ", got shape " +
                       shape(info.dims));
    }
    return static_cast<long>(info.dims[0]);
  }

  // The group opened, its datasets' presence, types and shapes checked: N,
  // and which fields are there; nullopt where the group is absent and may be.
  struct Opened {
    h5::Handle file, group;
    long count = 0;
    std::vector<bool> there;
  };
  std::optional<Opened> open() const {
    Opened o;
    o.file = h5::open_file_readonly(file_);
    if (!present(o.file.get())) return std::nullopt;
    o.group = h5::open_group(o.file.get(), group_);
    o.count = shapes(o.group.get(), &o.there);
    return o;
  }

  // Presence, types and shapes of the positions and every field; returns N
  // and, in there[k], whether field k is in the file (an optional one may
  // not be).
  long shapes(hid_t g, std::vector<bool>* there) const {
    const long n = check(g, "positions", 3, false, -1);
    for (const WrittenField& w : fields_.fields)
      there->push_back(check(g, w.dataset, w.components, w.integer, n) >= 0);
    return n;
  }

  void finite(const std::string& name, std::size_t row, const double* v, int components) const {
    for (int c = 0; c < components; ++c) {
      if (std::isfinite(v[c])) continue;
      throw InputError(where(name) + ": row " + std::to_string(row) +
                       ": expected finite numbers, got " + row_text(v, components));
    }
  }

  void in_box(std::size_t row, const double* x) const {
    for (int d = 0; d < 3; ++d) {
      const double length = rules_.box[d];
      if (x[d] >= 0 && x[d] < length) continue;
      const std::string axis = kAxis[d], key = rules_.box_keys[d];
      throw InputError(where("positions") + ": row " + std::to_string(row) + ": " + axis + " = " +
                       exact_number(x[d]) + " is outside the box [0, " + exact_number(length) +
                       ") (" + key + " = " + exact_number(length) + "); expected 0 <= " + axis +
                       " < " + key + " (wrap " + rules_.nouns + " into the periodic box)");
    }
  }

  void ids(const std::string& name, const std::vector<std::int64_t>& ids) const {
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] >= 0) continue;
      throw InputError(where(name) + ": row " + std::to_string(i) + ": expected an id >= 0, got " +
                       std::to_string(ids[i]));
    }
    std::vector<std::pair<std::int64_t, size_t>> sorted(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) sorted[i] = {ids[i], i};
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 1; i < sorted.size(); ++i) {
      if (sorted[i].first != sorted[i - 1].first) continue;
      throw InputError(where(name) + ": rows " + std::to_string(sorted[i - 1].second) + " and " +
                       std::to_string(sorted[i].second) + " both have id " +
                       std::to_string(sorted[i].first) + "; expected every id once");
    }
  }

  // The first pair (by row) closer than the least separation, with a cell
  // list over the periodic box: O(N).
  void separation(const std::vector<double>& x, const ParticleRecords& records) const;

 private:
  const std::string& file_;
  const std::string& group_;
  const ParticleInputFields& fields_;
  const ParticleInputRules& rules_;
};

// Cells of a grid over the periodic box, each at least `reach` wide (and at
// most ~4 per particle, so that a sparse box costs no memory).
struct BoxCells {
  int n[3] = {1, 1, 1};
  double width[3] = {1, 1, 1};

  BoxCells(const double box[3], double reach, size_t particles) {
    const double most = 4.0 * static_cast<double>(std::max<size_t>(particles, 1)) + 27;
    double edge = reach;
    const double volume = box[0] * box[1] * box[2];
    if (volume / (edge * edge * edge) > most) edge = std::cbrt(volume / most);
    for (int d = 0; d < 3; ++d) {
      n[d] = std::max(1, static_cast<int>(std::min(box[d] / edge, 1e6)));
      width[d] = box[d] / n[d];
    }
  }
  int along(int d, double x) const {
    return std::min(n[d] - 1, std::max(0, static_cast<int>(x / width[d])));
  }
  size_t index(int cx, int cy, int cz) const {
    return (static_cast<size_t>(cz) * static_cast<size_t>(n[1]) + static_cast<size_t>(cy)) *
               static_cast<size_t>(n[0]) +
           static_cast<size_t>(cx);
  }
  size_t cells() const { return index(0, 0, n[2]); }
  // The distinct cells along d next to (and including) cell i.
  std::vector<int> around(int d, int i) const {
    if (n[d] < 3) {
      std::vector<int> all(static_cast<size_t>(n[d]));
      for (int k = 0; k < n[d]; ++k) all[static_cast<size_t>(k)] = k;
      return all;
    }
    return {(i + n[d] - 1) % n[d], i, (i + 1) % n[d]};
  }
};

double distance2(const double* a, const double* b, const double box[3]) {
  double r2 = 0;
  for (int d = 0; d < 3; ++d) {
    double dx = a[d] - b[d];
    dx -= box[d] * std::nearbyint(dx / box[d]);
    r2 += dx * dx;
  }
  return r2;
}

void Checker::separation(const std::vector<double>& x, const ParticleRecords& records) const {
  const size_t n = x.size() / 3;
  const double least = rules_.least_separation;
  const BoxCells grid(rules_.box, least, n);
  // Particles by cell (counting sort): cell c's are order[first[c] .. first[c + 1]).
  std::vector<size_t> cell(n), first(grid.cells() + 1, 0), order(n);
  for (size_t i = 0; i < n; ++i) {
    cell[i] = grid.index(grid.along(0, x[3 * i]), grid.along(1, x[3 * i + 1]),
                         grid.along(2, x[3 * i + 2]));
    ++first[cell[i] + 1];
  }
  for (size_t c = 0; c < grid.cells(); ++c) first[c + 1] += first[c];
  std::vector<size_t> next(first.begin(), first.end() - 1);
  for (size_t i = 0; i < n; ++i) order[next[cell[i]]++] = i;

  for (size_t i = 0; i < n; ++i) {
    const double* xi = &x[3 * i];
    size_t partner = n;  // the lowest row j > i that is too close
    double partner_r2 = 0;
    for (int cz : grid.around(2, grid.along(2, xi[2]))) {
      for (int cy : grid.around(1, grid.along(1, xi[1]))) {
        for (int cx : grid.around(0, grid.along(0, xi[0]))) {
          const size_t c = grid.index(cx, cy, cz);
          for (size_t k = first[c]; k < first[c + 1]; ++k) {
            const size_t j = order[k];
            if (j <= i || j >= partner) continue;
            const double r2 = distance2(xi, &x[3 * j], rules_.box);
            if (r2 < least * least) {
              partner = j;
              partner_r2 = r2;
            }
          }
        }
      }
    }
    if (partner == n) continue;
    const auto name = [&](size_t row) {  // its id, or its row without ids
      const std::int64_t id = records.id(row);
      return std::to_string(id >= 0 ? id : static_cast<std::int64_t>(row));
    };
    throw InputError(where("positions") + ": " + rules_.nouns + " " + name(i) + " and " +
                     name(partner) + " (rows " + std::to_string(i) + " and " +
                     std::to_string(partner) + ") are " + short_number(std::sqrt(partner_r2)) +
                     " apart, closer than " + rules_.least_text + "; " + rules_.why);
  }
}

}  // namespace

std::optional<long> count_particles(const std::string& file, const std::string& group,
                                    const ParticleInputFields& fields,
                                    const ParticleInputRules& rules) {
  const std::optional<Checker::Opened> opened = Checker(file, group, fields, rules).open();
  if (!opened) return std::nullopt;
  return opened->count;
}

std::optional<ParticleRecords> read_all_particles(const std::string& file, const std::string& group,
                                                  RecordLayout layout,
                                                  const ParticleInputFields& fields,
                                                  const ParticleInputRules& rules) {
  const Checker check(file, group, fields, rules);
  const std::optional<Checker::Opened> opened = check.open();
  if (!opened) return std::nullopt;
  const hid_t g = opened->group.get();
  const std::vector<bool>& there = opened->there;
  const auto rows = static_cast<size_t>(opened->count);
  const std::vector<double> x = h5::read_all_doubles(g, "positions");
  if (x.size() != 3 * rows)
    throw Error(file + ": reading /" + group + "/positions: too few values");
  ParticleRecords all(layout);
  all.resize(rows);
  for (size_t i = 0; i < rows; ++i) {
    check.finite("positions", i, &x[3 * i], 3);
    if (rules.check_box) check.in_box(i, &x[3 * i]);
    std::memcpy(all.position(i), &x[3 * i], 3 * sizeof(double));
  }
  for (size_t k = 0; k < fields.fields.size(); ++k) {
    const WrittenField& w = fields.fields[k];
    const auto c = static_cast<size_t>(w.components);
    const bool is_id = w.integer && c == 1 && layout.id_offset >= 0 &&
                       static_cast<std::ptrdiff_t>(w.offset) == layout.id_offset;
    std::vector<unsigned char> values(8 * c * rows, 0);
    if (!there[k]) {  // absent and optional: ids 0 .. N - 1, else zeros
      for (size_t i = 0; is_id && i < rows; ++i) {
        const auto id = static_cast<std::int64_t>(i);
        std::memcpy(&values[8 * i], &id, 8);
      }
    } else if (w.integer) {
      const std::vector<std::int64_t> v = h5::read_all_int64(g, w.dataset);
      if (v.size() != c * rows) throw Error(file + ": reading " + w.dataset + ": too few values");
      if (is_id) check.ids(w.dataset, v);
      std::memcpy(values.data(), v.data(), values.size());
    } else {
      const std::vector<double> v = h5::read_all_doubles(g, w.dataset);
      if (v.size() != c * rows) throw Error(file + ": reading " + w.dataset + ": too few values");
      for (size_t i = 0; i < rows; ++i) check.finite(w.dataset, i, &v[c * i], w.components);
      std::memcpy(values.data(), v.data(), values.size());
    }
    for (size_t i = 0; i < rows; ++i)
      std::memcpy(static_cast<unsigned char*>(all.record(i)) + w.offset, &values[8 * c * i], 8 * c);
  }
  if (rules.least_separation > 0 && rules.check_box) check.separation(x, all);
  return all;
}

std::vector<std::string> unread_particle_datasets(const std::string& file, const std::string& group,
                                                  const ParticleInputFields& fields,
                                                  const std::vector<std::string>& also) {
  if (file.empty()) return {};
  const h5::Handle f = h5::open_file_readonly(file);
  if (!h5::has_group(f.get(), group)) return {};
  const h5::Handle g = h5::open_group(f.get(), group);
  std::vector<std::string> read = {"positions"};
  for (const WrittenField& w : fields.fields) read.push_back(w.dataset);
  std::string names;
  for (const std::string& r : read) names += (names.empty() ? "/" : ", /") + group + "/" + r;
  read.push_back("resume");  // a checkpoint's exact-resume state (particle_resume.hpp)
  std::vector<std::string> unread;
  for (const std::string& name : h5::member_names(g.get())) {
    if (std::find(read.begin(), read.end(), name) != read.end() ||
        std::find(also.begin(), also.end(), name) != also.end())
      continue;
    unread.push_back(file + ": /" + group + "/" + name + " is not read (" + names +
                     " are): a misspelt name?");
  }
  return unread;
}

std::optional<ParticleRecords> read_owned_particles(const std::string& file,
                                                    const std::string& group,
                                                    const Subdomain& domain, RecordLayout layout,
                                                    const ParticleInputFields& fields,
                                                    const ParticleInputRules& rules) {
  // A particle outside the box would be owned by no rank: refused, never dropped.
  ParticleInputRules checked = rules;
  if (!checked.check_box) {
    checked.check_box = true;
    for (int d = 0; d < 3; ++d) {
      checked.box[d] = domain.box[d];
      if (checked.box_keys[d].empty()) checked.box_keys[d] = std::string("L") + kAxis[d];
    }
  }
  std::optional<ParticleRecords> all = read_all_particles(file, group, layout, fields, checked);
  if (!all) return std::nullopt;
  ParticleRecords mine(layout);
  for (size_t i = 0; i < all->size(); ++i) {
    if (domain.contains(all->position(i))) mine.append(all->record(i));
  }
  return mine;
}

}  // namespace mpsfw
