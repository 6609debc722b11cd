#!/usr/bin/python3
"""packaging/spack/packages/mpsfw/package.py parses as Python, is a CMakePackage
and a CudaPackage with the variants kokkos and tests, and depends on every
package the CMake build looks for. Spack itself is not run here (see
docs/archive/performance-journal.md for what `spack spec` said where it was tried)."""
import ast
import sys

root = sys.argv[1]
path = root + "/packaging/spack/packages/mpsfw/package.py"
tree = ast.parse(open(path).read(), path)
problems = []
classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Mpsfw"]
if not classes:
    problems.append("no class Mpsfw")
else:
    bases = {b.id for b in classes[0].bases if isinstance(b, ast.Name)}
    for base in ("CMakePackage", "CudaPackage"):
        if base not in bases:
            problems.append("Mpsfw is not a " + base)
calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]


def first_args(name):
    return [c.args[0].value for c in calls
            if c.func.id == name and c.args and isinstance(c.args[0], ast.Constant)]


variants = set(first_args("variant"))
depends = {d.split("@")[0].split()[0].split("+")[0] for d in first_args("depends_on")}
for v in ("kokkos", "tests"):
    if v not in variants:
        problems.append("no variant " + v)
# What the CMake build finds, and the Spack package that provides it.
needed = {"find_package(MPI": "mpi", "find_package(HDF5": "hdf5", "find_package(CUDAToolkit": "cuda",
          "find_package(Kokkos": "kokkos", "find_package(GTest": "googletest",
          "cmake_minimum_required": "cmake"}
cmake_text = "".join(open(root + "/" + f).read()
                     for f in ("CMakeLists.txt", "cmake/MpsfwKokkos.cmake", "tests/CMakeLists.txt"))
for marker, package in needed.items():
    if marker not in cmake_text:
        problems.append("CMake no longer uses %s: update this check" % marker)
    if package not in depends:
        problems.append("package.py does not depend on %s (CMake: %s)" % (package, marker))
# Every variant reaches CMake.
text = open(path).read()
for v, option in (("cuda", "MPSFW_ENABLE_CUDA"), ("kokkos", "MPSFW_ENABLE_KOKKOS"),
                  ("tests", "MPSFW_BUILD_TESTS")):
    if 'define_from_variant("%s", "%s")' % (option, v) not in text:
        problems.append("variant %s does not set %s" % (v, option))
for p in problems:
    print("FAIL:", p)
print("package.py: %d problem(s); depends on %s" % (len(problems), ", ".join(sorted(depends))))
sys.exit(1 if problems else 0)
