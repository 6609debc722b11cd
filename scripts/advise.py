#!/usr/bin/python3
"""advise: how many ranks per GPU, with MPS or without, and which cap, for
this input on this node. A short probe runs the solver at the points of three
arms (1 rank per GPU; k ranks per GPU time-sliced; k under MPS at the auto
cap), climbing k = 2, 4, 8, ... while throughput rises, and skipping points the
node cannot run (more ranks than cores, memory, the MPS server's 48 clients).
It prints the table, the choice (the fastest; within --tie of it, the
simplest), the time and GPU-hours the input's run.steps will take, and the
lines that launch it (mpirun, and #SBATCH lines for slurm/run.sbatch); --json
writes the same for scripts (docs/advise.md says what each field means).

  scripts/advise.py INPUT.h5 [--weak] [--gpus N] [--max-ranks-per-gpu 32]
      [--steps 50] [--tie 0.02] [--solver PATH] [--launcher mpirun|srun]
      [--set key=value ...] [--json FILE] [--timeout S]
  scripts/advise.py --command "./app args" [--time REGEX | --rate REGEX]
      [--mpsfw-run PATH] [--gpus N] [--max-ranks-per-gpu 32] [--tie 0.02] ...

Each point runs once, 2 x STEPS steps; the run's report times its steady
half, the last STEPS (start-up, MPS bring-up and the first steps drop out).
Strong scaling (the default) keeps the input's problem; --weak gives every
rank the input's problem (the keys its workload names, as scripts/sweep.py).
The probe's runs write nothing of the input's outputs: they run in a
temporary folder with snapshots and checkpoints off. A checkpoint is probed
from its step. SIGINT or SIGTERM ends the running run (all its processes),
removes the folder, prints one line and exits 130 / 143.

--command: any MPI+CUDA program instead of an mpsfw input. Each point runs it
once, whole, through mpsfw-run in this folder (whatever it writes lands
here), timed by the wall clock of its launch or by a figure it prints
(--time, --rate: scripts/command_point.py); strong scaling; the launch lines
run it through mpsfw-run.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import command_point  # noqa: E402
import run_session  # noqa: E402
import sweep  # noqa: E402
from advise_choice import (MPS, ONE_PER_GPU, TIME_SLICED, Measured, Node, Point,  # noqa: E402
                           RankNeed, choose, describe, forecast, keep_climbing, skip_reason)

QUIET = ["run.output_every=0", "run.checkpoint_every=0", "run.checkpoint_minutes=0"]


def node_facts(gpus_arg, solver):
    """(Node, device name): GPUs (those the solver's ranks would use, from
    `mpsctl gpus`, or --gpus), the job's cores (its cpuset), host memory
    (MemAvailable, or Slurm's per-node limit when lower) and each GPU's
    memory."""
    gpus, device = sweep.gpus_here(solver)
    if gpus_arg is not None:
        gpus = gpus_arg
    cores = len(os.sched_getaffinity(0))
    host = 0.0
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    host = float(line.split()[1]) * 1024
    except OSError:
        pass
    slurm_mb = os.environ.get("SLURM_MEM_PER_NODE", "")
    if slurm_mb.isdigit() and int(slurm_mb) > 0:
        host = min(host, int(slurm_mb) * 1024.0 ** 2) if host > 0 else int(slurm_mb) * 1024.0 ** 2
    gpu = 0.0
    if gpus > 0 and shutil.which("nvidia-smi"):
        try:
            out = run_session.run(["nvidia-smi", "--query-gpu=memory.total",
                                   "--format=csv,noheader,nounits"],
                                  capture_output=True, text=True, timeout=20).stdout.split()
        except subprocess.TimeoutExpired:
            out = []  # unknown: no point is skipped for GPU memory
        if out and out[0].isdigit():
            gpu = float(out[0]) * 1024.0 ** 2
    return Node(max(gpus, 0), cores, host, gpu), device if gpus > 0 else ""


def steps_left(args):
    """The steps the input's run will take (the solver's --dry-run: run.steps,
    less the step a checkpoint resumes from)."""
    sets = [w for v in args.set for w in ("--set", v)]
    try:
        done = run_session.run(sweep.launcher(args)(1) + [args.solver, args.input, "--dry-run",
                                                          "--backend", "host"] + sets,
                               capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        sys.exit("advise: the --dry-run of %s did not finish in 300 s" % args.input)
    m = re.search(r"^  steps +(?:(\d+) steps|steps (\d+)\.\.(\d+))", done.stdout, re.M)
    if done.returncode != 0 or not m:
        sys.exit("advise: cannot read %s with %s:\n%s" % (args.input, args.solver,
                                                         sweep.solver_errors(done)))
    return int(m.group(1)) if m.group(1) else int(m.group(3)) - int(m.group(2))


def cap_of(report):
    """The cap the ranks ran at (their MPS check), 0 without MPS."""
    for rank in report.get("mps_details", {}).get("per_rank", []):
        return int(rank.get("cap", 0))
    return 0


def mps_refusal(report):
    """Why a run that asked for MPS did not get it, or ""."""
    m = report.get("mps_details", {})
    verified, expected = int(m.get("verified_clients", 0) or 0), int(m.get("expected_clients", 0) or 0)
    if str(m.get("state", "")).startswith("active") and expected > 0 and verified == expected:
        return ""
    return "MPS not active: %s (%s), %d of %d clients verified" % (
        m.get("state", "?"), m.get("reason", ""), verified, expected)


def point_spec(args, node, point):
    """The sweep's description of a point: ranks, grid (grown for weak
    scaling), sharing mode, scaling."""
    ranks = point.ranks_per_gpu * max(node.gpus, 1)
    grid = list(args.size)
    if args.weak:
        grid = [size * d for size, d in zip(args.size, sweep.rank_grid(ranks))]
    return {"ranks": ranks, "grid": grid, "mode": "mps-caps" if point.arm == MPS else "timeslice",
            "scaling": "weak" if args.weak else "strong"}


class Probe:
    def __init__(self, args, node):
        self.args, self.node = args, node
        self.launch = sweep.launcher(args)
        self.runs, self.work = 0, tempfile.mkdtemp(prefix="mpsfw-advise-")
        self.failed = False
        self.one_need, self.one_ranks = RankNeed(), 1  # the one-per-GPU point's

    def run(self, point, steps):
        """One run's report, or (None, why)."""
        spec = point_spec(self.args, self.node, point)
        report = os.path.join(self.work, "%s-%d-%d.json" % (spec["mode"], spec["ranks"], steps))
        saved = self.args.set
        if not self.args.command:
            # A checkpoint's run.steps counts from step 0: its probe goes on from its step.
            self.args.set = saved + QUIET + ["run.steps=%d" % (self.args.saved_step + steps)]
        try:
            rc = sweep.run_point(self.args, self.launch, spec, report)
        finally:
            self.args.set = saved
        self.runs += 1
        if rc != 0:
            self.failed = True  # its log stays
            log = report[:-5] + ".log"
            errors = [l for l in open(log).read().splitlines() if "error" in l] if os.path.exists(log) else []
            return None, "failed (%s)%s, log %s" % (run_session.exit_text(rc, self.args.timeout),
                                                    ": " + errors[0][:100] if errors else "", log)
        with open(report) as f:
            return json.load(f), ""

    def need_at(self, point):
        """One rank's memory at `point`: strong scaling shares the one-per-GPU
        point's fields out, weak keeps them."""
        ranks = point.ranks_per_gpu * max(self.node.gpus, 1)
        share = 1.0 if self.args.weak else self.one_ranks / ranks
        return RankNeed(self.one_need.host_bytes, self.one_need.gpu_bytes * share)

    def measure(self, point):
        """The point's throughput over the steady half of a run of 2S steps
        (the report's `steady`: timed from a guard at the middle step)."""
        why = skip_reason(point, self.node, self.need_at(point))
        if why:
            return Measured(point, False, 0, "skipped: " + why)
        started = time.time()
        report, why = self.run(point, 2 * self.args.steps)
        took = time.time() - started
        if report is None:
            return Measured(point, False, 0, why, 0, took)
        if point.arm == MPS:
            refused = mps_refusal(report)
            if refused:
                return Measured(point, False, 0, refused, 0, took)
            point.cap = cap_of(report)
        steady = report.get("steady", {})
        if not steady.get("steps") or not steady.get("seconds"):
            return Measured(point, False, 0, "no steady half in its report (a solver older than advise?)",
                            0, took)
        if point.arm == ONE_PER_GPU:
            self.one_ranks = report["ranks"]
            mem = report.get("memory_bytes_per_rank", {})
            self.one_need = RankNeed(mem.get("host_peak_rss", {}).get("max", 0),
                                     mem.get("device_fields", {}).get("max", 0))
        return Measured(point, True, steady["updates_per_second"], "",
                        steady["seconds"] / steady["steps"], took)

    def table(self):
        rows = [self.measure(Point(ONE_PER_GPU, 1, 0))]
        arms = [TIME_SLICED] + ([MPS] if self.node.gpus > 0 else [])
        for arm in arms:
            arm_rows = []
            k = 2
            start = rows[0] if arm == TIME_SLICED else None
            while k <= self.args.max_ranks_per_gpu and keep_climbing(arm_rows, start):
                arm_rows.append(self.measure(Point(arm, k, 0)))
                k *= 2
            rows += arm_rows
        if self.node.gpus == 0:
            rows.append(Measured(Point(MPS, 2, 0), False, 0,
                                 "skipped: no GPU, MPS cannot be active (host backend)"))
        return rows


def launch_lines(args, node, point, ranks):
    """The mpirun line and the Slurm lines for the chosen point."""
    sets = list(args.set)
    if args.weak:
        sets += sweep.point_sets(args, point_spec(args, node, point))
    mps = ["--mps", "on", "--mps-atp", str(point.cap)] if point.arm == MPS else ["--mps", "off"]
    words = ["mpirun", "-np", str(ranks), "--bind-to", "none"]
    if args.command:
        words += command_point.launch_words(args, mps)
    else:
        words += [args.solver, args.input] + [w for s in sets for w in ("--set", s)] + mps
    per_node = ranks // max(args.nodes, 1)
    env = {"MPSFW_MPS": "on" if point.arm == MPS else "off"}
    if point.arm == MPS:
        env["MPSFW_ATP"] = str(point.cap)
    sbatch = ["#SBATCH --ntasks-per-node=%d" % per_node,
              "#SBATCH --cpus-per-task=%d" % max(1, node.cores // max(per_node, 1))]
    if node.gpus > 0:
        sbatch.insert(1, "#SBATCH --gpus-per-node=%d" % node.gpus)
    if args.command:
        # A job script of the user's with the #SBATCH lines above runs this line.
        cpus = sbatch[-1].split("=")[1]
        submit = " ".join(["srun", "--cpus-per-task=" + cpus] + command_point.launch_words(args, mps))
        return " ".join(words), sbatch, {}, submit
    submit = " ".join("%s=%s" % kv for kv in env.items()) + " sbatch slurm/run.sbatch " + args.input
    if sets:
        submit += " " + " ".join("--set " + s for s in sets)
    return " ".join(words), sbatch, env, submit


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", nargs="?")
    p.add_argument("--weak", action="store_true", help="every rank the input's problem")
    p.add_argument("--gpus", type=int, default=None,
                   help="GPUs per node (default: the ones ranks would use, mpsctl gpus; 0 = host)")
    p.add_argument("--max-ranks-per-gpu", type=int, default=32)
    p.add_argument("--steps", type=int, default=50,
                   help="steps a point's steady half times (each point runs twice as many)")
    p.add_argument("--tie", type=float, default=0.02, help="points within this of the fastest are level")
    p.add_argument("--solver", default=sweep.default_program("solver"))
    p.add_argument("--launcher", choices=["mpirun", "srun"], default="mpirun")
    p.add_argument("--srun-mpi", default="pmix")
    p.add_argument("--set", action="append", default=[], help="group.key=value for every run")
    p.add_argument("--json", help="write the table, choice and launch lines here")
    p.add_argument("--timeout", type=float, default=300, help="seconds one run may take")
    command_point.add_arguments(p)
    args = p.parse_args()
    if args.steps < 1 or args.max_ranks_per_gpu < 1 or not 0 <= args.tie < 1:
        p.error("--steps and --max-ranks-per-gpu take a positive number, --tie a fraction below 1")
    if bool(args.input) == bool(args.command):
        p.error("give an INPUT or a --command")
    command_point.setup(args, sweep.default_program("run"), p.error)
    sweep.check_launcher(args, p.error)
    if args.command and (args.weak or args.set):
        p.error("--command: no --weak or --set (the program's problem is its own)")
    if args.input and not os.path.isfile(args.input):
        sys.exit("advise: %s: no such input file" % args.input)
    if args.input and not os.access(args.solver, os.X_OK):
        sys.exit("advise: %s is not an executable solver (--solver PATH)" % args.solver)
    if os.geteuid() == 0:  # Open MPI refuses root unless told (containers, CI)
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    args.json = os.path.abspath(args.json) if args.json else None
    args.nodes = int(os.environ.get("SLURM_NNODES", "1")) if args.launcher == "srun" else 1
    node, device = node_facts(args.gpus, args.wrapper if args.command else args.solver)
    args.mps_enable = "on" if node.gpus > 0 else "auto"
    if args.command:
        steps, unit, scaling, name = None, command_point.unit(args), "strong", args.program[0]
        args.size, args.weak_keys = [], []
        print("advise: %s (a command through mpsfw-run, strong scaling, timed by %s)" % (
            args.command, command_point.measure_name(args)))
        probed = "one whole run a point"
    else:
        steps, unit, scaling, name = solver_facts(args)
        probed = "%d steps a point, the last %d timed" % (2 * args.steps, args.steps)
    gib = 1024.0 ** 3
    print("node: %s, %d cores%s; probe: %s" % (
        "%d GPU(s)%s%s" % (node.gpus, " (%s)" % device if device else "",
                           ", %.1f GiB each" % (node.gpu_bytes / gib) if node.gpu_bytes else "")
        if node.gpus else "no GPU (host backend)", node.cores,
        ", %.1f GiB host memory" % (node.host_bytes / gib) if node.host_bytes else "", probed), flush=True)

    started = time.time()
    probe = Probe(args, node)
    finished = False
    try:
        if not args.command:  # a command runs where the user is, as they would run it
            os.chdir(probe.work)  # whatever a run writes by a relative path lands here
        table = probe.table()
        finished = True
    finally:
        # A failed run's log is kept for the user, unless no table will name it.
        if not (finished and probe.failed):
            shutil.rmtree(probe.work, ignore_errors=True)
    return report(args, node, device, (name, unit, scaling, steps), table, probe, time.time() - started)


def solver_facts(args):
    """(steps the run will take, throughput unit, scaling, solver) of the input, from
    the solver: the input checked as a run checks it, its weak-scaling keys
    and size set on args."""
    args.input = os.path.abspath(args.input)
    args.saved_step = sweep.saved_step(args, who="advise")
    base = sweep.input_report(args, sweep.launcher(args), who="advise")
    weak = base.get("weak_scaling", {})
    args.weak_keys = weak.get("keys", [])
    if args.weak and not args.weak_keys:
        sys.exit("advise: %s cannot be weak-scaled: %s" %
                 (args.input, weak.get("refusal", "its report names no keys to scale")))
    args.size = ([int(base["parameters"][k]) for k in args.weak_keys] if args.weak_keys
                 else base["global_cells"])
    steps = steps_left(args)
    scaling = "weak" if args.weak else "strong"
    print("advise: %s (%s, %s scaling, run.steps %d)" % (args.input, base.get("solver", "?"), scaling, steps))
    return steps, base.get("throughput_unit", "cell-updates/s"), scaling, base.get("solver", "")


def report(args, node, device, study, table, probe, took):
    """Prints the table, the choice and its launch lines (and writes --json);
    the exit code. study: (solver or program, throughput unit, scaling, the
    run's steps: None for a command)."""
    name, unit, scaling, steps = study
    host = node.gpus == 0  # no GPU to share: points are rank counts, costs node-hours
    choice = choose(table, args.tie)
    one = next((m for m in table if m.point.arm == ONE_PER_GPU and m.ran), None)

    print("  %-18s %6s %14s %11s %10s" % ("point", "ranks", unit, "efficiency",
                                          "run [s]" if args.command else "step [s]"))
    rows = []
    for i, m in enumerate(table):
        ranks = m.point.ranks_per_gpu * max(node.gpus, 1)
        eff = m.throughput / one.throughput if (m.ran and one) else 0
        mark = "  <- chosen" if i == choice.index else ""
        if m.ran:
            print("  %-18s %6d %14.4g %11.2f %10.4g%s" % (describe(m.point, host), ranks, m.throughput, eff,
                                                        m.seconds_per_step, mark))
        else:
            print("  %-18s %6d  %s" % (describe(m.point, host), ranks, m.why))
        rows.append({"point": describe(m.point, host), "arm": m.point.arm, "ranks_per_gpu": m.point.ranks_per_gpu,
                     "cap": m.point.cap, "ranks": ranks, "ran": m.ran,
                     "throughput": m.throughput if m.ran else None,
                     "efficiency": eff if m.ran and one else None,
                     "seconds_per_step": m.seconds_per_step if m.ran else None,
                     "run_seconds": m.run_seconds, "why": m.why})
    result = {"input": args.input, "command": args.command, "solver": name, "scaling": scaling,
              "throughput_unit": unit, "run_steps": steps,
              "node": {"gpus": node.gpus, "device": device, "cores": node.cores,
                       "host_bytes": node.host_bytes, "gpu_bytes": node.gpu_bytes},
              "probe": {"steps": None if args.command else 2 * args.steps,
                        "timed_steps": None if args.command else args.steps, "runs": probe.runs,
                        "seconds": took},
              "table": rows, "choice": None}
    rc = 0
    if choice.index < 0:
        print("choice: none: no point ran (see the table)")
        rc = 1
    else:
        m = table[choice.index]
        ranks = m.point.ranks_per_gpu * max(node.gpus, 1)
        # A command's probe ran it whole: its run is the forecast.
        f = forecast(steps or 1, m.seconds_per_step, max(node.gpus, 1))
        print("choice: %s, %d ranks: %s (efficiency %.2f of 1 rank per GPU)" % (
            describe(m.point, host), ranks, choice.why, choice.efficiency))
        print("  %s: about %.4g s, %.4g %s" % ("a run" if args.command else "run.steps %d" % steps,
                                              f.seconds, f.gpu_hours, "node-hours" if host else "GPU-hours"))
        mpirun, sbatch, env, submit = launch_lines(args, node, m.point, ranks)
        print("launch:\n  %s\nSlurm (%s):" % (mpirun, "your job script" if args.command else "slurm/run.sbatch"))
        for line in sbatch:
            print("  " + line)
        print("  " + submit)
        result["choice"] = {"index": choice.index, "point": describe(m.point, host), "arm": m.point.arm,
                            "ranks_per_gpu": m.point.ranks_per_gpu, "cap": m.point.cap, "ranks": ranks,
                            "why": choice.why, "efficiency": choice.efficiency,
                            "forecast": {"seconds": f.seconds, "gpu_hours": None if host else f.gpu_hours,
                                         "node_hours": f.gpu_hours if host else None},
                            "launch": {"mpirun": mpirun, "sbatch": sbatch, "env": env, "submit": submit}}
    print("probe: %d runs, %.1f s" % (probe.runs, took))
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(result, f, indent=1)
        os.replace(tmp, args.json)  # complete or absent
    return rc


if __name__ == "__main__":
    sys.exit(run_session.main_interruptible(main, "advise"))
