# Spack recipe for mpsfw (a repo of one package: `spack repo add packaging/spack`).
# Its dependencies follow what CMakeLists.txt looks up; tests/spack/check_recipe.py
# checks that it parses and names every one of them, scripts/spack_concretize.sh
# that Spack concretizes it (packaging/spack/concretize-output.txt).
from spack.package import *


class Mpsfw(CMakePackage, CudaPackage):
    """A C++ framework for MPI+CUDA applications that run many MPI ranks on few
    GPUs, with NVIDIA MPS brought up, capped and verified from inside the job;
    a 3D heat and a Lennard-Jones MD solver on it."""

    # EDIT: where your site gets mpsfw from (the project has no public home yet).
    # A release is the tarball `git archive --prefix=mpsfw-X.Y.Z/ -o mpsfw-X.Y.Z.tar.gz
    # COMMIT` makes, kept as made (another git may gzip it differently) and put
    # where url points, or in a site's Spack mirror (docs/building.md, "Spack").
    homepage = "https://github.com/mpsfw/mpsfw"
    url = "https://github.com/mpsfw/mpsfw/releases/download/v0.1.0/mpsfw-0.1.0.tar.gz"
    git = "https://github.com/mpsfw/mpsfw.git"
    license("BSD-3-Clause")

    version("main", branch="main")
    # Commit 6db6650b3595c9aff34088007cc7f4720304ea78; CMake's project VERSION.
    version("0.1.0", sha256="78d04b03b4a15e5639ddf391025f64c17b102b269a9ac0700dd71e03b56ee86b")

    variant("kokkos", default=False, description="Build the Kokkos backend (--backend kokkos)")
    variant("tests", default=False, description="Build the GoogleTest suite (ctest)")

    depends_on("cxx", type="build")
    depends_on("c", type="build")
    depends_on("cmake@3.25:", type="build")
    depends_on("mpi")
    # Parallel HDF5 for collective output; a serial HDF5 works too (rank-ordered writes).
    depends_on("hdf5@1.10: +mpi")
    # CUDA 13 for sm_90 builds of nvcc and CCCL/Thrust (CudaPackage adds `cuda` with +cuda).
    depends_on("cuda@12:", when="+cuda")
    # mpsfw was built with Kokkos 3.4.1 (host) and a 4.7 development snapshot
    # (CUDA), hence 3.4 to 4.7.x. Kokkos 5 needs C++20 (mpsfw is C++17): untested.
    depends_on("kokkos@3.4:4.7", when="+kokkos")
    # A host Kokkos for a host build: CMake refuses a CUDA Kokkos without CUDA.
    depends_on("kokkos ~cuda", when="+kokkos ~cuda")
    # Kokkos' CUDA backend compiles with CUDA 13 from 4.7.02 on; built with CMake's
    # CUDA language (Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE), as mpsfw's CMake
    # expects and scripts/build_kokkos_cuda.sh does.
    depends_on("kokkos@4.7.02:4.7 +cuda +cmake_lang", when="+kokkos +cuda")
    # Kokkos builds for one GPU arch, which must be mpsfw's (so one cuda_arch with +kokkos).
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={_arch}", when=f"+kokkos +cuda cuda_arch={_arch}")
    depends_on("googletest@1.12:", type=("build", "test"), when="+tests")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("MPSFW_ENABLE_CUDA", "cuda"),
            self.define_from_variant("MPSFW_ENABLE_KOKKOS", "kokkos"),
            self.define_from_variant("MPSFW_BUILD_TESTS", "tests"),
            self.define("MPSFW_BUILD_BENCH", False),
            # A newer compiler's new warning must not break a package build.
            self.define("MPSFW_WARNINGS_AS_ERRORS", False),
        ]
        if spec.satisfies("+cuda"):
            archs = spec.variants["cuda_arch"].value
            if archs and archs[0] != "none":
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(archs)))
        if spec.satisfies("+kokkos"):
            args.append(self.define("Kokkos_ROOT", spec["kokkos"].prefix))
        return args
