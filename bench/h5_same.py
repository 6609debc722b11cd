#!/usr/bin/env python3
"""Whether two HDF5 files hold the same datasets with the same bytes (the
bit-for-bit check of the A/B scripts where h5diff is not installed, as on the
GPU machines; needs h5py). Exit 0: the same; 1: they differ (named); 2: an
error.
    bench/h5_same.py A.h5 B.h5"""
import sys

try:
    import h5py
except ImportError:
    print("h5_same.py: no h5py here", file=sys.stderr)
    sys.exit(2)


def datasets(path):
    found = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: found.__setitem__(name, obj[()].tobytes())
                     if isinstance(obj, h5py.Dataset) else None)
    return found


a, b = datasets(sys.argv[1]), datasets(sys.argv[2])
differ = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
for name in differ:
    print("differ: /%s%s" % (name, "" if name in a and name in b else " (in one file only)"))
sys.exit(1 if differ else 0)
