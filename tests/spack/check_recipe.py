#!/usr/bin/python3
"""packaging/spack/packages/mpsfw/package.py parses as Python, is a CMakePackage
and a CudaPackage with the variants kokkos and tests, depends on every package
the CMake build looks for, has a release version with a url and sha256 (so
`spack fetch` can work), passes its cuda_arch on to Kokkos, and bounds Kokkos
to versions mpsfw's C++ standard builds with. Spack itself is not run here:
scripts/spack_concretize.sh concretizes the recipe against a Spack checkout."""
import ast
import re
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
# A release Spack can fetch and check: a url, and a version with a sha256.
assigned = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign)
            for t in n.targets if isinstance(t, ast.Name)}
if "url" not in assigned:
    problems.append("no url: no release can be fetched")
sha_versions = [c.args[0].value for c in calls if c.func.id == "version" and c.args
                and isinstance(c.args[0], ast.Constant)
                and any(k.arg == "sha256" and isinstance(k.value, ast.Constant)
                        and re.fullmatch(r"[0-9a-f]{64}", str(k.value.value)) for k in c.keywords)]
project = re.search(r"project\(mpsfw VERSION ([0-9.]+)", cmake_text)
if not sha_versions:
    problems.append("no version with a sha256 (only branches cannot be fetched as releases)")
elif project and project.group(1) not in sha_versions:
    problems.append("no version %s (CMake's project VERSION) with a sha256" % project.group(1))


def text_of(node):
    """The literal parts of a string or f-string."""
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.JoinedStr):
        return "".join(text_of(v) for v in node.values if isinstance(v, ast.Constant))
    return ""


# cuda_arch reaches Kokkos: a loop over CudaPackage.cuda_arch_values with
# depends_on("kokkos cuda_arch=...", when="+kokkos +cuda cuda_arch=...").
propagates = False
for loop in (n for n in ast.walk(tree) if isinstance(n, ast.For)):
    it = loop.iter
    if not (isinstance(it, ast.Attribute) and it.attr == "cuda_arch_values"):
        continue
    for c in ast.walk(loop):
        if (isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "depends_on"
                and c.args and text_of(c.args[0]).startswith("kokkos")
                and "cuda_arch=" in text_of(c.args[0])):
            when = "".join(text_of(k.value) for k in c.keywords if k.arg == "when")
            propagates = propagates or ("+kokkos" in when and "cuda_arch=" in when)
if not propagates:
    problems.append("cuda_arch is not passed to kokkos (depends_on kokkos cuda_arch=X "
                    "when +kokkos +cuda cuda_arch=X, for each of CudaPackage.cuda_arch_values)")

# Every Kokkos version range is closed above, below a Kokkos the C++ standard
# of CMakeLists.txt cannot build with (Kokkos 5 needs C++20).
std = re.search(r"set\(CMAKE_CXX_STANDARD (\d+)\)", cmake_text)
kokkos = [d for d in first_args("depends_on") if re.match(r"kokkos\b", d)]
ranges = [m.group(1) for d in kokkos for m in [re.match(r"kokkos@([^\s+~]+)", d)] if m]
if not ranges:
    problems.append("kokkos has no version range")
for r in ranges:
    upper = r.split(":")[-1] if ":" in r else r
    if not upper:
        problems.append("kokkos@%s has no upper bound (a new major version may not build)" % r)
    elif std and int(std.group(1)) < 20 and int(upper.split(".")[0]) >= 5:
        problems.append("kokkos@%s allows Kokkos 5, which needs C++20 (CMake: C++%s)"
                        % (r, std.group(1)))
for p in problems:
    print("FAIL:", p)
print("package.py: %d problem(s); depends on %s; versions with sha256: %s; kokkos@%s"
      % (len(problems), ", ".join(sorted(depends)), ", ".join(sha_versions) or "none",
         ", kokkos@".join(ranges) or "?"))
sys.exit(1 if problems else 0)
