#!/usr/bin/python3
"""Reads a solver's --timeline file (a Chrome trace: a track a rank, a bar a
timed phase) and prints who waits for whom, as text:
  - each phase's time per rank over the window (ms), and which rank spent the
    most and the least in it;
  - the ranks' skew at each step: the k-th start of STEP_PHASE (default: the
    phase every rank starts most often) on every rank, the spread between the
    first and the last rank to get there, and which rank came last how often.
A rank that is always last holds the others back; the phase where the others
then spend their time is where they wait for it.

  scripts/timeline_summary.py TIMELINE.json [--step-phase NAME]
"""
import argparse
import collections
import json
import statistics
import sys


def read_tracks(path):
    """{rank: [(start_us, end_us, phase)] in time order}, and rank names."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    tracks, names = collections.defaultdict(list), {}
    for e in events:
        if e.get("ph") == "X":
            tracks[e["tid"]].append((e["ts"], e["ts"] + e["dur"], e["name"]))
        elif e.get("name") == "thread_name":
            names[e["tid"]] = e["args"]["name"]
    for spans in tracks.values():
        spans.sort()
    return dict(tracks), names


def phase_totals(tracks):
    """{phase: {rank: ms}} in the order phases first appear on the lowest rank."""
    totals = collections.OrderedDict()
    for rank in sorted(tracks):
        for start, end, phase in tracks[rank]:
            totals.setdefault(phase, collections.defaultdict(float))[rank] += (end - start) / 1e3
    return totals


def step_phase_of(tracks):
    """The phase every rank has and starts most often (once or more a step)."""
    counts = [collections.Counter(p for _, _, p in spans) for spans in tracks.values()]
    common = set.intersection(*(set(c) for c in counts)) if counts else set()
    if not common:
        return None
    return max(sorted(common), key=lambda p: min(c[p] for c in counts))


def skew(tracks, phase):
    """Per step k (the k-th start of `phase` on every rank): (spread in us,
    the last rank to start it)."""
    starts = {r: [s for s, _, p in spans if p == phase] for r, spans in tracks.items()}
    steps = min(len(v) for v in starts.values())
    out = []
    for k in range(steps):
        at = {r: v[k] for r, v in starts.items()}
        last = max(at, key=lambda r: (at[r], r))
        out.append((at[last] - min(at.values()), last))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("timeline")
    p.add_argument("--step-phase", help="the phase that starts each step (default: the commonest)")
    args = p.parse_args()
    try:
        tracks, names = read_tracks(args.timeline)
    except (OSError, ValueError, KeyError) as e:
        sys.exit("timeline_summary: %s is not a timeline (%s)" % (args.timeline, e))
    if not tracks:
        sys.exit("timeline_summary: %s holds no timed phases" % args.timeline)
    ranks = sorted(tracks)
    print("%d ranks: %s" % (len(ranks), ", ".join(names.get(r, str(r)) for r in ranks[:4]) +
                           (", ..." if len(ranks) > 4 else "")))
    print("%-18s %10s %10s %10s  %s" % ("phase", "mean [ms]", "min [ms]", "max [ms]", "most / least"))
    for phase, per_rank in phase_totals(tracks).items():
        ms = {r: per_rank.get(r, 0.0) for r in ranks}
        most, least = max(ms, key=ms.get), min(ms, key=ms.get)
        print("%-18s %10.3f %10.3f %10.3f  rank %d / rank %d" % (
            phase, statistics.mean(ms.values()), ms[least], ms[most], most, least))
    phase = args.step_phase or step_phase_of(tracks)
    if phase is None:
        print("no phase that every rank times: no step skew")
        return 0
    steps = skew(tracks, phase)
    if not steps:
        print("'%s' is not timed on every rank: no step skew" % phase)
        return 0
    spreads = sorted(s for s, _ in steps)
    last = collections.Counter(r for _, r in steps)
    print("starts of '%s': %d; ranks' spread at each: median %.1f us, 90th percentile %.1f us, "
          "max %.1f us" % (phase, len(steps), statistics.median(spreads),
                           spreads[min(len(spreads) - 1, int(0.9 * len(spreads)))], spreads[-1]))
    print("last to start it: " + ", ".join("rank %d %d times" % (r, n) for r, n in last.most_common(5)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
