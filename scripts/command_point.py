"""advise's and sweep's points for any program (--command "./app args"),
not only an mpsfw input. The program is launched through mpsfw-run at the
point's ranks and sharing mode (the options a solver takes: --mps,
--mps-atp), in the current folder, as the user would run it. Its speed is the
wall clock of the launch, or a figure it prints: --time REGEX (seconds, lower
is better) or --rate REGEX (higher is better), the regex's first group in its
last match in the run's output. Times become runs per hour, so that higher is
better everywhere. A point's record has the shape of the fields advise and
sweep read of a solver's report (throughput, steady, mps_details), so that
the two scripts treat both alike."""
import json
import os
import re
import shlex
import zlib

RUNS_PER_HOUR = "runs/h"
RATE = "rate (--rate)"
# mpsfw-run's MPS states (its --report's mps.state) in which it watched its
# GPU server's client list.
WATCHED = {"started": "active", "reused": "active (reused daemon)"}


def add_arguments(parser):
    g = parser.add_argument_group("any program, instead of an mpsfw input")
    g.add_argument("--command", help='the program and its arguments in one string, e.g. "./app -n 64"; '
                                     "each point runs mpirun ... mpsfw-run --mps ... -- ./app -n 64 in "
                                     "this folder")
    g.add_argument("--time", metavar="REGEX", help="the program's speed: seconds it prints, the regex's "
                                                  "first group (lower is better), e.g. 'Wall clock ([0-9.e+-]+)'")
    g.add_argument("--rate", metavar="REGEX", help="the program's speed: a rate it prints (higher is "
                                                  "better), e.g. '([0-9.]+) timesteps/s'")
    g.add_argument("--mpsfw-run", metavar="PATH", help="the wrapper (default: the build's, "
                                                       "build/default/apps/run, else the installed "
                                                       "mpsfw-run)")


def setup(args, default_wrapper, error):
    """Checks the --command options (error(message) ends the script) and sets
    args.program (the command's words), args.wrapper (mpsfw-run's path) and
    args.metric (the compiled regex, or None: the wall clock)."""
    args.metric = None
    if args.time and args.rate:
        error("--time and --rate: give one measure of the program's speed")
    if not args.command:
        if args.time or args.rate or args.mpsfw_run:
            error("--time, --rate and --mpsfw-run measure and launch a --command")
        return
    try:
        args.program = shlex.split(args.command)
    except ValueError as e:
        error("--command %r: %s" % (args.command, e))
    if not args.program:
        error("--command is empty")
    regex = args.time or args.rate
    if regex:
        try:
            args.metric = re.compile(regex, re.M)
        except re.error as e:
            error("--%s %r is not a regular expression: %s" % ("time" if args.time else "rate", regex, e))
        if args.metric.groups < 1:
            error("--%s %r: put a group ( ) around the number" % ("time" if args.time else "rate", regex))
    args.wrapper = args.mpsfw_run or default_wrapper
    if not os.access(args.wrapper, os.X_OK):
        error("--command runs through mpsfw-run: %s is not executable (--mpsfw-run PATH)" % args.wrapper)
    args.wrapper = os.path.abspath(args.wrapper)


def unit(args):
    return RATE if args.rate else RUNS_PER_HOUR


def measure_name(args):
    """How the program's speed is taken, for the scripts' headers."""
    if args.time:
        return "the seconds it prints (--time %s)" % args.time
    if args.rate:
        return "the rate it prints (--rate %s)" % args.rate
    return "the wall clock of its launch"


def fingerprint(args):
    """What a sweep folder's results were measured on (a different command,
    measure or folder is a different study)."""
    text = "\0".join([args.command, args.time or "", args.rate or "", os.getcwd()])
    return "%08x" % zlib.crc32(text.encode())


def wrapped(args, mps, run_report):
    """The words after the launcher's: mpsfw-run with the point's MPS options, then the program."""
    return [args.wrapper] + mps + ["--report", run_report, "--"] + args.program


def launch_words(args, mps):
    """The printed launch line's words after the launcher's (the command as the user wrote it)."""
    return [args.wrapper] + mps + ["--", args.command]


def mps_details(run):
    """mpsfw-run's report as a solver reports MPS: active only where every rank
    was seen in its GPU server's client list."""
    mps = run.get("mps", {})
    ranks, verified = int(run.get("ranks", 0)), int(run.get("verified_clients", 0))
    state, reason = mps.get("state", "unknown (no mpsfw-run report)"), mps.get("reason", "")
    if state in WATCHED:
        state = WATCHED[state] if ranks > 0 and verified == ranks else "NOT active"
        if state == "NOT active":
            reason = "%d of %d ranks' programs never in their GPU server's client list" % (ranks - verified, ranks)
    watched = mps.get("state") in WATCHED
    # As a solver's run.json gives it (mps_details.per_rank), with what mpsfw-run knows.
    per_rank = [{"local_rank": e.get("local_rank", -1), "pid": e.get("pid", 0), "exit": e.get("exit", -1),
                 "cap": mps.get("cap", 0) if watched else 0, "in_client_list": e.get("client") == "yes",
                 "verified": watched and e.get("client") == "yes"} for e in run.get("per_rank", [])]
    return {"state": state, "reason": reason, "verified_clients": verified,
            "expected_clients": ranks if mps.get("state") in WATCHED else 0, "per_rank": per_rank}


def write_record(args, ranks, log, seconds, run_report, record):
    """The point's record from its output (log), the launch's wall clock and
    mpsfw-run's report; "" once written, else why it has no figure."""
    with open(log, errors="replace") as f:
        text = f.read()
    measured = seconds
    throughput = 3600.0 / seconds if seconds > 0 else 0.0
    if args.metric is not None:
        last = None
        for last in args.metric.finditer(text):
            pass
        option = "--time" if args.time else "--rate"
        if last is None:
            return "no figure: nothing in its output matches %s %r" % (option, args.metric.pattern)
        try:
            value = float(last.group(1))
        except (TypeError, ValueError):
            return "no figure: %s matched %r, not a number" % (option, last.group(0))
        if value <= 0:
            return "no figure: %s gave %g, not a positive number" % (option, value)
        if args.time:
            measured, throughput = value, 3600.0 / value
        else:
            throughput = value
    run = {}
    if os.path.exists(run_report):
        with open(run_report) as f:
            run = json.load(f)
        os.remove(run_report)
    result = {"solver": os.path.basename(args.program[0]), "backend": "command", "command": args.command,
              "ranks": ranks, "global_cells": [], "throughput_unit": unit(args),
              "updates_per_second": throughput, "loop_seconds": measured, "wall_seconds": seconds,
              # A command has no steps: its steady half is the run, or the time it prints.
              "steady": {"steps": 1, "seconds": measured, "updates_per_second": throughput},
              "mps_details": mps_details(run), "mps_bring_up_seconds": run.get("bring_up_seconds"),
              "git_revision": "", "input_fnv1a64": fingerprint(args)}
    with open(record, "w") as f:
        json.dump(result, f, indent=1)
    return ""
