#!/usr/bin/env bash
# The MD trajectory as H5MD (--output md.h5md), read by a reader that is not
# ours: MDAnalysis's H5MD reader (Debian's python3-mdanalysis). The same run
# (2 ranks, host backend, 384 atoms, frames at steps 0, 10, 20) is also written
# as mpsfw's own .h5 trajectory, and every frame must agree: atoms, positions,
# velocities, box, step and time. The layout is checked with h5py against the
# H5MD 1.1 rules MDAnalysis does not check (the /h5md group, growing datasets,
# the box's attributes, ids). No .xmf is written beside an .h5md. Skips
# (exit 77) without a Python that imports MDAnalysis and h5py.
#   tests/cli/h5md_reader.sh SOLVER MPIEXEC PYTHON INPUT_DIR WORKDIR
set -uo pipefail
solver=$1 mpiexec=$2 python=$3 inputs=$4 work=$5
"$python" -c 'import MDAnalysis, h5py' 2>/dev/null ||
  { echo "SKIP: $python cannot import MDAnalysis and h5py (Debian: python3-mdanalysis python3-h5py)"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1 OMP_NUM_THREADS=1
for out in md.h5 md.h5md; do
  timeout 120 "$mpiexec" -n 2 "$solver" "$inputs/md_lj.h5" --backend host --mps off \
    --set md.cells_x=6 --set md.cells_y=4 --set md.cells_z=4 --set run.steps=20 \
    --set run.output_every=10 --output "$out" > "$out.log" 2>&1 ||
    { tail -5 "$out.log"; echo "FAIL: the MD run writing $out"; exit 1; }
done
grep -q "^output written to md.h5md (H5MD)" md.h5md.log ||
  { tail -3 md.h5md.log; echo "FAIL: the run does not say it wrote md.h5md as H5MD"; exit 1; }
[ ! -e md.h5md.xmf ] || { echo "FAIL: an .xmf beside the H5MD file"; exit 1; }

"$python" - <<'PY'
import sys
import warnings
import h5py
import numpy as np
import MDAnalysis as mda
from MDAnalysis.coordinates.H5MD import H5MDReader

warnings.simplefilter("ignore")  # MDAnalysis notes the missing topology
bad = []
ours = h5py.File("md.h5", "r")
frames = sorted(ours["frames"])
# The units are the solver's own (Lennard-Jones): no conversion. As
# docs/running.md says to open it.
u = mda.Universe("md.h5md", convert_units=False, n_atoms=H5MDReader.parse_n_atoms("md.h5md"))
if u.atoms.n_atoms != ours.attrs["atoms"]:
    bad.append("MDAnalysis sees %d atoms, the run has %d" % (u.atoms.n_atoms, ours.attrs["atoms"]))
if len(u.trajectory) != len(frames):
    bad.append("MDAnalysis sees %d frames, the run wrote %d" % (len(u.trajectory), len(frames)))
box = [ours.attrs["box_" + a] for a in "xyz"]
for ts, name in zip(u.trajectory, frames):
    f = ours["frames"][name]
    where = "frame %s (step %d)" % (name, f.attrs["step"])
    # MDAnalysis holds coordinates as float32.
    for got, want, what in ((ts.positions, f["positions"][...], "positions"),
                            (ts.velocities, f["velocities"][...], "velocities")):
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-6, atol=1e-6):
            bad.append("%s: %s differ (largest %.3g)" % (where, what,
                       np.max(np.abs(got - want)) if got.shape == want.shape else -1))
    if not np.allclose(ts.dimensions[:3], box) or not np.allclose(ts.dimensions[3:], 90):
        bad.append("%s: box %s, expected %s and right angles" % (where, ts.dimensions, box))
    if ts.data.get("step") != f.attrs["step"] or not np.isclose(ts.time, f.attrs["time"]):
        bad.append("%s: step %s time %s, expected %s %s" % (where, ts.data.get("step"), ts.time,
                                                           f.attrs["step"], f.attrs["time"]))

# The rules of H5MD 1.1 the reader does not look at.
h = h5py.File("md.h5md", "r")
if list(h["h5md"].attrs.get("version", [])) != [1, 1]:
    bad.append("/h5md version %s, expected [1, 1]" % h["h5md"].attrs.get("version"))
for group in ("author", "creator"):
    if group not in h["h5md"] or "name" not in h["h5md"][group].attrs:
        bad.append("/h5md/%s has no name" % group)
p = h["particles/trajectory"]
if p["box"].attrs.get("dimension") != 3 or [b.decode() if isinstance(b, bytes) else b
                                           for b in p["box"].attrs.get("boundary", [])] != ["periodic"] * 3:
    bad.append("box attributes %s" % dict(p["box"].attrs))
for element in ("position", "velocity", "id", "box/edges"):
    e = p[element]
    n = len(frames)
    if e["value"].maxshape[0] is not None:
        bad.append("%s/value cannot grow (maxshape %s)" % (element, e["value"].maxshape))
    if e["step"].shape != (n,) or e["time"].shape != (n,) or e["value"].shape[0] != n:
        bad.append("%s: step %s, time %s, value %s for %d frames" % (element, e["step"].shape,
                   e["time"].shape, e["value"].shape, n))
ids = p["id/value"][...]
for k, name in enumerate(frames):
    if not np.array_equal(ids[k], ours["frames"][name]["ids"][...]):
        bad.append("ids of frame %d differ" % k)
for line in bad:
    print("FAIL: " + line)
if not bad:
    print("PASS: MDAnalysis reads md.h5md: %d atoms, %d frames as md.h5 has them" % (u.atoms.n_atoms, len(frames)))
sys.exit(1 if bad else 0)
PY
