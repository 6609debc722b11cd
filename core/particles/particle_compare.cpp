#include "particle_compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>

#include <mpsfw/core/base/error.hpp>

namespace mpsfw {
namespace {

ParticleRecords read_by_id(const std::string& file, const std::string& group, RecordLayout layout,
                           const ParticleInputFields& fields) {
  ParticleInputRules rules;
  rules.required = true;
  ParticleRecords r = *read_all_particles(file, group, layout, fields, rules);
  std::vector<std::size_t> order(r.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t i, std::size_t j) { return r.id(i) < r.id(j); });
  ParticleRecords sorted(layout);
  for (std::size_t i : order) sorted.append(r.record(i));
  return sorted;
}

double word(const ParticleRecords& r, std::size_t i, std::size_t offset, bool integer) {
  const auto* at = static_cast<const unsigned char*>(r.record(i)) + offset;
  if (integer) {
    std::int64_t v;
    std::memcpy(&v, at, sizeof v);
    return static_cast<double>(v);
  }
  double v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

bool same_bits(const ParticleRecords& a, const ParticleRecords& b, std::size_t i,
               std::size_t offset) {
  return std::memcmp(static_cast<const unsigned char*>(a.record(i)) + offset,
                     static_cast<const unsigned char*>(b.record(i)) + offset, 8) == 0;
}

}  // namespace

ParticleDifference compare_particle_files(const std::string& a_file, const std::string& b_file,
                                          const std::string& group, RecordLayout layout,
                                          const ParticleInputFields& fields, const double box[3]) {
  if (layout.id_offset < 0) throw Error("compare_particle_files: the records have no id");
  const ParticleRecords a = read_by_id(a_file, group, layout, fields);
  const ParticleRecords b = read_by_id(b_file, group, layout, fields);
  ParticleDifference out;
  out.particles[0] = static_cast<long>(a.size());
  out.particles[1] = static_cast<long>(b.size());
  out.same_ids = a.size() == b.size();
  for (std::size_t i = 0; out.same_ids && i < a.size(); ++i) out.same_ids = a.id(i) == b.id(i);
  if (!out.same_ids) return out;

  FieldDifference positions{"positions"};
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (int d = 0; d < 3; ++d) {
      const std::size_t offset = sizeof(double) * static_cast<std::size_t>(d);
      ++positions.values;
      if (same_bits(a, b, i, offset)) continue;
      ++positions.differing;
      double dx = std::fabs(a.position(i)[d] - b.position(i)[d]);
      dx = std::min(dx, box[d] - dx);  // the nearest periodic image
      positions.largest = std::max(positions.largest, dx / box[d]);
    }
  }
  out.fields.push_back(positions);
  for (const WrittenField& f : fields.fields) {
    FieldDifference diff{f.dataset};
    for (std::size_t i = 0; i < a.size(); ++i) {
      for (int c = 0; c < f.components; ++c) {
        const std::size_t offset = f.offset + sizeof(double) * static_cast<std::size_t>(c);
        ++diff.values;
        if (same_bits(a, b, i, offset)) continue;
        ++diff.differing;
        diff.largest = std::max(
            diff.largest, std::fabs(word(a, i, offset, f.integer) - word(b, i, offset, f.integer)));
      }
    }
    out.fields.push_back(diff);
  }
  return out;
}

}  // namespace mpsfw
