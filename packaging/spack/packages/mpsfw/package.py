# Spack recipe for mpsfw (a repo of one package: `spack repo add packaging/spack`).
# Its dependencies follow what CMakeLists.txt looks up; tests/spack/check_recipe.py
# checks that it parses and names every one of them.
from spack.package import *


class Mpsfw(CMakePackage, CudaPackage):
    """A C++ framework for MPI+CUDA applications that run many MPI ranks on few
    GPUs, with NVIDIA MPS brought up, capped and verified from inside the job;
    a 3D heat and a Lennard-Jones MD solver on it."""

    # EDIT: where your site gets mpsfw from (the project has no public home yet).
    homepage = "https://github.com/mpsfw/mpsfw"
    git = "https://github.com/mpsfw/mpsfw.git"
    license("BSD-3-Clause")

    version("main", branch="main")

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
    # Kokkos' CUDA backend compiles with CUDA 13 from 4.7.02 on.
    depends_on("kokkos@3.4:", when="+kokkos")
    depends_on("kokkos@4.7.02: +cuda +wrapper", when="+kokkos +cuda")
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
