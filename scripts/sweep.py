#!/usr/bin/python3
"""Ranks-per-GPU study: how many ranks per GPU, and does MPS pay?

Runs the solver on one input at several ranks per GPU x sharing modes x
scaling kinds, with repeats; collects every run.json into one CSV, draws PNG
plots (aggregate throughput and efficiency vs ranks per GPU, one line per
sharing mode) and writes a Markdown summary.

  scripts/sweep.py INPUT.h5 --out DIR [--ranks-per-gpu 1,2,4,8,16]
      [--modes timeslice,mps,mps-caps] [--scaling strong,weak] [--repeats 3]
      [--gpus N] [--nodes N] [--launcher mpirun|srun] [--solver PATH] [--set key=value ...]
  scripts/sweep.py --command "./app args" --out DIR [--time REGEX | --rate REGEX]
      [--mpsfw-run PATH] [--ranks-per-gpu ...] [--modes ...] [--repeats N] ...
  scripts/sweep.py --plot-only --out DIR     (plots and summary again from DIR/sweep.csv)

--command: any MPI+CUDA program instead of an mpsfw input, launched through
mpsfw-run in this folder and timed by its wall clock or by a figure it prints
(scripts/command_point.py); strong scaling only (its problem is its own).

--baseline DIR (a finished sweep of the same points on fewer GPUs, e.g. --gpus 1)
adds to the summary each point's speed-up over it and that speed-up per added
GPU (1.00: the GPUs scale perfectly).

Sharing modes: timeslice = --mps off; mps = MPS without caps (--mps-atp 100);
mps-caps = MPS with the auto cap. Strong scaling keeps the input's problem;
weak scaling gives every rank the input's problem (heat: its grid as each
rank's block; md: its FCC cells per rank, so N atoms per rank; any solver: the
keys its report's weak_scaling names). Without a GPU
the MPS modes are skipped (they could only repeat time-slicing's runs), and
the sweep says so. A point that asked for MPS and did not get it
(verification failed) is marked in the CSV and drawn hollow, never as MPS. A run that fails is a row marked
FAILED (exit code, log) in the CSV, a line in the summary, and a non-zero exit
of the sweep once every point was tried; a run past --timeout is ended with
every process it started and is such a row. SIGINT or SIGTERM ends the running
run the same way, prints one line and exits 130 / 143. Resumable: runs whose
report exists are not repeated; a DIR holding results of another input, build
or --set list is refused. A checkpoint input runs from its saved step.
"""
import argparse
import csv
import json
import os
import shutil
import re
import statistics
import subprocess
import sys
import time

import command_point
import run_session

MODES = {
    "timeslice": ["--mps", "off"],
    "mps": ["--mps-atp", "100"],
    "mps-caps": ["--mps-atp", "auto"],
}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_program(short):
    """A program's path: this checkout's build (build/default/apps/SHORT),
    else the installed mpsfw-SHORT of the prefix these scripts are installed
    in (PREFIX/share/mpsfw/scripts -> PREFIX/bin), else mpsfw-SHORT on PATH;
    the build's path (for the error) when none is there."""
    built = os.path.join(ROOT, "build", "default", "apps", short)
    installed = os.path.join(ROOT, "..", "..", "bin", "mpsfw-" + short)
    for path in (built, os.path.normpath(installed), shutil.which("mpsfw-" + short)):
        if path and os.access(path, os.X_OK):
            return path
    return built


def rank_grid(ranks):
    """A balanced px*py*pz = ranks for weak scaling, the smallest factor along x
    and the largest along z: heat cuts x last (its x faces are strided rows),
    as the solver's own choice does."""
    dims = [1, 1, 1]
    n = ranks
    factors = []
    f = 2
    while n > 1:
        while n % f == 0:
            factors.append(f)
            n //= f
        f += 1
    for f in sorted(factors, reverse=True):
        dims[dims.index(min(dims))] *= f
    return sorted(dims)


def mpsctl_of(program):
    """The mpsctl beside `program` (the solver or mpsfw-run: a build's apps/mpsctl,
    an install's bin/mpsfw-mpsctl), else on PATH; None without one."""
    for name in ("mpsctl", "mpsfw-mpsctl"):
        near = os.path.join(os.path.dirname(os.path.abspath(program)), name) if program else ""
        if near and os.access(near, os.X_OK):
            return near
    return shutil.which("mpsfw-mpsctl") or shutil.which("mpsctl")


def gpus_here(solver=None):
    """(number of GPUs, name of the first): the GPUs ranks started here would
    use, as the solver's bring-up finds them (`mpsctl gpus`:
    CUDA_VISIBLE_DEVICES applied, MIG instances as GPUs of their own); without
    mpsctl every GPU nvidia-smi -L lists; (0, "") without either. The name is
    nvidia-smi's."""
    try:
        out = run_session.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    names = [l.split(":", 1)[1].split("(UUID")[0].strip() for l in out.splitlines()
             if l.startswith("GPU ") and ":" in l]
    mpsctl = mpsctl_of(solver)
    if mpsctl:
        try:
            listed = run_session.run([mpsctl, "gpus"], capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            sys.exit("cannot list the GPUs: %s gpus did not answer in 60 s" % mpsctl)
        if listed.returncode != 0:
            sys.exit("cannot list the GPUs (%s gpus): %s" % (mpsctl, listed.stderr.strip()))
        gpus = [l.split()[2] for l in listed.stdout.splitlines() if l.startswith("gpu ")]
        return len(gpus), (names[0] if gpus and names else "")
    return len(names), (names[0] if names else "")


def title_note(gpus, device, backend):
    if not gpus:
        return "%s: no GPU on this machine, MPS modes skipped (they cannot be active)" % (
            "a command" if backend == "command" else "host backend")
    return "%d GPU(s) per node%s, %s" % (gpus, " (%s)" % device if device else "",
                                         "a command through mpsfw-run" if backend == "command"
                                         else backend + " backend")


def read_sweep(out_dir):
    """(rows, provenance) of a finished sweep; exits naming what is missing."""
    try:
        with open(os.path.join(out_dir, "sweep.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(out_dir, "provenance.json")) as f:
            prov = json.load(f)
    except OSError as e:
        sys.exit("sweep: --plot-only and --baseline: %s needs a finished sweep: %s" % (out_dir, e))
    if not rows:
        sys.exit("sweep: %s/sweep.csv has no rows" % out_dir)
    return rows, prov


def write_results(rows, out_dir, note, prov, gpus=0, baseline=None):
    with open(os.path.join(out_dir, "sweep.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plots = plot(rows, out_dir, note, prov)
    summary(rows, out_dir, note, plots, gpus, baseline)
    print("wrote %s, %s and %d plot(s)" % (os.path.join(out_dir, "sweep.csv"),
                                           os.path.join(out_dir, "summary.md"), len(plots)))
    noisy = spread_points(rows)
    if noisy:
        print("%d point(s) whose repeats spread more than %d %% of their median: see summary.md"
              % (len(noisy), round(100 * SPREAD_NOTED)))


def plot_only(out_dir, baseline=None):
    """Plots and summary again from a finished sweep (e.g. on a machine with matplotlib)."""
    rows, prov = read_sweep(out_dir)
    write_results(rows, out_dir, title_note(prov.get("gpus", 0), prov.get("device", ""),
                                            rows[0]["backend"]), prov, prov.get("gpus", 0), baseline)


def solver_errors(done):
    """A failed solver run's own error lines (without the launcher's), else its output's tail."""
    lines = [l for l in (done.stderr + done.stdout).splitlines() if l.startswith("mpsfw:")]
    return "\n".join(lines) if lines else (done.stderr or done.stdout)[-2000:]


def saved_step(args, who="sweep"):
    """The step the input's state was saved at: a checkpoint's root attribute
    `step` (its run.steps counts from step 0, so a run of N steps from it
    sets run.steps = step + N); 0 for an input that starts at step 0."""
    try:
        done = run_session.run([args.solver, "--describe", args.input, "--as-set"],
                               capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        sys.exit("%s: %s --describe %s did not finish in 60 s" % (who, args.solver, args.input))
    if done.returncode != 0:
        sys.exit("%s: cannot read %s with %s:\n%s" % (who, args.input, args.solver, solver_errors(done)))
    # The deck prints the state's step as a comment: "# step=10: the saved
    # state's, not a setting".
    for line in done.stdout.splitlines():
        found = re.match(r"#?\s*step=(\d+)", line)
        if found:
            return int(found.group(1))
    return 0


def input_report(args, launcher_cmd, who="sweep"):
    """The report of the shortest host run of the input with the --set values
    (none of its outputs written): what the input asks for, checked as a run
    checks it. A fresh input runs zero steps; a checkpoint one step from its
    saved step (the solver runs nothing, and reports nothing, at the step it
    was saved at)."""
    report = os.path.join(os.environ.get("TMPDIR", "/tmp"), "mpsfw-%s-probe-%d.json" % (who, os.getpid()))
    sets = [w for s in args.set for w in ("--set", s)]
    start = saved_step(args, who)
    cmd = launcher_cmd(1) + [args.solver, args.input] + sets + [
        "--set", "run.steps=%d" % (start + 1 if start > 0 else 0), "--set", "run.output_file=",
        "--set", "run.checkpoint_file=", "--mps", "off", "--backend", "host", "--report", report]
    try:
        done = run_session.run(cmd, capture_output=True, text=True, timeout=300)
        if done.returncode != 0 or not os.path.exists(report):
            sys.exit("%s: cannot read %s with %s:\n%s" % (who, args.input, args.solver, solver_errors(done)))
        with open(report) as f:
            return json.load(f)
    except subprocess.TimeoutExpired:
        sys.exit("%s: a host run of %s to read its size did not finish in 300 s" % (who, args.input))
    finally:
        if os.path.exists(report):  # its own, named by its pid
            os.remove(report)


def input_size(args, launcher_cmd):
    """What the input (with the sweep's --set values) asks for, from a short host
    run's report (input_report): the solver, the keys weak scaling multiplies (the workload
    names them in the report's weak_scaling: heat.nx/ny/nz, md.cells_x/y/z, a
    solver of one's own its own) and their values (else the global grid), the
    build's revision and the input's hash."""
    r = input_report(args, launcher_cmd)
    weak = r.get("weak_scaling", {})
    keys = weak.get("keys", [])
    if keys:
        size = [int(r["parameters"][k]) for k in keys]
    else:
        size = r["global_cells"]
        if "weak" in args.scaling.split(","):
            sys.exit("sweep: %s cannot be weak-scaled: %s; use --scaling strong" %
                     (args.input, weak.get("refusal", "its report names no keys to scale")))
    return r.get("solver", "heat"), keys, size, r["git_revision"], r["input_fnv1a64"]


def point_sets(args, point):
    """A point's own key=value settings: its grid in the keys weak scaling
    grows, and for weak scaling the rank grid by which the global grid grew, so
    that each rank keeps its block. Strong scaling leaves the rank grid to the
    solver (heat cuts x last)."""
    sets = ["%s=%d" % (key, value) for key, value in zip(args.weak_keys, point["grid"])]
    if point["scaling"] == "weak":
        dims = rank_grid(point["ranks"])
        sets += ["run.px=%d" % dims[0], "run.py=%d" % dims[1], "run.pz=%d" % dims[2]]
    return sets


def run_point(args, launcher_cmd, point, report):
    """Runs a point: the solver on the input, or the --command through mpsfw-run
    (its record written from its output); 0, or the failed run's code."""
    ranks, mode = point["ranks"], point["mode"]
    mps = list(MODES[mode])
    if mode != "timeslice":
        mps = ["--mps", args.mps_enable] + mps
    if args.command:
        cmd = launcher_cmd(ranks) + command_point.wrapped(args, mps, report + ".run")
    else:
        # The sweep's own values last: they win over the user's --set of the same key.
        sets = [w for s in args.set + point_sets(args, point) for w in ("--set", s)]
        cmd = launcher_cmd(ranks) + [args.solver, args.input] + sets + mps + ["--report", report + ".tmp"]
    log = report[:-5] + ".log"
    rc = None
    try:
        with open(log, "w") as out:
            started = time.monotonic()
            try:
                rc = run_session.run(cmd, stdout=out, stderr=subprocess.STDOUT,
                                     timeout=args.timeout).returncode
            except subprocess.TimeoutExpired:
                rc = run_session.TIMED_OUT
                out.write("\nended after --timeout %g s, with every process it started\n" % args.timeout)
        if rc == 0 and args.command:
            why = command_point.write_record(args, ranks, log, time.monotonic() - started,
                                             report + ".run", report + ".tmp")
            if why:
                rc = run_session.NO_FIGURE
                with open(log, "a") as out:
                    out.write("\nsweep: %s\n" % why)
    finally:
        if os.path.exists(report + ".run"):
            os.remove(report + ".run")
        if rc != 0 and os.path.exists(report + ".tmp"):  # an ended run's: never trusted
            os.remove(report + ".tmp")
    if rc != 0:
        print("  run FAILED (%s), see %s" % (run_session.exit_text(rc, args.timeout), log))
        return rc
    os.replace(report + ".tmp", report)  # complete or absent: resuming trusts it
    return 0


def point_row(point, report):
    with open(report) as f:
        r = json.load(f)
    m = r.get("mps_details", {})
    state = m.get("state", "")
    verified, expected = int(m.get("verified_clients", "0") or 0), int(m.get("expected_clients", "0") or 0)
    asked = point["mode"] != "timeslice"
    got = state.startswith("active") and expected > 0 and verified == expected
    sms = [str(rank["sms"]) for rank in m.get("per_rank", []) if "sms" in rank]
    return {
        "scaling": point["scaling"], "ranks_per_gpu": point["rpg"], "ranks": point["ranks"],
        "mode": point["mode"], "repeat": point["repeat"], "backend": r["backend"],
        "global_cells": "x".join(str(v) for v in r["global_cells"]),
        "updates_per_second": r["updates_per_second"], "loop_seconds": r["loop_seconds"],
        "mps_state": state, "verified_clients": verified, "expected_clients": expected,
        "sms_per_rank": " ".join(sms), "mps_as_asked": "yes" if (got or not asked) else "NO",
        "git_revision": r["git_revision"], "input_fnv1a64": r["input_fnv1a64"],
        "throughput_unit": r.get("throughput_unit", "cell-updates/s"),
        "status": "ok",
    }


def failed_row(point, rc, log, like, timeout):
    """A point that did not complete, as a marked row: no figures, the exit code
    (or the timeout that ended it) and log."""
    row = {key: "" for key in like}
    row.update({"scaling": point["scaling"], "ranks_per_gpu": point["rpg"], "ranks": point["ranks"],
                "mode": point["mode"], "repeat": point["repeat"],
                "status": "FAILED (%s, %s)" % (run_session.exit_text(rc, timeout), os.path.relpath(log))})
    return row


def completed(rows):
    return [r for r in rows if r.get("status", "ok") == "ok"]


def points(rows):
    """The completed rows of each point, keyed (scaling, mode, ranks per GPU)."""
    groups = {}
    for row in completed(rows):
        key = (row["scaling"], row["mode"], int(row["ranks_per_gpu"]))
        groups.setdefault(key, []).append(row)
    return groups


def medians(rows):
    out = {}
    for key, group in points(rows).items():
        out[key] = (statistics.median(float(r["updates_per_second"]) for r in group),
                    all(r["mps_as_asked"] == "yes" for r in group))
    return out


# Repeats of a point that differ by more than this fraction of their median
# are listed in the summary: its median then says less than its digits.
SPREAD_NOTED = 0.10


def spread_points(rows):
    """[(key, spread, values)] of the points whose completed repeats spread more
    than SPREAD_NOTED of their median ((max - min) / median), largest first."""
    out = []
    for key, group in points(rows).items():
        values = [float(r["updates_per_second"]) for r in group]
        mid = statistics.median(values)
        if len(values) > 1 and mid > 0 and (max(values) - min(values)) / mid > SPREAD_NOTED:
            out.append((key, (max(values) - min(values)) / mid, sorted(values)))
    return sorted(out, key=lambda p: -p[1])


def spread_lines(rows):
    """The summary's section on points whose repeats disagree (none: no lines)."""
    points = spread_points(rows)
    if not points:
        return []
    lines = ["## Repeats that disagree (%d point(s))" % len(points), "",
             "Their repeats spread more than %d %% of the median. Short loops are often why: a "
             "loop of a fraction of a second also times start-up (MD's first list build, the "
             "first launches of each MPS client); more steps (`--set run.steps=...`) or repeats "
             "steady them." % round(100 * SPREAD_NOTED), ""]
    lines += ["- %s scaling, %d ranks/GPU, %s: spread %.0f %% (%s)"
              % (k[0], k[2], k[1], 100 * spread, ", ".join("%.4g" % v for v in values))
              for k, spread, values in points]
    return lines + [""]


def plot(rows, out_dir, title_note, prov):
    """sweep_<scaling>.png of each scaling kind (scripts/sweep_plot.py)."""
    import sweep_plot  # here: advise imports this module and draws nothing
    return sweep_plot.draw(points(rows), medians(rows), prov, out_dir, title_note)


def baseline_lines(med, scaling, gpus, baseline):
    """The speed-up table over a sweep on fewer GPUs (--baseline), same points."""
    base_rows, prov = read_sweep(baseline)
    base, base_gpus = medians(base_rows), prov.get("gpus", 0)
    if not base_gpus or gpus <= base_gpus:
        return ["(--baseline %s ran on %s GPU(s), this sweep on %s: no speed-up to show)"
                % (baseline, base_gpus, gpus), ""]
    lines = ["Speed-up over %d GPU(s) (%s): this sweep's throughput / the baseline's, and per "
             "added GPU (/ %d GPUs x %d)." % (base_gpus, os.path.relpath(baseline, os.path.dirname(baseline) or "."),
                                               gpus, base_gpus), "",
             "| ranks/GPU | " + " | ".join("%s speed-up | %s per GPU" % (m, m) for m in MODES) + " |",
             "|---" * (2 * len(MODES) + 1) + "|"]
    for rpg in sorted({k[2] for k in med if k[0] == scaling}):
        cells = []
        for m in MODES:
            v, b = med.get((scaling, m, rpg)), base.get((scaling, m, rpg))
            if v is None or b is None or not v[1] or not b[1]:
                cells += ["—", "—"]
            else:
                up = v[0] / b[0]
                cells += ["%.2f" % up, "%.2f" % (up * base_gpus / gpus)]
        lines.append("| %d | %s |" % (rpg, " | ".join(cells)))
    return lines + [""]


def summary(rows, out_dir, title_note, plots, gpus=0, baseline=None):
    med = medians(rows)
    lines = ["# Ranks-per-GPU sweep", "", title_note, ""]
    for scaling in sorted({k[0] for k in med}):
        best = max(((v[0], k) for k, v in med.items() if k[0] == scaling and v[1]), default=None)
        lines += ["## %s scaling" % scaling, ""]
        if best:
            lines += ["Best: %s at %d ranks per GPU, %.4g %s." % (best[1][1], best[1][2], best[0],
                                                                rows[0].get("throughput_unit", "cell-updates/s")), ""]
        lines += ["| ranks/GPU | " + " | ".join(MODES) + " | mps / timeslice | mps-caps / timeslice |",
                  "|---" * (len(MODES) + 3) + "|"]
        for rpg in sorted({k[2] for k in med if k[0] == scaling}):
            v = {m: med.get((scaling, m, rpg)) for m in MODES}
            cell = lambda m: "—" if v[m] is None else ("%.4g" % v[m][0]) + ("" if v[m][1] else " (MPS NOT active)")
            ts = v["timeslice"][0] if v["timeslice"] else None
            ratio = lambda m: ("—" if v[m] is None or not ts or not v[m][1]
                               else "%.2f" % (v[m][0] / ts))
            lines.append("| %d | %s | %s | %s |" % (rpg, " | ".join(cell(m) for m in MODES),
                                                   ratio("mps"), ratio("mps-caps")))
        lines += ["", "Efficiency: throughput / throughput at 1 rank per GPU, same mode.", "",
                  "| ranks/GPU | " + " | ".join(MODES) + " |", "|---" * (len(MODES) + 1) + "|"]
        for rpg in sorted({k[2] for k in med if k[0] == scaling}):
            def eff(m):
                v, one = med.get((scaling, m, rpg)), med.get((scaling, m, 1))
                if v is None or one is None or not v[1]:
                    return "—"
                return "%.2f" % (v[0] / one[0])
            lines.append("| %d | %s |" % (rpg, " | ".join(eff(m) for m in MODES)))
        lines.append("")
        if baseline:
            lines += baseline_lines(med, scaling, gpus, baseline)
    lines += spread_lines(rows)
    failed = [r for r in rows if r.get("status", "ok") != "ok"]
    if failed:
        lines += ["## Failed points (%d): no figures, left out of the tables above" % len(failed), ""]
        lines += ["- %s scaling, %s ranks/GPU, %s, repeat %s: %s" % (r["scaling"], r["ranks_per_gpu"], r["mode"],
                                                                  r["repeat"], r["status"]) for r in failed]
        lines.append("")
    lines += ["Plots: " + ", ".join(os.path.basename(p) for p in plots) if plots else "No plots.", ""]
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write("\n".join(lines))


def check_launcher(args, error):
    """--launcher srun needs an allocation to start ranks in: say so, rather
    than fail later on the input."""
    if args.launcher == "srun" and "SLURM_JOB_ID" not in os.environ:
        error("--launcher srun starts ranks inside a Slurm allocation (salloc, or a job script); "
              "SLURM_JOB_ID is not set here (use --launcher mpirun outside Slurm)")


def launcher(args):
    """The command that starts n ranks: srun (args.nodes, args.srun_mpi) or mpirun."""
    if args.launcher == "srun":
        # A rank that exits with an error ends the step's other ranks (slurm/README.md).
        return lambda n: ["srun", "--mpi=" + args.srun_mpi, "--kill-on-bad-exit=1",
                          "-N", str(min(args.nodes, n)), "-n", str(n)]
    # No binding by mpirun: Open MPI binds to a core below 3 ranks, which gave a
    # 1-rank host baseline one core of the node's while 2 ranks got two (a host
    # "efficiency" above 1); mpsfw places its ranks and threads itself.
    return lambda n: ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(n)]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", nargs="?")
    p.add_argument("--out", required=True)
    p.add_argument("--plot-only", action="store_true", help="redraw from OUT/sweep.csv, run nothing")
    p.add_argument("--baseline", help="a finished sweep on fewer GPUs: the summary adds the speed-up over it")
    p.add_argument("--ranks-per-gpu", default="1,2,4,8,16")
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--scaling", default=None, help="strong,weak (default; a --command: strong)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--gpus", type=int, default=None,
                   help="GPUs per node (default: the ones ranks would use, mpsctl gpus; 0 = host; "
                        "fewer than the node has: "
                        "the first ones, through CUDA_VISIBLE_DEVICES unless it is set)")
    p.add_argument("--nodes", type=int, default=int(os.environ.get("SLURM_NNODES", "1")),
                   help="nodes to spread ranks over (srun; default $SLURM_NNODES or 1)")
    p.add_argument("--launcher", choices=["mpirun", "srun"], default="mpirun")
    p.add_argument("--srun-mpi", default="pmix",
                   help="srun's --mpi plugin with --launcher srun (default pmix)")
    p.add_argument("--solver", default=default_program("solver"))
    p.add_argument("--set", action="append", default=[], help="group.key=value for every run")
    p.add_argument("--timeout", type=float, default=600, help="seconds one run may take")
    command_point.add_arguments(p)
    args = p.parse_args()
    if args.plot_only:
        return plot_only(args.out, args.baseline)
    if bool(args.input) == bool(args.command):
        p.error("give an INPUT or a --command (except with --plot-only)")
    command_point.setup(args, default_program("run"), p.error)
    check_launcher(args, p.error)
    if args.scaling is None:
        args.scaling = "strong" if args.command else "strong,weak"
    if args.command and args.scaling != "strong":
        p.error("--command: strong scaling only (the program's problem is its own to grow)")
    if os.geteuid() == 0:  # Open MPI refuses root unless told (containers, CI)
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    args.input = os.path.abspath(args.input) if args.input else None
    gpus, device = gpus_here(args.wrapper if args.command else args.solver)
    if args.gpus is not None:
        if 0 < args.gpus < gpus and "CUDA_VISIBLE_DEVICES" not in os.environ:
            # Fewer GPUs than the node has: the runs see only the first ones.
            os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(str(g) for g in range(args.gpus))
        gpus = args.gpus
    device = device if gpus else ""
    # With GPUs a point that asks for MPS must get it. Without, MPS cannot be
    # active: its modes would only repeat time-slicing's runs, so they are skipped.
    args.mps_enable = "on" if gpus > 0 else "auto"
    modes = args.modes.split(",")
    if gpus == 0 and any(m != "timeslice" for m in modes):
        skipped = [m for m in modes if m != "timeslice"]
        modes = [m for m in modes if m == "timeslice"]
        if not modes:
            sys.exit("sweep: no GPU here, and --modes %s asks only for MPS modes, which cannot be "
                     "active on the host backend; add timeslice or run where a GPU is"
                     % ",".join(skipped))
        print("sweep: no GPU here: mode(s) %s skipped (MPS cannot be active on the host backend)"
              % ",".join(skipped))
    args.modes = ",".join(modes)
    per_node = max(gpus, 1)
    launcher_cmd = launcher(args)
    os.makedirs(os.path.join(args.out, "runs"), exist_ok=True)
    if args.command:
        args.weak_keys, grid, revision, input_hash = [], [], "", command_point.fingerprint(args)
        print("sweep: %s through mpsfw-run, timed by %s" % (args.command, command_point.measure_name(args)))
    else:
        _, args.weak_keys, grid, revision, input_hash = input_size(args, launcher_cmd)
    stamp = os.path.join(args.out, "provenance.json")
    mine = {"input": args.input or args.command, "input_fnv1a64": input_hash, "git_revision": revision,
            "set": args.set, "gpus": gpus, "device": device}
    if os.path.exists(stamp):
        with open(stamp) as f:
            old = json.load(f)
        was = (old["input_fnv1a64"], old["git_revision"], old.get("set", []))
        if was != (input_hash, revision, args.set):
            sys.exit("sweep: %s holds results of input %s / build %s / --set %s, not %s / %s / %s;"
                     " use another --out" % ((args.out,) + was + (input_hash, revision, args.set)))
    else:
        with open(stamp, "w") as f:
            json.dump(mine, f, indent=1)

    points = []
    for scaling in args.scaling.split(","):
        for rpg in (int(v) for v in args.ranks_per_gpu.split(",")):
            ranks = rpg * per_node * (args.nodes if args.launcher == "srun" else 1)
            if scaling == "weak":
                d = rank_grid(ranks)
                g = [grid[0] * d[0], grid[1] * d[1], grid[2] * d[2]]
            else:
                g = list(grid)
            for mode in args.modes.split(","):
                for repeat in range(1, args.repeats + 1):
                    points.append({"scaling": scaling, "rpg": rpg, "ranks": ranks, "grid": g,
                                   "mode": mode, "repeat": repeat})
    rows, failures = [], []
    for i, pt in enumerate(points):
        name = "%s-rpg%d-%s-r%d.json" % (pt["scaling"], pt["rpg"], pt["mode"], pt["repeat"])
        report = os.path.join(args.out, "runs", name)
        if os.path.exists(report):
            print("[%d/%d] %s: done before" % (i + 1, len(points), name))
        else:
            print("[%d/%d] %s" % (i + 1, len(points), name), flush=True)
            rc = run_point(args, launcher_cmd, pt, report)
            if rc != 0:
                failures.append((pt, rc, report[:-5] + ".log"))
                continue
        rows.append(point_row(pt, report))
    if not rows:
        sys.exit("sweep: no run completed (%d failed; see %s/runs/*.log)" % (len(failures), args.out))
    rows += [failed_row(pt, rc, log, rows[0], args.timeout) for pt, rc, log in failures]
    write_results(rows, args.out, title_note(gpus, device, rows[0]["backend"]), mine, gpus, args.baseline)
    if failures:
        sys.exit("sweep: %d of %d points FAILED (marked in sweep.csv and summary.md)" % (len(failures), len(points)))


if __name__ == "__main__":
    sys.exit(run_session.main_interruptible(main, "sweep"))
