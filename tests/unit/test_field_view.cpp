// A field declared once: ParticleArrays derives where each written field
// lies in the record (written_fields, what trajectories, checkpoints and
// input reading take) from the declarations alone, and refuses a written
// field that is not part of the record. A field's view checks every index in
// a debug build: a ghost's index into a field that does not reach ghosts (or
// past the ghosts of one that does) stops the program. This file is compiled
// as a debug build's would be, whatever the build type.
#undef NDEBUG
#include <cassert>
// (first: the views' checks are asserts)

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/particles/host_exec.hpp>
#include <mpsfw/core/particles/particle_arrays.hpp>

namespace mpsfw {
namespace {

// The record the declarations below describe.
struct Record {
  double x[3];
  double v[3];
  std::int64_t id;
};

enum Fields { kVelocity = 0, kId = 1, kForce = 2, kDensity = 3 };

ParticleArrays<HostExec> make_arrays() {
  return ParticleArrays<HostExec>({{"v", 3, FieldType::Real, true, false, "velocities", "velocity"},
                                   {"id", 1, FieldType::Integer, true, false, "ids", "id"},
                                   {"f", 3, FieldType::Real, false},
                                   {"rho", 1, FieldType::Real, false, true}});
}

TEST(ParticleFields, WrittenFieldsFollowFromTheDeclarations) {
  const ParticleArrays<HostExec> a = make_arrays();
  EXPECT_EQ(a.record_layout().bytes, sizeof(Record));
  EXPECT_EQ(a.record_layout().id_offset, static_cast<std::ptrdiff_t>(offsetof(Record, id)));
  const std::vector<WrittenField> w = a.written_fields();
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].dataset, "velocities");
  EXPECT_EQ(w[0].attribute, "velocity");
  EXPECT_EQ(w[0].components, 3);
  EXPECT_FALSE(w[0].integer);
  EXPECT_EQ(w[0].offset, offsetof(Record, v));
  EXPECT_EQ(w[1].dataset, "ids");
  EXPECT_TRUE(w[1].integer);
  EXPECT_EQ(w[1].offset, offsetof(Record, id));
}

TEST(ParticleFields, AWrittenFieldMustTravel) {
  try {
    ParticleArrays<HostExec> a({{"f", 3, FieldType::Real, false, false, "forces", "force"}});
    ADD_FAILURE() << "a written scratch field was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("field f is written (as forces) but does not travel"),
              std::string::npos)
        << e.what();
  }
}

// Three owned particles; two ghost slots.
ParticleArrays<HostExec> three_particles_two_ghosts() {
  ParticleArrays<HostExec> a = make_arrays();
  ParticleRecords r(a.record_layout());
  for (int i = 0; i < 3; ++i) {
    const Record p{{0.5 * i, 1, 1}, {1.0 * i, 2.0 * i, 3.0 * i}, 10 + i};
    r.append(&p);
  }
  a.assign_records(r);
  a.reserve_ghosts(2);
  return a;
}

TEST(FieldViewDeathTest, AnIndexPastTheFieldsParticlesStops) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ParticleArrays<HostExec> a = three_particles_two_ghosts();
  const FieldView<double> v = a.real_view(kVelocity);
  const FieldView<std::int64_t> id = a.integer_view(kId);
  const FieldView<double> rho = a.real_view(kDensity);
  EXPECT_EQ(v(2, 1), 4.0);
  EXPECT_EQ(id(1), 11);
  rho(4) = 1.5;  // the last ghost of a field that reaches ghosts
  EXPECT_EQ(a.real(kDensity)[4], 1.5);
  EXPECT_DEATH(v(3), "");     // a ghost's index; v does not reach ghosts
  EXPECT_DEATH(v(0, 3), "");  // a fourth component of three
  EXPECT_DEATH(rho(5), "");   // past the ghosts
  EXPECT_DEATH(id(-1), "");
}

}  // namespace
}  // namespace mpsfw
