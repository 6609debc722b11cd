#!/usr/bin/python3
"""spack.yaml parses, and lists every package the CMake build looks for.
Spack itself is not available here: the environment is not built."""
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
for p in problems:
    print("FAIL:", p)
print("%d passed, %d failed" % (0 if problems else 1, 1 if problems else 0))
sys.exit(1 if problems else 0)
