// The heat update's column march for Kokkos GPU spaces
// (solvers/heat/heat_columns_kokkos.hpp) runs here on the host, so CI checks
// the mapping from work items to cells that the GPU runs: every cell of a box
// once, each with updated_cell's value bit for bit, and a clear error where
// the 32-bit work index would wrap.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>
#include <mpsfw/solvers/heat/heat_columns_kokkos.hpp>
#include <mpsfw/solvers/heat/heat_physics.hpp>

namespace mpsfw {
namespace {

// A GPU space's column march (heat_columns_kokkos.hpp), run here on the host:
// its work items cover a ragged box's cells once each (full chunks and a
// partial one on top), and each cell gets updated_cell's value bit for bit.
TEST(HeatColumnMarch, CoversARaggedBoxOnceWithTheHostsValues) {
  const FieldLayout layout(Int3{13, 9, 21});
  const Box interior = layout.interior();
  const Box box{{interior.lo.x + 1, interior.lo.y + 2, interior.lo.z + 1},
                {interior.hi.x - 2, interior.hi.y, interior.hi.z - 1}};
  const heat::Coefficients k = heat::coefficients(1e-4, 0.1, 0.01, 0.01, 0.01);
  const size_t size = static_cast<size_t>(layout.size());
  std::vector<double> u(size), next(size, -1.0);
  for (size_t c = 0; c < size; ++c) u[c] = 1.0 + 1e-3 * static_cast<double>(c % 977);
  const heat::ColumnMarch<8> march(layout, box, k);
  const Int3 n = box.size();
  ASSERT_EQ(march.columns(), n.x * n.y * ((n.z + 7) / 8));
  std::vector<int> visits(size, 0);
  for (int t = 0; t < march.columns(); ++t) {
    std::int64_t c = 0;
    const int planes = march.start(t, c);
    for (int z = 0; z < planes; ++z) ++visits[static_cast<size_t>(c + z * layout.stride_z())];
    march.column(u.data(), next.data(), t);
  }
  const auto in = [](int v, int lo, int hi) { return v >= lo && v < hi; };
  for (int kz = 0; kz < layout.n.z + 2; ++kz) {
    for (int j = 0; j < layout.n.y + 2; ++j) {
      for (int i = 0; i < layout.n.x + 2; ++i) {
        const std::int64_t c = layout.index(i, j, kz);
        const bool inside =
            in(i, box.lo.x, box.hi.x) && in(j, box.lo.y, box.hi.y) && in(kz, box.lo.z, box.hi.z);
        ASSERT_EQ(visits[static_cast<size_t>(c)], inside ? 1 : 0) << i << " " << j << " " << kz;
        const double want =
            inside ? heat::updated_cell(u.data(), c, layout.stride_y(), layout.stride_z(), k)
                   : -1.0;
        ASSERT_EQ(std::memcmp(&next[static_cast<size_t>(c)], &want, sizeof want), 0)
            << "cell " << i << " " << j << " " << kz;
      }
    }
  }
}

// More columns than a 32-bit work index reaches: a clear error, not a wrap.
TEST(HeatColumnMarch, RefusesABoxBeyondOneLaunch) {
  const FieldLayout layout(Int3{65536, 65536, 16});
  try {
    const heat::ColumnMarch<8> march(layout, layout.interior(), heat::Coefficients{});
    FAIL() << "no error for " << march.columns() << " columns";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("65536x65536x16"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("8589934592 columns"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mpsfw
