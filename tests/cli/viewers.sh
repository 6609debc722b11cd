#!/usr/bin/env bash
# The outputs as ParaView opens them: heat snapshots and the MD trajectory
# (2 ranks, the host backend) read by ParaView's three XDMF readers
# (Xdmf3ReaderS, the default for .xmf; Xdmf3ReaderT; the legacy XDMFReader)
# in pvbatch under xvfb. Heat: nx*ny*nz points and their cells at every
# time; MD: every atom a point AND a cell (a cloud with no cells shows
# nothing), plus the periodic box's outline (8 corners, 12 edges), at every
# frame's time. Skips (exit 77) without pvbatch, ParaView's Python or xvfb-run.
#   tests/cli/viewers.sh SOLVER MPIEXEC INPUT_DIR WORKDIR
set -uo pipefail
solver=$1 mpiexec=$2 inputs=$3 work=$4
for tool in pvbatch xvfb-run; do
  command -v "$tool" > /dev/null || { echo "SKIP: no $tool (Debian: paraview python3-paraview xvfb)"; exit 77; }
done
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
"$solver" --write-input heat_in.h5 --set heat.nx=6 --set heat.ny=5 --set heat.nz=4 --set run.steps=4 \
  --set run.output_every=2 > /dev/null || { echo "FAIL: --write-input"; exit 1; }
"$mpiexec" -n 2 "$solver" heat_in.h5 --backend host --mps off --output "$work/heat.h5" > heat.log 2>&1 ||
  { tail -5 heat.log; echo "FAIL: the heat run"; exit 1; }
"$mpiexec" -n 2 "$solver" "$inputs/md_lj.h5" --backend host --mps off --set md.cells_x=6 \
  --set md.cells_y=4 --set md.cells_z=4 --set run.steps=20 --set run.output_every=10 \
  --output "$work/md.h5" > md.log 2>&1 || { tail -5 md.log; echo "FAIL: the MD run"; exit 1; }
cat > read.py <<'PY'
import sys
from paraview import simple
bad = []
def check(path, points, cells, times):
    for name in ("Xdmf3ReaderS", "Xdmf3ReaderT", "XDMFReader"):
        make = getattr(simple, name)
        reader = make(FileNames=[path]) if name == "XDMFReader" else make(FileName=[path])
        got_times = list(reader.TimestepValues)
        if len(got_times) != times:
            bad.append("%s %s: %d times, expected %d" % (path, name, len(got_times), times))
        for t in got_times:
            reader.UpdatePipeline(time=t)
            info = reader.GetDataInformation()
            got = (info.GetNumberOfPoints(), info.GetNumberOfCells())
            if got != (points, cells):
                bad.append("%s %s at t=%g: %d points, %d cells; expected %d, %d"
                           % (path, name, t, got[0], got[1], points, cells))
        simple.Delete(reader)
atoms = 4 * 6 * 4 * 4
check(sys.argv[1] + "/heat.xmf", 6 * 5 * 4, 5 * 4 * 3, 3)
check(sys.argv[1] + "/md.xmf", atoms + 8, atoms + 12, 3)
print("\n".join(bad) if bad else "ok")
sys.exit(1 if bad else 0)
PY
if xvfb-run -a pvbatch read.py "$work" > read.log 2>&1 && grep -q "^ok$" read.log; then
  echo "viewers: ParaView's three XDMF readers see heat's grid and every atom as a point and a cell"
  exit 0
fi
grep -v "^\s*$" read.log | grep -v "HDF5-DIAG\|#0\|major:\|minor:" | tail -15
echo "FAIL: ParaView does not read the outputs as expected"
exit 1
