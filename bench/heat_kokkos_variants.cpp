// heat_kokkos_variants: ways to write the heat update in Kokkos, each timed
// against the device's copy bandwidth (Kokkos::deep_copy of one field, bytes
// read + written) and checked bit for bit against the Kokkos backend's own
// update (heat_kernels_kokkos.cpp) over the interior and over a ragged box.
// All call heat_physics.hpp's updated_cell; only the iteration differs:
//   solver          the backend's update as it is
//   mdrange 64x4x1  MDRangePolicy over (z, y, x), x fastest, tiles 64 x 4 x 1
//   range           a flat RangePolicy over the box's cells, (i, j, k) by division
//   team rows N     TeamPolicy, a team of N threads per (y, z) row along x (a
//                   team of one on a host space)
//   warp rows RxL   TeamPolicy, R rows per team, L vector lanes along each
//   march R rows zZ tT  TeamPolicy of T threads, a team per tile of R rows (y) x the
//                   box's x, marching Z planes along z (neighbours from cache)
//   columns zZ      a flat range over (x, y, z chunk) columns, each thread
//                   marching Z cells up z with the z neighbours in registers
//   pairs zZ        the same with two neighbouring x columns per thread
//   columns zZ lbTxB  columns with Kokkos::LaunchBounds<T, B> (at most T threads
//                   a block, at least B blocks an SM: caps the registers)
//   columns zZ pfP  columns prefetching the cell P planes ahead into L2 (on a
//                   CUDA GPU; the native kernel's prefetch)
// Each figure is the median of --repeats launches, each followed by a fence.
//   heat_kokkos_variants [--n 512] [--repeats 20]
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>
#include <mpsfw/solvers/heat/heat_columns_kokkos.hpp>
#include <mpsfw/solvers/heat/heat_kernels.hpp>
#include <mpsfw/solvers/heat/heat_physics.hpp>

namespace {

using namespace mpsfw;
using Space = Kokkos::DefaultExecutionSpace;
using Field = Kokkos::View<double*, Space::memory_space>;
using Iterate = Kokkos::Iterate;
using Cells = Kokkos::MDRangePolicy<Space, Kokkos::Rank<3, Iterate::Right, Iterate::Right>>;
constexpr bool kHostSpace = Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible;

double median_seconds(int repeats, const std::function<void()>& work) {
  work();  // warm-up
  Kokkos::fence();
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    work();
    Kokkos::fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Kokkos lambdas sit in named functions (nvcc: not inside another lambda).
void mdrange(int tx, int ty, int tz, const FieldLayout& l, heat::Coefficients k, const Field& u,
             const Field& next, const Box& b) {
  const std::int64_t sy = l.stride_y(), sz = l.stride_z();
  const FieldLayout at = l;
  Kokkos::parallel_for(
      "mdrange", Cells({b.lo.z, b.lo.y, b.lo.x}, {b.hi.z, b.hi.y, b.hi.x}, {tz, ty, tx}),
      KOKKOS_LAMBDA(int kz, int j, int i) {
        const std::int64_t c = at.index(i, j, kz);
        next(c) = heat::updated_cell(u.data(), c, sy, sz, k);
      });
}

void flat_range(const FieldLayout& l, heat::Coefficients k, const Field& u, const Field& next,
                const Box& b) {
  const std::int64_t sy = l.stride_y(), sz = l.stride_z();
  const FieldLayout at = l;
  const int nx = b.hi.x - b.lo.x, ny = b.hi.y - b.lo.y;
  const Int3 lo = b.lo;
  Kokkos::parallel_for(
      "range", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, b.cells()),
      KOKKOS_LAMBDA(std::int64_t t) {
        const int i = static_cast<int>(t % nx), row = static_cast<int>(t / nx);
        const std::int64_t c = at.index(lo.x + i, lo.y + row % ny, lo.z + row / ny);
        next(c) = heat::updated_cell(u.data(), c, sy, sz, k);
      });
}

void team_rows(int team_size, const FieldLayout& l, heat::Coefficients k, const Field& u,
               const Field& next, const Box& b) {
  using Team = Kokkos::TeamPolicy<Space>;
  const std::int64_t sy = l.stride_y(), sz = l.stride_z();
  const FieldLayout at = l;
  const int ny = b.hi.y - b.lo.y;
  const Int3 lo = b.lo, hi = b.hi;
  Kokkos::parallel_for(
      "team_rows", Team(ny * (b.hi.z - b.lo.z), kHostSpace ? 1 : team_size),
      KOKKOS_LAMBDA(const Team::member_type& team) {
        const int row = team.league_rank();
        const std::int64_t start = at.index(0, lo.y + row % ny, lo.z + row / ny);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, lo.x, hi.x), [&](int i) {
          next(start + i) = heat::updated_cell(u.data(), start + i, sy, sz, k);
        });
      });
}

// A team of `rows` x `lanes` threads: a row per thread group (a warp at 32
// lanes), its lanes along x.
void warp_rows(int rows, int lanes, const FieldLayout& l, heat::Coefficients k, const Field& u,
               const Field& next, const Box& b) {
  using Team = Kokkos::TeamPolicy<Space>;
  const std::int64_t sy = l.stride_y(), sz = l.stride_z();
  const FieldLayout at = l;
  const int ny = b.hi.y - b.lo.y, all_rows = ny * (b.hi.z - b.lo.z);
  const Int3 lo = b.lo, hi = b.hi;
  const int per_team = kHostSpace ? 1 : rows;
  Kokkos::parallel_for(
      "warp_rows", Team((all_rows + per_team - 1) / per_team, per_team, kHostSpace ? 1 : lanes),
      KOKKOS_LAMBDA(const Team::member_type& team) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, per_team), [&](int r) {
          const int row = team.league_rank() * per_team + r;
          if (row >= all_rows) return;
          const std::int64_t start = at.index(0, lo.y + row % ny, lo.z + row / ny);
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lo.x, hi.x), [&](int i) {
            next(start + i) = heat::updated_cell(u.data(), start + i, sy, sz, k);
          });
        });
      });
}

// A team per tile of `rows` (y) x the box's x extent, marching `planes`
// along z: each thread takes cells of the tile in turn (x fastest, so a
// warp's loads are coalesced) and walks them up the z chunk, so the planes
// below and above come from cache.
void team_march(int team_size, int rows, int planes, const FieldLayout& l, heat::Coefficients k,
                const Field& u, const Field& next, const Box& b) {
  using Team = Kokkos::TeamPolicy<Space>;
  const std::int64_t sy = l.stride_y(), sz = l.stride_z();
  const FieldLayout at = l;
  const int nx = b.hi.x - b.lo.x, ny = b.hi.y - b.lo.y;
  const int tiles_y = (ny + rows - 1) / rows;
  const int chunks = (b.hi.z - b.lo.z + planes - 1) / planes;
  const Int3 lo = b.lo, hi = b.hi;
  Kokkos::parallel_for(
      "team_march", Team(tiles_y * chunks, kHostSpace ? 1 : team_size),
      KOKKOS_LAMBDA(const Team::member_type& team) {
        const int tile = team.league_rank() % tiles_y, chunk = team.league_rank() / tiles_y;
        const int z0 = lo.z + chunk * planes;
        const int z1 = z0 + planes < hi.z ? z0 + planes : hi.z;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows * nx), [&](int t) {
          const int j = lo.y + tile * rows + t / nx;
          if (j >= hi.y) return;
          std::int64_t c = at.index(lo.x + t % nx, j, z0);
          for (int kz = z0; kz < z1; ++kz, c += sz) {
            next(c) = heat::updated_cell(u.data(), c, sy, sz, k);
          }
        });
      });
}

// The backend's column march (solvers/heat/heat_columns_kokkos.hpp) at
// depth ZC: a flat range over (x, y, z chunk) columns, x fastest, each thread
// marching ZC cells up z with the z neighbours in registers; on a CUDA GPU
// with PF > 0, the cell PF planes ahead prefetched into L2.
template <int ZC, int PF, class... Traits>
void columns_prefetching(const FieldLayout& l, heat::Coefficients k, const Field& u,
                         const Field& next, const Box& b) {
  const heat::ColumnMarch<ZC, PF> march(l, b, k);
  Kokkos::parallel_for(
      "columns", Kokkos::RangePolicy<Space, Kokkos::IndexType<int>, Traits...>(0, march.columns()),
      KOKKOS_LAMBDA(int t) { march.column(u.data(), next.data(), t); });
}

template <int ZC, class... Traits>
void columns(const FieldLayout& l, heat::Coefficients k, const Field& u, const Field& next,
             const Box& b) {
  columns_prefetching<ZC, 0, Traits...>(l, k, u, next, b);
}

// columns with two neighbouring x columns per thread (pairs of cells, scalar
// loads: x neighbours shared between the two).
template <int ZC>
void column_pairs(const FieldLayout& l, heat::Coefficients k, const Field& u, const Field& next,
                  const Box& b) {
  const std::int64_t sy = l.stride_y(), sz = l.stride_z();
  const FieldLayout at = l;
  const int nx = b.hi.x - b.lo.x, ny = b.hi.y - b.lo.y, pairs = (nx + 1) / 2;
  const std::int64_t chunks = (b.hi.z - b.lo.z + ZC - 1) / ZC;
  const Int3 lo = b.lo, hi = b.hi;
  Kokkos::parallel_for(
      "column_pairs",
      Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(
          0, static_cast<std::int64_t>(pairs) * ny * chunks),
      KOKKOS_LAMBDA(std::int64_t t) {
        const std::int64_t rest = t / pairs;
        const int i = lo.x + 2 * static_cast<int>(t - rest * pairs);
        const int j = lo.y + static_cast<int>(rest % ny);
        const int k0 = lo.z + static_cast<int>(rest / ny) * ZC;
        const int k1 = k0 + ZC < hi.z ? k0 + ZC : hi.z;
        const double* KOKKOS_RESTRICT in = u.data();
        double* KOKKOS_RESTRICT out = next.data();
        const bool two = i + 1 < hi.x;  // else column i + 1 is the halo: read, not written
        std::int64_t c = at.index(i, j, k0);
        double below0 = in[c - sz], center0 = in[c];
        double below1 = in[c + 1 - sz], center1 = in[c + 1];
#ifdef __CUDA_ARCH__
#pragma unroll 8
#endif
        for (int kz = k0; kz < k1; ++kz, c += sz) {
          const double above0 = in[c + sz], above1 = in[c + 1 + sz];
          out[c] = heat::updated_value(center0, in[c - 1], center1, in[c - sy], in[c + sy], below0,
                                       above0, k);
          if (two) {
            out[c + 1] = heat::updated_value(center1, center0, in[c + 2], in[c + 1 - sy],
                                             in[c + 1 + sy], below1, above1, k);
          }
          below0 = center0;
          center0 = above0;
          below1 = center1;
          center1 = above1;
        }
      });
}

std::vector<double> on_host(const Field& f) {
  auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
  return std::vector<double>(mirror.data(), mirror.data() + mirror.extent(0));
}

int run(int argc, char** argv) {
  int n = 512, repeats = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--n" && i + 1 < argc) {
      n = std::atoi(argv[++i]);
    } else if (a == "--repeats" && i + 1 < argc) {
      repeats = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: heat_kokkos_variants [--n N] [--repeats R]\n");
      return 2;
    }
  }
  const DeviceBinding device = bind_device(Backend::Kokkos, 0, 1, CudaGate::without_mps());
  std::printf("device: %s\n", device.name.c_str());
  {
    const FieldLayout layout(Int3{n, n, n});
    const heat::Coefficients k = heat::coefficients(1e-4, 0.1, 0.01, 0.01, 0.01);
    const double cells = static_cast<double>(layout.n.product());
    Field blank("blank", static_cast<size_t>(layout.size()));
    Field u("u", blank.extent(0)), next("next", blank.extent(0));
    Kokkos::parallel_for(
        "pattern",
        Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(
            0, static_cast<std::int64_t>(blank.extent(0))),
        KOKKOS_LAMBDA(std::int64_t c) { blank(c) = 1.0 + 1e-3 * static_cast<double>(c % 977); });
    Kokkos::deep_copy(u, blank);

    const double copy_s = median_seconds(repeats, [&] { Kokkos::deep_copy(next, u); });
    const double field_bytes = static_cast<double>(layout.size()) * sizeof(double);
    const double copy_bw = 2 * field_bytes / copy_s;
    std::printf("\n%-26s %10s %8s\n", "what", "GB/s", "of copy");
    std::printf("%-26s %10.1f %8.3f\n", "device copy (read+write)", copy_bw * 1e-9, 1.0);

    auto kernels = heat::make_heat_kernels(Backend::Kokkos);
    const std::vector<std::string> names = {"solver",
                                            "mdrange 64x4x1",
                                            "range",
                                            "team rows 64",
                                            "warp rows 4x32",
                                            "march 1 rows z4 t128",
                                            "columns z8",
                                            "columns z16",
                                            "columns z32",
                                            "columns z64",
                                            "pairs z8",
                                            "pairs z16",
                                            "pairs z32",
                                            "columns z16 lb128x16",
                                            "columns z16 lb256x8",
                                            "columns z8 lb128x16",
                                            "columns z8 lb256x8",
                                            "columns z32 lb128x16",
                                            "columns z16 lb256x6",
                                            "columns z16 pf2",
                                            "columns z16 pf4",
                                            "columns z16 pf6",
                                            "columns z8 pf4",
                                            "columns z32 pf4",
                                            "columns z16 lb256x1",
                                            "columns z2",
                                            "columns z4"};
    const auto launch = [&](size_t v, const Field& from, const Field& to, const Box& b) {
      switch (v) {
        case 0:
          return kernels->update(from.data(), to.data(), layout, b, k, {});
        case 1:
          return mdrange(64, 4, 1, layout, k, from, to, b);
        case 2:
          return flat_range(layout, k, from, to, b);
        case 3:
          return team_rows(64, layout, k, from, to, b);
        case 4:
          return warp_rows(4, 32, layout, k, from, to, b);
        case 5:
          return team_march(128, 1, 4, layout, k, from, to, b);
        case 6:
          return columns<8>(layout, k, from, to, b);
        case 7:
          return columns<16>(layout, k, from, to, b);
        case 8:
          return columns<32>(layout, k, from, to, b);
        case 9:
          return columns<64>(layout, k, from, to, b);
        case 10:
          return column_pairs<8>(layout, k, from, to, b);
        case 11:
          return column_pairs<16>(layout, k, from, to, b);
        case 12:
          return column_pairs<32>(layout, k, from, to, b);
        case 13:
          return columns<16, Kokkos::LaunchBounds<128, 16>>(layout, k, from, to, b);
        case 14:
          return columns<16, Kokkos::LaunchBounds<256, 8>>(layout, k, from, to, b);
        case 15:
          return columns<8, Kokkos::LaunchBounds<128, 16>>(layout, k, from, to, b);
        case 16:
          return columns<8, Kokkos::LaunchBounds<256, 8>>(layout, k, from, to, b);
        case 17:
          return columns<32, Kokkos::LaunchBounds<128, 16>>(layout, k, from, to, b);
        case 18:
          return columns<16, Kokkos::LaunchBounds<256, 6>>(layout, k, from, to, b);
        case 19:
          return columns_prefetching<16, 2>(layout, k, from, to, b);
        case 20:
          return columns_prefetching<16, 4>(layout, k, from, to, b);
        case 21:
          return columns_prefetching<16, 6>(layout, k, from, to, b);
        case 22:
          return columns_prefetching<8, 4>(layout, k, from, to, b);
        case 23:
          return columns_prefetching<32, 4>(layout, k, from, to, b);
        case 24:
          return columns<16, Kokkos::LaunchBounds<256, 1>>(layout, k, from, to, b);
        case 25:
          return columns<2>(layout, k, from, to, b);
        default:
          return columns<4>(layout, k, from, to, b);
      }
    };
    const Box interior = layout.interior();
    const Box ragged{{interior.lo.x + 1, interior.lo.y + 1, interior.lo.z + 2},
                     {interior.hi.x - 3, interior.hi.y - 1, interior.hi.z - 1}};
    const auto field_of = [&](size_t v, const Box& b) {
      Kokkos::deep_copy(next, blank);
      launch(v, u, next, b);
      Kokkos::fence();
      return on_host(next);
    };
    const std::vector<double> want_interior = field_of(0, interior);
    const std::vector<double> want_ragged = field_of(0, ragged);
    for (size_t v = 0; v < names.size(); ++v) {
      const bool same = std::memcmp(field_of(v, interior).data(), want_interior.data(),
                                    want_interior.size() * sizeof(double)) == 0 &&
                        std::memcmp(field_of(v, ragged).data(), want_ragged.data(),
                                    want_ragged.size() * sizeof(double)) == 0;
      const double bw =
          16.0 * cells / median_seconds(repeats, [&] { launch(v, u, next, interior); });
      std::printf("%-26s %10.1f %8.3f  %s\n", names[v].c_str(), bw * 1e-9, bw / copy_bw,
                  same ? "identical" : "DIFFERS from the solver's update");
    }
  }
  release_device(device);  // finalises Kokkos; every View is gone
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = 1;
  try {
    code = run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "heat_kokkos_variants: %s\n", e.what());
  }
  MPI_Finalize();
  return code;
}
