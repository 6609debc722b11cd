#include "md_resume_input.hpp"

#include <cstdint>

#include "core/base/error.hpp"
#include "core/io/h5_io.hpp"
#include "md_dataset_input.hpp"

namespace mpsfw::md {
namespace {

const char* const kAxis[3] = {"x", "y", "z"};

std::int64_t integer_attribute(hid_t group, const std::string& name) {
  if (!h5::has_attribute(group, name)) return -1;
  const h5::Scalar s = h5::read_scalar(group, name);
  return s.kind == h5::Scalar::Kind::Integer ? s.integer : -1;
}

// The rows of `name` in /md/resume: `per_row` values for each of `rows`.
template <class T>
std::vector<T> read_rows(const std::string& file, hid_t group, const std::string& name, size_t rows,
                         size_t per_row) {
  std::vector<T> values;
  if (h5::has_dataset(group, name)) {
    if constexpr (std::is_same_v<T, double>) {
      values = h5::read_all_doubles(group, name);
    } else {
      values = h5::read_all_int64(group, name);
    }
  }
  if (values.size() != rows * per_row) {
    throw InputError(file + ": dataset /md/resume/" + name + ": expected " +
                     std::to_string(rows * per_row) + " values, got " +
                     std::to_string(values.size()));
  }
  return values;
}

}  // namespace

std::optional<MdResumeState> resume_state(const MdConfig& c, int rank, int ranks, Int3 rank_grid,
                                          const std::string& backend) {
  const std::string& file = c.input_file;
  {
    h5::Handle f = h5::open_file_readonly(file);
    if (!h5::has_group(f.get(), "md/resume")) return std::nullopt;
    h5::Handle g = h5::open_group(f.get(), "md/resume");
    bool same = integer_attribute(g.get(), "ranks") == ranks;
    for (int d = 0; d < 3; ++d) {
      same = same && integer_attribute(g.get(), std::string("p") + kAxis[d]) == rank_grid[d];
    }
    const h5::Scalar ran =
        h5::has_attribute(g.get(), "backend") ? h5::read_scalar(g.get(), "backend") : h5::Scalar{};
    if (!same || ran.text != backend) return std::nullopt;
  }
  // Velocities and ids, validated as for any dataset input, in file order.
  const std::vector<AtomRecord> all = all_dataset_atoms(c);
  h5::Handle f = h5::open_file_readonly(file);
  h5::Handle g = h5::open_group(f.get(), "md/resume");
  const size_t n = all.size();
  const auto owner = read_rows<std::int64_t>(file, g.get(), "rank", n, 1);
  const auto slot = read_rows<std::int64_t>(file, g.get(), "slot", n, 1);
  const auto held = read_rows<double>(file, g.get(), "positions", n, 3);
  const auto built = read_rows<double>(file, g.get(), "build_positions", n, 3);
  const auto moved = read_rows<double>(file, g.get(), "moved", static_cast<size_t>(ranks), 1);
  MdResumeState state;
  state.moved = moved[static_cast<size_t>(rank)];
  state.steps_on_lists = integer_attribute(g.get(), "steps_on_lists");
  long mine = 0;
  for (size_t i = 0; i < n; ++i) mine += owner[i] == rank;
  state.atoms.resize(static_cast<size_t>(mine));
  state.positions.resize(3 * static_cast<size_t>(mine));
  std::vector<bool> filled(static_cast<size_t>(mine), false);
  for (size_t i = 0; i < n; ++i) {
    if (owner[i] != rank) continue;
    const std::int64_t s = slot[i];
    if (s < 0 || s >= mine || filled[static_cast<size_t>(s)]) {
      throw InputError(file + ": dataset /md/resume/slot: rank " + std::to_string(rank) + " has " +
                       std::to_string(mine) + " atoms, but atom " + std::to_string(all[i].id) +
                       " is in slot " + std::to_string(s) + " (expected each of 0.." +
                       std::to_string(mine - 1) + " once)");
    }
    const size_t k = static_cast<size_t>(s);
    filled[k] = true;
    state.atoms[k] = all[i];
    for (size_t d = 0; d < 3; ++d) {
      state.atoms[k].x[d] = built[3 * i + d];
      state.positions[3 * k + d] = held[3 * i + d];
    }
  }
  if (state.steps_on_lists < 0) {
    throw InputError(file + ": /md/resume: attribute steps_on_lists: expected an integer >= 0");
  }
  return state;
}

}  // namespace mpsfw::md
