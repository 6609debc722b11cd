#!/usr/bin/python3
"""spack.yaml parses, lists every package the CMake build looks for, and asks
for nothing that makes Spack build what a site already has: no Slurm support in
the specs (it builds a Slurm unless the site's is an external), no Python, an
upper bound on Kokkos, installed packages reused. Spack itself is not run here:
scripts/spack_concretize.sh concretizes the environment against a Spack checkout."""
import re
import sys

import yaml

root = sys.argv[1]
with open(root + "/spack.yaml") as f:
    env = yaml.safe_load(f)
specs = env["spack"]["specs"]
names = {re.split(r"[@+~ ]", s.strip())[0] for s in specs}
# What CMakeLists.txt and tests/ find, and the Spack package that provides it.
needed = {"cmake": "cmake_minimum_required", "cuda": "CUDAToolkit", "openmpi": "find_package(MPI",
          "hdf5": "find_package(HDF5", "googletest": "find_package(GTest"}
cmake_text = open(root + "/CMakeLists.txt").read() + open(root + "/tests/CMakeLists.txt").read()
problems = []
for package, marker in needed.items():
    if marker not in cmake_text:
        problems.append("CMake no longer uses %s (%s): update this check" % (package, marker))
    if package not in names:
        problems.append("spack.yaml does not list %s" % package)
if not any(s.startswith("openmpi") and "+cuda" in s for s in specs):
    problems.append("openmpi without +cuda")
if not any(s.startswith("hdf5") and "+mpi" in s for s in specs):
    problems.append("hdf5 without +mpi")
for s in specs:
    if "schedulers=slurm" in s:
        problems.append("%s: Slurm support belongs in packages: with the site's Slurm" % s)
    if re.match(r"(python|py-)", s):
        problems.append("%s: Python and its packages come from the system (Spack's add"
                        " some 75 packages to build)" % s)
    m = re.match(r"kokkos@(\S*)", s)
    if s.startswith("kokkos") and (not m or m.group(1).endswith(":")):
        problems.append("%s: no upper bound on Kokkos" % s)
    elif m and int(m.group(1).split(":")[-1].split(".")[0]) >= 5:
        problems.append("%s: Kokkos 5 needs C++20, mpsfw is C++17" % s)
if not (env["spack"].get("concretizer") or {}).get("reuse", False):
    problems.append("concretizer: reuse is not true")
for p in problems:
    print("FAIL:", p)
print("%d passed, %d failed" % (0 if problems else 1, 1 if problems else 0))
sys.exit(1 if problems else 0)
