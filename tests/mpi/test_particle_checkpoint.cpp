// Particles in a checkpoint (core/particles/particle_resume.hpp): every
// rank's records land in one file, sorted by id, with each written field;
// read back, every rank of any rank grid gets exactly the particles its
// subdomain owns, field for field; an input without the group is a fresh
// start; a state missing a field's dataset is an InputError naming it.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "support/mpi_temp_dir.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/particle_input.hpp>
#include <mpsfw/core/particles/particle_resume.hpp>

namespace mpsfw {
namespace {

// Position, velocity, charge, id: 64 bytes.
struct Toy {
  double x[3], v[3], q;
  std::int64_t id;
};
const RecordLayout kLayout{sizeof(Toy), static_cast<std::ptrdiff_t>(offsetof(Toy, id))};
const std::vector<WrittenField> kFields = {{"velocities", "velocity", 3, false, offsetof(Toy, v)},
                                           {"charges", "charge", 1, false, offsetof(Toy, q)},
                                           {"ids", "id", 1, true, offsetof(Toy, id)}};
constexpr double kBox[3] = {6, 6, 6};
constexpr int kParticles = 300;

// Particle i, the same on every rank.
Toy toy(int i) {
  Toy t{};
  for (int d = 0; d < 3; ++d) {
    t.x[d] = kBox[d] * (((i * 37 + d * 101) % 97) + 0.5) / 97.0;
    t.v[d] = 0.001 * i - d;
  }
  t.q = i % 2 == 0 ? 1.0 : -1.0;
  t.id = kParticles - 1 - i;  // ids not in creation order
  return t;
}

// The particles `domain` owns, in creation order.
ParticleRecords owned(const Subdomain& domain) {
  ParticleRecords r(kLayout);
  for (int i = 0; i < kParticles; ++i) {
    const Toy t = toy(i);
    if (domain.contains(t.x)) r.append(&t);
  }
  return r;
}

// Records of `r` by id.
std::vector<Toy> by_id(const ParticleRecords& r) {
  std::vector<Toy> out(kParticles, Toy{{-1, -1, -1}, {0, 0, 0}, 0, -1});
  for (size_t i = 0; i < r.size(); ++i) {
    Toy t;
    std::memcpy(&t, r.record(i), sizeof t);
    if (t.id >= 0 && t.id < kParticles) out[static_cast<size_t>(t.id)] = t;
  }
  return out;
}

Params toy_params() {
  Params p(input_schema({"toy"}, {}));
  for (const char* o : {"solver=toy", "run.steps=9"}) p.apply_override(o);
  p.finalize();
  return p;
}

// A checkpoint of `mine` (every rank's), lists built where the particles are,
// positions folded into `box`.
void write_toy_checkpoint(const std::string& path, const ParticleRecords& mine,
                          const double box[3]) {
  ResumeRows rows{mine, {}, 0, 0};
  for (size_t i = 0; i < mine.size(); ++i) {
    for (int d = 0; d < 3; ++d) rows.build_positions.push_back(mine.position(i)[d]);
  }
  write_resumable_checkpoint(path, toy_params(), 5, 0.5, {}, "toy", box, kFields, rows,
                             {{1, 1, 1}, "host"}, MPI_COMM_WORLD);
}

// The particles of `input` that `domain` owns, as a solver reads them.
std::optional<ParticleRecords> read_toys(const std::string& input, const std::string& group,
                                         const Subdomain& domain,
                                         const std::vector<WrittenField>& fields) {
  return read_owned_particles(input, group, domain, kLayout, {fields, {}}, ParticleInputRules{});
}

TEST(ParticleCheckpoint, EveryRankGetsItsOwnParticlesBackOnAnyRankGrid) {
  const std::string dir = testing_support::make_shared_temp_dir("particle_checkpoint");
  const std::string path = dir + "/ck.h5";
  CartDecomposition dec(MPI_COMM_WORLD, {6, 6, 6}, {0, 0, 0}, {true, true, true});
  const Subdomain dom = subdomain_of(dec, kBox);
  const ParticleRecords mine = owned(dom);
  write_toy_checkpoint(path, mine, kBox);
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) {
    h5::Handle f = h5::open_file_readonly(path);
    const std::vector<std::int64_t> ids = h5::read_all_int64(f.get(), "/toy/ids");
    ASSERT_EQ(ids.size(), static_cast<size_t>(kParticles));
    for (size_t k = 0; k < ids.size(); ++k) EXPECT_EQ(ids[k], static_cast<std::int64_t>(k));
    EXPECT_EQ(h5::read_all_doubles(f.get(), "/toy/charges").size(),
              static_cast<size_t>(kParticles));
  }
  // Back on this rank grid: the same particles, every field.
  const auto back = read_toys(path, "toy", dom, kFields);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->size(), mine.size());
  const std::vector<Toy> want = by_id(mine), got = by_id(*back);
  EXPECT_EQ(std::memcmp(want.data(), got.data(), want.size() * sizeof(Toy)), 0);
  // On one rank: all of them.
  Subdomain whole{{0, 0, 0}, {6, 6, 6}, {6, 6, 6}};
  const auto all = read_toys(path, "toy", whole, kFields);
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->size(), static_cast<size_t>(kParticles));
  // Another group: a fresh start.
  EXPECT_FALSE(read_toys(path, "other", dom, kFields).has_value());
  // A state without charges names what is missing.
  std::vector<WrittenField> more = kFields;
  more.push_back({"spins", "spin", 1, false, offsetof(Toy, q)});
  try {
    read_toys(path, "toy", dom, more);
    ADD_FAILURE() << "a state without /toy/spins was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": dataset /toy/spins is missing"),
              std::string::npos)
        << e.what();
  }
  testing_support::remove_shared_temp_dir(dir);
}

// A state holding a particle outside the box is refused, naming the row and
// the box, on every rank grid: no rank owns it, and dropping it would lose a
// particle without a word.
TEST(ParticleCheckpoint, AParticleOutsideTheBoxIsAnError) {
  const std::string dir = testing_support::make_shared_temp_dir("particle_outside");
  const std::string path = dir + "/ck.h5";
  CartDecomposition dec(MPI_COMM_WORLD, {6, 6, 6}, {0, 0, 0}, {true, true, true});
  const Subdomain dom = subdomain_of(dec, kBox);
  ParticleRecords mine = owned(dom);
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) {  // one more, beyond the high y edge
    Toy stray = toy(0);
    stray.x[1] = 6.5;
    stray.id = kParticles;
    mine.append(&stray);
  }
  const double taller[3] = {6, 7, 6};  // written unfolded
  write_toy_checkpoint(path, mine, taller);
  try {
    read_toys(path, "toy", dom, kFields);
    ADD_FAILURE() << "a particle outside the box was read";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path + ": dataset /toy/positions: row 300: y = 6.5 is outside the box "
                               "[0, 6) (Ly = 6)"),
              std::string::npos)
        << what;
  }
  testing_support::remove_shared_temp_dir(dir);
}

}  // namespace
}  // namespace mpsfw
