#!/usr/bin/env python3
"""How busy the GPU was, and what the ranks' hosts did while it idled.

Reads a run's phase timeline (the solver's `--timeline T.json`) and the GPU
trace of its processes (bench/gpu_trace.cpp: `CUDA_INJECTION64_PATH=...
MPSFW_GPU_TRACE_DIR=DIR`), both on CLOCK_MONOTONIC. Over the later part of
the loop (from the first span's start plus `--skip` of the loop to its end)
it prints
  - the union of all processes' GPU work (the GPU busy), and the mean number
    of kernels in flight while busy;
  - each kernel's launches and time, and the GPU operations per step per
    rank (from the "integrate" spans, two a step);
  - the idle stretches: for each, the phase every rank's host was in at its
    middle, summed as idle time per phase.
    bench/gpu_busy.py TIMELINE.json TRACE_DIR [--skip 0.5] [--top 12]
"""
import argparse
import bisect
import collections
import glob
import json
import os
import re
import sys


def short_name(name):
    # The enclosing function of a lambda kernel names it best.
    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\([^()]*\)(?: const)?::\{lambda", name)
    if m:
        return m.group(1) + "{lambda}"
    return re.sub(r"<.*", "", name.split("(")[0]).replace("void ", "")[-60:]


def read_trace(path):
    """GPU operations (start, end, kind, name, stream, queued), queued being
    when the host's runtime call that queued it returned (None if unknown),
    all in CLOCK_MONOTONIC ns."""
    ops, calls, offset = [], {}, None
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 5)
            if parts[0] == "clock":
                offset = int(parts[2]) - int(parts[1])
                continue
            kind, start, end, stream, corr = parts[0], int(parts[1]), int(parts[2]), parts[3], parts[4]
            if kind == "r":
                calls[corr] = end
                continue
            name = short_name(parts[5]) if kind == "k" else {"c": "(copy)", "s": "(memset)"}[kind]
            ops.append((start, end, kind, name, stream, corr))
    if offset is None:
        sys.exit(path + ": no clock line")
    return [(s + offset, e + offset, k, n, st, calls[c] + offset if c in calls else None)
            for s, e, k, n, st, c in ops]


def union(intervals):
    merged = []
    for s, e in sorted(intervals):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return merged


def clip(intervals, lo, hi):
    return [(max(s, lo), min(e, hi)) for s, e in intervals if e > lo and s < hi]


def load(timeline, trace_dir):
    """Each rank's phases (start, end, name) and GPU operations (read_trace),
    in CLOCK_MONOTONIC ns."""
    with open(timeline) as f:
        events = json.load(f)["traceEvents"]
    origin, process = {}, {}
    for e in events:
        if e.get("name") == "thread_name":
            a = e["args"]
            if "origin_ns" not in a:
                sys.exit(timeline + ": no origin_ns (a timeline from an older solver)")
            origin[e["tid"]], process[e["tid"]] = a["origin_ns"], a["process"]
    spans = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X":
            s = origin[e["tid"]] + e["ts"] * 1e3
            spans[e["tid"]].append((s, s + e["dur"] * 1e3, e["name"]))
    gpu = {}
    for r in spans:
        path = os.path.join(trace_dir, "gpu-%d.txt" % process[r])
        if not os.path.exists(path):
            sys.exit("no GPU trace of rank %d (%s)" % (r, path))
        gpu[r] = read_trace(path)
    return {r: sorted(v) for r, v in spans.items()}, gpu


def analyse(spans, gpu, skip):
    """The figures main prints, over the loop's later part (ns, counts)."""
    ranks = sorted(spans)
    loop_start = min(s for r in ranks for s, _, _ in spans[r])
    hi = max(e for r in ranks for _, e, _ in spans[r])
    lo = loop_start + skip * (hi - loop_start)
    ops = [(s, e, k, n, r) for r in ranks for s, e, k, n, _, _ in gpu[r]]
    merged = union(clip([(s, e) for s, e, _, _, _ in ops], lo, hi))
    busy = sum(e - s for s, e in merged)
    in_flight = sum(e - s for s, e in clip([(s, e) for s, e, k, _, _ in ops if k == "k"], lo, hi))

    per_name = collections.defaultdict(lambda: [0, 0])
    per_rank = collections.Counter()
    for s, e, _, n, r in ops:
        if lo <= s < hi:
            per_name[n][0] += 1
            per_name[n][1] += min(e, hi) - s
            per_rank[r] += 1
    # MD's "integrate" spans: two a step.
    steps = {r: sum(1 for s, _, n in spans[r] if n == "integrate" and lo <= s < hi) / 2
             for r in ranks}

    gaps = [(a[1], b[0]) for a, b in zip(merged, merged[1:]) if b[0] > a[1]]
    if merged:
        if merged[0][0] > lo:
            gaps.insert(0, (lo, merged[0][0]))
        if merged[-1][1] < hi:
            gaps.append((merged[-1][1], hi))
    else:
        gaps = [(lo, hi)]
    idle_by_phase = collections.Counter()
    starts = {r: [s for s, _, _ in spans[r]] for r in ranks}
    for s, e in gaps:
        mid = (s + e) / 2
        for r in ranks:
            # The latest span begun by the middle (phases do not nest).
            i = bisect.bisect_right(starts[r], mid) - 1
            phase = spans[r][i][2] if i >= 0 and spans[r][i][1] > mid else "(between phases)"
            idle_by_phase[phase] += (e - s) / len(ranks)

    # Each operation's wait after the one before it in its stream: for its
    # host (queued after the one before ended) or, queued already, for the GPU.
    waits = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for r in ranks:
        last_end = {}
        for s, e, _, n, stream, queued in sorted(gpu[r]):
            before = last_end.get(stream)
            last_end[stream] = max(e, before or e)
            if before is None or not lo <= s < hi or s <= before:
                continue
            host = min(max((queued or before) - before, 0), s - before)
            w = waits[n]
            w[0] += 1
            w[1] += host
            w[2] += s - before - host
    return {"ranks": len(ranks), "window": hi - lo, "busy": busy,
            "in_flight": in_flight / max(busy, 1), "per_name": dict(per_name),
            "ops_per_step": [per_rank[r] / steps[r] for r in ranks if steps[r]],
            "steps": steps, "gaps": sorted(e - s for s, e in gaps),
            "idle_by_phase": idle_by_phase, "waits": dict(waits)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("timeline")
    ap.add_argument("trace_dir")
    ap.add_argument("--skip", type=float, default=0.5,
                    help="fraction of the loop left out at its start (default 0.5)")
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    a = analyse(*load(args.timeline, args.trace_dir), args.skip)
    window, busy = a["window"], a["busy"]
    print("%d ranks, window %.3f ms (the last %.0f%% of the loop)" %
          (a["ranks"], window / 1e6, 100 * (1 - args.skip)))
    print("GPU busy (every rank's kernels, copies, memsets): %.3f ms = %.1f%% of the window; "
          "kernels in flight while busy: %.2f" % (busy / 1e6, 100 * busy / window, a["in_flight"]))
    print("\nGPU operations in the window (all ranks): count, total ms, mean us")
    for n, (count, total) in sorted(a["per_name"].items(), key=lambda kv: -kv[1][1])[:args.top]:
        print("  %-50s %8d %10.3f %9.1f" % (n[:50], count, total / 1e6, total / count / 1e3))
    if a["ops_per_step"]:
        print("steps in the window: %.0f; GPU operations per step per rank: %.1f-%.1f" %
              (max(a["steps"].values()), min(a["ops_per_step"]), max(a["ops_per_step"])))
    sizes = a["gaps"]
    print("\nGPU idle: %.3f ms in %d stretches (median %.1f us, longest %.1f us); the hosts' "
          "phases at their middles (ms of idle, shared among the ranks):" %
          (sum(sizes) / 1e6, len(sizes), sizes[len(sizes) // 2] / 1e3 if sizes else 0,
           sizes[-1] / 1e3 if sizes else 0))
    for n, t in a["idle_by_phase"].most_common(args.top):
        print("  %-40s %10.3f" % (n, t / 1e6))
    step_count = sum(a["steps"].values()) or 1
    print("\nWaits in a rank's stream before each operation, us per rank-step (for the host to "
          "queue it / queued, for the GPU), and count:")
    for n, (count, host, device) in sorted(a["waits"].items(),
                                           key=lambda kv: -(kv[1][1] + kv[1][2]))[:args.top]:
        print("  %-50s %8.1f %8.1f %8d" % (n[:50], host / 1e3 / step_count,
                                           device / 1e3 / step_count, count))


if __name__ == "__main__":
    main()
