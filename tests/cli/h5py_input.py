#!/usr/bin/env python3
"""A heat input written with h5py, the way a Python user would, must run.

    h5py_input.py --solver PATH --workdir DIR [--mpiexec PATH] [--np-flag FLAG]
                  [--preflags "..."] [--timeout SECONDS]

Writes DIR/python_input.h5 with plain Python ints, floats and strs as
attributes and u0 as a numpy float64 array of shape (nz, ny, nx), runs
`mpiexec -n 2 solver python_input.h5 --output O.h5 --report R.json`, and checks:
exit code 0, the run summary, that the first snapshot in O.h5 is u0 exactly
(so the [nz][ny][nx] layout with x fastest is what the solver reads), and that
the total heat in R.json is sum(u0) dx dy dz at step 0 and stays so (periodic
walls conserve it). A second file uses numpy scalar types instead (int32,
float32, fixed-length byte strings) and must run too.
The recipe is in tests/cli/README.md. The last line is "N passed, M failed".
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys

import h5py
import numpy as np

NX, NY, NZ = 20, 12, 10


def make_u0():
    # Different along every axis, so a transposed read would not match.
    k, j, i = np.meshgrid(np.arange(NZ), np.arange(NY), np.arange(NX), indexing="ij")
    # Positive everywhere, so its sum is well conditioned.
    return (2.0 + np.sin(0.3 * i + 0.1) + 0.5 * np.cos(0.7 * j) + 0.25 * k / NZ).astype(np.float64)


def write_plain(path, u0):
    """The recipe of tests/cli/README.md: plain Python values."""
    with h5py.File(path, "w") as f:
        f.attrs["solver"] = "heat"
        run = f.create_group("run")
        run.attrs["steps"] = 30
        run.attrs["diag_every"] = 10
        heat = f.create_group("heat")
        heat.attrs["nx"] = NX
        heat.attrs["ny"] = NY
        heat.attrs["nz"] = NZ
        heat.attrs["dx"] = 0.01
        heat.attrs["dy"] = 0.01
        heat.attrs["dz"] = 0.01
        heat.attrs["diffusivity"] = 1e-4
        heat.attrs["dt"] = 0.1
        heat.attrs["amplitude"] = 1  # an int where a real is expected: fine
        heat.attrs["boundary"] = "periodic"
        heat.attrs["initial"] = "dataset"
        heat["u0"] = u0  # shape (nz, ny, nx), float64


def write_numpy_types(path, u0):
    """The same input with numpy scalar types and fixed-length strings."""
    with h5py.File(path, "w") as f:
        f.attrs["solver"] = np.bytes_(b"heat")
        run = f.create_group("run")
        run.attrs["steps"] = np.int32(30)
        heat = f.create_group("heat")
        for key, n in (("nx", NX), ("ny", NY), ("nz", NZ)):
            heat.attrs[key] = np.int32(n)
        for key in ("dx", "dy", "dz"):
            heat.attrs[key] = np.float32(0.01)
        heat.attrs["diffusivity"] = np.float64(1e-4)
        heat.attrs["dt"] = np.float32(0.1)
        heat.attrs["boundary"] = np.bytes_(b"periodic")
        heat.attrs["initial"] = np.bytes_(b"dataset")
        heat.create_dataset("u0", data=u0)


def run_solver(args, cwd, extra):
    cmd = [args.mpiexec, args.np_flag, "2"] + shlex.split(args.preflags) + [args.solver] + extra
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=args.timeout, text=True)
    except subprocess.TimeoutExpired as e:
        return cmd, None, e.stdout or "", e.stderr or ""
    return cmd, p.returncode, p.stdout, p.stderr


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def check_plain(args, work):
    problems = []
    u0 = make_u0()
    path = os.path.join(work, "python_input.h5")
    write_plain(path, u0)
    cmd, rc, out, err = run_solver(args, work, [path, "--output", "O.h5", "--report", "R.json"])
    if rc is None:
        problems.append("still running after %s s: killed (a rank hangs?)" % args.timeout)
    elif rc != 0:
        problems.append("exit code %d, expected 0" % rc)
    for text in ("heat run summary", "heat %dx%dx%d cells" % (NX, NY, NZ)):
        if text not in out:
            problems.append("missing on stdout: " + text)
    if rc == 0:
        try:
            with h5py.File(os.path.join(work, "O.h5"), "r") as f:
                first = f["/u/00000000"][...]
            if first.shape != u0.shape:
                problems.append("snapshot 0 has shape %s, u0 %s" % (first.shape, u0.shape))
            elif not np.array_equal(first, u0):
                problems.append("snapshot 0 differs from u0 (max difference %g): layout mix-up?"
                                % np.max(np.abs(first - u0)))
            with open(os.path.join(work, "R.json")) as f:
                report = json.load(f)
            rows = report["diagnostics"]
            expected = float(np.sum(u0)) * 0.01 ** 3
            if [r["step"] for r in rows] != [0, 10, 20, 30]:
                problems.append("diagnostics at steps %s, expected [0, 10, 20, 30]"
                                % [r["step"] for r in rows])
            if not close(rows[0]["total_heat"], expected, 1e-12):
                problems.append("total heat at step 0 is %r, sum(u0) dx dy dz = %r"
                                % (rows[0]["total_heat"], expected))
            if not close(rows[-1]["total_heat"], expected, 1e-9):
                problems.append("total heat at the end is %r, expected it conserved: %r"
                                % (rows[-1]["total_heat"], expected))
        except (OSError, KeyError, ValueError, IndexError) as e:
            problems.append("cannot check O.h5 / R.json: %s: %s" % (type(e).__name__, e))
    return "plain Python values (README recipe)", cmd, rc, out, err, problems


def check_numpy_types(args, work):
    problems = []
    path = os.path.join(work, "numpy_types.h5")
    write_numpy_types(path, make_u0())
    cmd, rc, out, err = run_solver(args, work, [path])
    if rc is None:
        problems.append("still running after %s s: killed (a rank hangs?)" % args.timeout)
    elif rc != 0:
        problems.append("exit code %d, expected 0" % rc)
    if "heat run summary" not in out:
        problems.append("missing on stdout: heat run summary")
    return "numpy int32/float32 and fixed-length strings", cmd, rc, out, err, problems


def show(label, text):
    lines = text.splitlines()
    print("    --- %s ---" % label)
    for line in lines[:40] or ["(empty)"]:
        print("    | " + line)
    if len(lines) > 40:
        print("    | ... (%d lines in all)" % len(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--solver", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--preflags", default="")
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    for var, value in (("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
                       ("OMPI_MCA_rmaps_base_oversubscribe", "1"), ("OMPI_MCA_pml", "ob1"),
                       ("OMP_NUM_THREADS", "1")):
        os.environ.setdefault(var, value)

    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    passed = failed = 0
    for check in (check_plain, check_numpy_types):
        work = os.path.join(args.workdir, check.__name__)
        os.makedirs(work)
        name, cmd, rc, out, err, problems = check(args, work)
        if not problems:
            print("PASS  %s  (exit %s)" % (name, rc))
            passed += 1
            continue
        print("FAIL  %s" % name)
        print("    command: (in %s) %s" % (work, " ".join(shlex.quote(c) for c in cmd)))
        for p in problems:
            print("    - " + p)
        show("stdout", out)
        show("stderr", err)
        failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
