#!/usr/bin/python3
"""MD checkpoints against a reference, atom by atom (matched by id): how many
position and velocity values differ, and by how much at most. The device
scripts compare runs that must agree bit for bit (ghost paths, GPU layouts).

  scripts/compare_md_checkpoints.py REFERENCE.h5 OTHER.h5 [OTHER.h5 ...]
"""
import sys

import h5py
import numpy as np


def by_id(path):
    f = h5py.File(path, "r")
    order = np.argsort(f["md/ids"][:])
    return {name: f["md/" + name][:][order] for name in ("positions", "velocities")}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    reference = by_id(sys.argv[1])
    for path in sys.argv[2:]:
        other = by_id(path)
        for name, x in reference.items():
            y = other[name]
            print("%s vs %s, %s: %d of %d values differ, largest difference %.3g"
                  % (path, sys.argv[1], name, np.count_nonzero(x != y), x.size,
                     float(np.abs(x - y).max())))


if __name__ == "__main__":
    main()
