#include "particle_resume.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "particle_trajectory.hpp"
#include "periodic_edge.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/input/checkpoint.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {
namespace {

const char* const kAxis[3] = {"x", "y", "z"};

// A record as the store holds it, then what resuming needs of it: its
// position at the last build, its rank and its slot there.
struct ResumeTail {
  double built[3];
  std::int64_t rank, slot;
};

std::int64_t integer_attribute(hid_t group, const std::string& name) {
  if (!h5::has_attribute(group, name)) return -1;
  const h5::Scalar s = h5::read_scalar(group, name);
  return s.kind == h5::Scalar::Kind::Integer ? s.integer : -1;
}

// The rows of `name` in <where>: `per_row` values for each of `rows`.
template <class T>
std::vector<T> read_rows(const std::string& file, const std::string& where, hid_t group,
                         const std::string& name, size_t rows, size_t per_row) {
  std::vector<T> values;
  if (h5::has_dataset(group, name)) {
    if constexpr (std::is_same_v<T, double>) {
      values = h5::read_all_doubles(group, name);
    } else {
      values = h5::read_all_int64(group, name);
    }
  }
  if (values.size() != rows * per_row) {
    throw InputError(file + ": dataset " + where + "/" + name + ": expected " +
                     std::to_string(rows * per_row) + " values, got " +
                     std::to_string(values.size()));
  }
  return values;
}

}  // namespace

ResumeRows resume_rows_of(const ListedParticleStore& store, const NeighbourSchedule& lists) {
  return {store.download_records(), store.download_build_positions(), store.max_displacement(),
          lists.steps_on_lists()};
}

void write_resumable_checkpoint(const std::string& path, const Params& params, long step,
                                double time, const std::vector<std::string>& overrides,
                                const std::string& group, const double box[3],
                                const std::vector<WrittenField>& fields,
                                const ResumeRows& mine_rows, const ResumeLayout& layout,
                                MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  const ParticleRecords& held = mine_rows.records;
  const RecordLayout plain = held.layout();
  if (plain.id_offset < 0) throw Error(group + ": an exact resume needs particles with ids");
  const std::vector<double>& built = mine_rows.build_positions;
  if (built.size() != 3 * held.size())
    throw Error(group + ": build positions of another particle count than the particles");
  // Each record with its tail, gathered to rank 0 in id order.
  ParticleRecords mine({plain.bytes + sizeof(ResumeTail), plain.id_offset});
  mine.resize(held.size());
  for (size_t i = 0; i < held.size(); ++i) {
    auto* at = static_cast<unsigned char*>(mine.record(i));
    std::memcpy(at, held.record(i), plain.bytes);
    ResumeTail tail{
        {built[3 * i], built[3 * i + 1], built[3 * i + 2]}, rank, static_cast<std::int64_t>(i)};
    std::memcpy(at + plain.bytes, &tail, sizeof tail);
  }
  const ParticleRecords all = gather_records(mine, comm);
  std::vector<double> moves(rank == 0 ? static_cast<size_t>(ranks) : 0);
  double moved = mine_rows.moved;
  MPSFW_MPI_CHECK(MPI_Gather(&moved, 1, MPI_DOUBLE, moves.data(), 1, MPI_DOUBLE, 0, comm));
  const long steps_on_lists = mine_rows.steps_on_lists;
  write_checkpoint_file(path, params, step, time, overrides, comm, [&](const std::string& partial) {
    if (rank != 0) return;
    const size_t n = all.size();
    ParticleRecords folded(plain);
    folded.resize(n);
    std::vector<double> positions(3 * n), build_positions(3 * n);
    std::vector<std::int64_t> owner(n), slot(n);
    for (size_t i = 0; i < n; ++i) {
      const auto* at = static_cast<const unsigned char*>(all.record(i));
      std::memcpy(folded.record(i), at, plain.bytes);
      ResumeTail tail;
      std::memcpy(&tail, at + plain.bytes, sizeof tail);
      for (size_t d = 0; d < 3; ++d) {
        positions[3 * i + d] = folded.position(i)[d];
        folded.position(i)[d] = wrapped(folded.position(i)[d], box[d]);
        build_positions[3 * i + d] = tail.built[d];
      }
      owner[i] = tail.rank;
      slot[i] = tail.slot;
    }
    h5::Handle file = h5::open_file_readwrite(partial);
    h5::Handle g = h5::has_group(file.get(), group) ? h5::open_group(file.get(), group)
                                                    : h5::create_group(file.get(), group);
    write_particle_datasets(g.get(), folded, fields);
    h5::Handle resume = h5::create_group(g.get(), "resume");
    h5::write_attribute(resume.get(), "ranks", static_cast<std::int64_t>(ranks));
    for (int d = 0; d < 3; ++d) {
      h5::write_attribute(resume.get(), std::string("p") + kAxis[d],
                          static_cast<std::int64_t>(layout.rank_grid[d]));
    }
    h5::write_attribute(resume.get(), "backend", layout.backend);
    h5::write_attribute(resume.get(), "steps_on_lists", static_cast<std::int64_t>(steps_on_lists));
    const std::uint64_t rows = n;
    h5::write_array(resume.get(), "rank", {rows}, owner.data());
    h5::write_array(resume.get(), "slot", {rows}, slot.data());
    h5::write_array(resume.get(), "positions", {rows, 3}, positions.data());
    h5::write_array(resume.get(), "build_positions", {rows, 3}, build_positions.data());
    h5::write_array(resume.get(), "moved", {static_cast<std::uint64_t>(ranks)}, moves.data());
    resume.reset();
    g.reset();
    h5::close_file(file, partial);  // a full disk may show only here
  });
}

std::optional<ResumeState> read_resume_state(const std::string& file, const std::string& group,
                                             RecordLayout records,
                                             const ParticleInputFields& fields,
                                             const ParticleInputRules& rules, int rank, int ranks,
                                             const ResumeLayout& layout) {
  const std::string where = "/" + group + "/resume";
  if (file.empty()) return std::nullopt;
  {
    h5::Handle f = h5::open_file_readonly(file);
    if (!h5::has_group(f.get(), group + "/resume")) return std::nullopt;
    h5::Handle g = h5::open_group(f.get(), group + "/resume");
    bool same = integer_attribute(g.get(), "ranks") == ranks;
    for (int d = 0; d < 3; ++d) {
      same = same && integer_attribute(g.get(), std::string("p") + kAxis[d]) == layout.rank_grid[d];
    }
    const h5::Scalar ran =
        h5::has_attribute(g.get(), "backend") ? h5::read_scalar(g.get(), "backend") : h5::Scalar{};
    if (!same || ran.text != layout.backend) return std::nullopt;
  }
  // The particles, checked as any input's, in file order.
  ParticleInputRules required = rules;
  required.required = true;
  const ParticleRecords all = *read_all_particles(file, group, records, fields, required);
  h5::Handle f = h5::open_file_readonly(file);
  h5::Handle g = h5::open_group(f.get(), group + "/resume");
  const size_t n = all.size();
  const auto owner = read_rows<std::int64_t>(file, where, g.get(), "rank", n, 1);
  const auto slot = read_rows<std::int64_t>(file, where, g.get(), "slot", n, 1);
  const auto held = read_rows<double>(file, where, g.get(), "positions", n, 3);
  const auto built = read_rows<double>(file, where, g.get(), "build_positions", n, 3);
  ResumeState state;
  state.steps_on_lists = integer_attribute(g.get(), "steps_on_lists");
  if (state.steps_on_lists < 0) {
    throw InputError(file + ": " + where + ": attribute steps_on_lists: expected an integer >= 0");
  }
  size_t mine = 0;
  for (size_t i = 0; i < n; ++i) mine += owner[i] == rank;
  state.records = ParticleRecords(records);
  state.records.resize(mine);
  state.positions.resize(3 * mine);
  std::vector<bool> filled(mine, false);
  for (size_t i = 0; i < n; ++i) {
    if (owner[i] != rank) continue;
    const std::int64_t s = slot[i];
    if (s < 0 || static_cast<size_t>(s) >= mine || filled[static_cast<size_t>(s)]) {
      throw InputError(file + ": dataset " + where + "/slot: rank " + std::to_string(rank) +
                       " has " + std::to_string(mine) + " particles, but particle " +
                       std::to_string(all.id(i)) + " is in slot " + std::to_string(s) +
                       " (expected each of 0.." + std::to_string(static_cast<long>(mine) - 1) +
                       " once)");
    }
    const size_t k = static_cast<size_t>(s);
    filled[k] = true;
    std::memcpy(state.records.record(k), all.record(i), records.bytes);
    for (size_t d = 0; d < 3; ++d) {
      state.records.position(k)[d] = built[3 * i + d];
      state.positions[3 * k + d] = held[3 * i + d];
    }
  }
  return state;
}

}  // namespace mpsfw
