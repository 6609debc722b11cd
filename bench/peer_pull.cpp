// peer_pull: what one same-GPU halo pull costs, by face. Rank 1 shares a field
// through CUDA IPC; rank 0 times copying each face plane of it into its own
// halo (the copy kernel of the pull scheme: FieldHalos pulls this way; heat
// now pushes its planes from the update launch instead), against the same
// copy out of a field of its own, and a contiguous copy of as many bytes
// (cudaMemcpy) from each. Both ranks on GPU 0.
//   mpirun -np 2 peer_pull [--cells 256x512x512] [--repeats 20]
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/bench_support.hpp"
#include <mpsfw/core/comm/halo_regions.hpp>
#include <mpsfw/core/comm/region_copy.hpp>
#include <mpsfw/core/device/cuda_check.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/peer_memory.hpp>

namespace {

using namespace mpsfw;

int run(int argc, char** argv) {
  Int3 cells{256, 512, 512};
  int repeats = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--cells" && i + 1 < argc &&
        std::sscanf(argv[i + 1], "%dx%dx%d", &cells.x, &cells.y, &cells.z) == 3) {
      ++i;
    } else if (a == "--repeats" && i + 1 < argc) {
      repeats = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: mpirun -np 2 peer_pull [--cells XxYxZ] [--repeats R]\n");
      return 2;
    }
  }
  int me = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks != 2) {
    if (me == 0) std::fprintf(stderr, "peer_pull: run it on exactly 2 ranks\n");
    return 2;
  }
  const DeviceBinding device = bind_device(Backend::Cuda, 0, 1, CudaGate::without_mps());
  const FieldLayout layout(cells);
  Array<double> field(Backend::Cuda, static_cast<size_t>(layout.size()));
  bench::fill_test_pattern(field);
  MPSFW_CUDA_CHECK(cudaDeviceSynchronize());
  PeerMemoryHandle handle = export_device_memory(field.data());
  MPI_Bcast(handle.bytes, PeerMemoryHandle::kBytes, MPI_BYTE, 1, MPI_COMM_WORLD);
  if (me == 1) {
    MPI_Barrier(MPI_COMM_WORLD);  // rank 0 is done with our field
    return 0;
  }
  const double* peer = static_cast<const double*>(open_peer_memory(handle));
  Array<double> own(Backend::Cuda, static_cast<size_t>(layout.size()));
  bench::fill_test_pattern(own);
  Array<double> bytes_out(Backend::Cuda, static_cast<size_t>(cells.y) * cells.z * 2 +
                                             static_cast<size_t>(cells.x) * cells.z * 2 +
                                             static_cast<size_t>(cells.x) * cells.y * 2);

  std::printf("peer_pull: block %dx%dx%d fp64 on %s, MPS %s\n", cells.x, cells.y, cells.z,
              device.name.c_str(), device.mps_enabled == 1 ? "on" : "off");
  std::printf("%-6s %9s %12s %12s %14s %14s\n", "face", "cells", "own us", "peer us",
              "own memcpy us", "peer memcpy us");
  const char* names[kFaces] = {"x-lo", "x-hi", "y-lo", "y-hi", "z-lo", "z-hi"};
  for (int f = 0; f < kFaces; ++f) {
    const RegionCopy from_own = halo_pull(field.data(), layout, own.data(), layout, face_offset(f));
    const RegionCopy from_peer = halo_pull(field.data(), layout, peer, layout, face_offset(f));
    const std::int64_t n = from_own.size.product();
    const size_t face_bytes = static_cast<size_t>(n) * sizeof(double);
    const double own_s = bench::median_event_seconds(
        repeats, [&] { copy_regions(Backend::Cuda, ScalarType::Float64, &from_own, 1); });
    const double peer_s = bench::median_event_seconds(
        repeats, [&] { copy_regions(Backend::Cuda, ScalarType::Float64, &from_peer, 1); });
    const double own_copy_s = bench::median_event_seconds(repeats, [&] {
      MPSFW_CUDA_CHECK(
          cudaMemcpy(bytes_out.data(), own.data(), face_bytes, cudaMemcpyDeviceToDevice));
    });
    const double peer_copy_s = bench::median_event_seconds(repeats, [&] {
      MPSFW_CUDA_CHECK(cudaMemcpy(bytes_out.data(), peer, face_bytes, cudaMemcpyDeviceToDevice));
    });
    std::printf("%-6s %9lld %12.1f %12.1f %14.1f %14.1f\n", names[f], static_cast<long long>(n),
                own_s * 1e6, peer_s * 1e6, own_copy_s * 1e6, peer_copy_s * 1e6);
  }
  close_peer_memory(const_cast<double*>(peer));
  MPI_Barrier(MPI_COMM_WORLD);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mpsfw::bench::mpi_bench_main("peer_pull", argc, argv, run);
}
