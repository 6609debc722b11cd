// The hyperslab each rank writes of a block-distributed field (snapshots and
// heat checkpoints, h5::block_slab), checked without allocating anything at
// a size that needs 64 bits: 1400^3 cells (2.744e9 > 2^31, 22 GB of doubles)
// over rank grids that do not divide it. The blocks tile the dataset, their
// cells add up to the global count exactly, and the most a rank writes (and
// holds) is its own block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {
namespace {

// Every rank's slab of `global` over `grid`, as CartDecomposition splits it.
std::vector<h5::BlockSlab> slabs_over(Int3 global, Int3 grid) {
  std::vector<h5::BlockSlab> slabs;
  for (int pz = 0; pz < grid.z; ++pz)
    for (int py = 0; py < grid.y; ++py)
      for (int px = 0; px < grid.x; ++px) {
        const Int3 coords{px, py, pz};
        Int3 offset, local;
        for (int d = 0; d < 3; ++d) {
          const Span1D s = split_evenly(global[d], grid[d], coords[d]);
          offset[d] = s.offset;
          local[d] = s.count;
        }
        slabs.push_back(h5::block_slab(global, offset, local));
      }
  return slabs;
}

TEST(BlockSlab, CountsAGridOfMoreThan2To31CellsIn64Bits) {
  const Int3 global{1400, 1400, 1400};
  const std::uint64_t cells = 1400ull * 1400 * 1400;
  ASSERT_GT(cells, static_cast<std::uint64_t>(std::numeric_limits<int>::max()));
  const h5::BlockSlab whole = h5::block_slab(global, {0, 0, 0}, global);
  EXPECT_EQ(whole.cells(), cells);
  EXPECT_EQ(whole.bytes(), 21952000000ull);
  EXPECT_EQ(whole.dataset_cells(), cells);
}

TEST(BlockSlab, BlocksTileTheDatasetAndNoRankHoldsMoreThanItsBlock) {
  const Int3 global{1400, 1400, 1400};
  for (const Int3 grid : {Int3{3, 5, 7}, Int3{4, 4, 2}, Int3{1, 1, 9}}) {
    const std::vector<h5::BlockSlab> slabs = slabs_over(global, grid);
    std::uint64_t cells = 0, largest = 0;
    for (const h5::BlockSlab& s : slabs) {
      EXPECT_EQ(s.dims, (std::array<std::uint64_t, 3>{1400, 1400, 1400}));
      for (size_t d = 0; d < 3; ++d) EXPECT_LE(s.start[d] + s.count[d], s.dims[d]);
      cells += s.cells();
      largest = std::max(largest, s.bytes());
    }
    EXPECT_EQ(cells, slabs.front().dataset_cells()) << grid.x << "x" << grid.y << "x" << grid.z;
    // Blocks are products of spans: they tile the grid when the spans tile
    // each axis (consecutive, from 0 to the end). Slabs run x fastest.
    const size_t stride[3] = {static_cast<size_t>(grid.y * grid.x), static_cast<size_t>(grid.x),
                              1};  // [z][y][x]
    const int along[3] = {grid.z, grid.y, grid.x};
    for (size_t h = 0; h < 3; ++h) {
      std::uint64_t next = 0;
      for (int c = 0; c < along[h]; ++c) {
        const h5::BlockSlab& s = slabs[static_cast<size_t>(c) * stride[h]];
        EXPECT_EQ(s.start[h], next);
        next = s.start[h] + s.count[h];
      }
      EXPECT_EQ(next, 1400u);
    }
    // The largest block: ceil(1400 / p) cells along each axis.
    std::uint64_t block = 8;
    for (int d = 0; d < 3; ++d) block *= static_cast<std::uint64_t>((1400 + grid[d] - 1) / grid[d]);
    EXPECT_EQ(largest, block);
  }
}

TEST(BlockSlab, RefusesABlockOutsideTheGrid) {
  EXPECT_THROW(h5::block_slab({10, 10, 10}, {8, 0, 0}, {3, 10, 10}), Error);
  EXPECT_THROW(h5::block_slab({10, 10, 10}, {0, -1, 0}, {10, 1, 10}), Error);
  EXPECT_NO_THROW(h5::block_slab({10, 10, 10}, {7, 0, 0}, {3, 10, 10}));
}

// MPI counts are int: one past the largest is refused, naming what the call
// carries and the way out, never wrapped to a negative or small count.
TEST(MpiCount, RefusesWhatAnIntCannotCountNamingIt) {
  const std::int64_t largest = std::numeric_limits<int>::max();
  EXPECT_EQ(mpi_count(largest, "a halo face", "use more ranks"), std::numeric_limits<int>::max());
  try {
    mpi_count(largest + 1, "a halo face", "use more ranks");
    ADD_FAILURE() << "no Error for 2^31 elements";
  } catch (const Error& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("a halo face: 2147483648 elements"), std::string::npos) << text;
    EXPECT_NE(text.find("use more ranks"), std::string::npos) << text;
  }
  EXPECT_THROW(mpi_count(-1, "a halo face", "use more ranks"), Error);
}

}  // namespace
}  // namespace mpsfw
