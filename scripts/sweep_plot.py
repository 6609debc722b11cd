"""The figures of a ranks-per-GPU sweep (scripts/sweep.py): aggregate
throughput and efficiency against ranks per GPU, one line per sharing mode,
each figure naming its problem, its machine and how many repeats each point
is the median of. scripts/speedup_gpus.py draws with the same helpers.

Both take the sweep's points (sweep.points: the completed rows of each
(scaling, mode, ranks per GPU)) and their medians (sweep.medians: median,
MPS as asked). sweep_figure() returns the matplotlib Figure unsaved (the
tests read its texts and limits); draw() saves one PNG per scaling kind."""
import math
import os
import sys

# The sweep's modes in legend order, with the words a reader knows them by.
MODE_NAMES = {"timeslice": "time-slicing", "mps": "MPS", "mps-caps": "MPS with caps"}
# How many atoms an FCC unit cell holds: md.cells_* count those cells.
FCC_ATOMS = 4
MARKER = 6  # marker size in points, one for every figure


def pyplot():
    """matplotlib's pyplot on the Agg backend (files only); ImportError without it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def product(values):
    out = 1
    for v in values:
        out *= v
    return out


def count_text(n):
    """A count with 3 significant digits and k/M/G: 16384 -> 16.4k, 4000000 -> 4M."""
    n = float("%.3g" % n)  # rounded first: 999999 is 1M, not 1e+03k
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return "%.3g%s" % (n / div, suffix)
    return "%d" % n


def grid_text(dims):
    """256x256x256 -> 256³; 512x256x256 -> 512×256×256."""
    if len(set(dims)) == 1 and len(dims) == 3:
        return "%d³" % dims[0]
    return "×".join(str(d) for d in dims)


def set_values(prov):
    return dict(s.split("=", 1) for s in prov.get("set", []) if "=" in s)


def solver_name(rows, prov):
    """heat, MD, ... from the --set keys' group (heat.nx -> heat), else the input's file name."""
    if rows[0].get("backend") == "command":
        command = prov.get("input", "a command")
        return "command " + (command if len(command) <= 40 else command[:37] + "...")
    groups = {k.split(".", 1)[0] for k in set_values(prov) if "." in k} - {"run"}
    if len(groups) == 1:
        name = groups.pop()
        return "MD" if name == "md" else name
    return os.path.basename(prov.get("input", "")) or "input"


def grid_of(row):
    try:
        dims = [int(v) for v in row["global_cells"].split("x")]
    except (KeyError, ValueError):
        return None
    return dims if len(dims) == 3 else None


def measured_count(rows, prov, per_rank):
    """What a run updates each step (its atoms, particles), in all or per rank:
    throughput x loop seconds / the steps the --set list gives; None where
    that is not known or the rows disagree."""
    steps = set_values(prov).get("run.steps", "")
    if not steps.isdigit() or int(steps) == 0:
        return None
    counts = {round(float(r["updates_per_second"]) * float(r["loop_seconds"]) / int(steps)
                    / (int(r["ranks"]) if per_rank else 1)) for r in rows if r.get("loop_seconds")}
    return counts.pop() if len(counts) == 1 else None


def problem_label(rows, prov, scaling):
    """The problem in words: "heat 256³ (16.8M cells)" for strong scaling,
    "heat 128³ per rank (2.1M cells)" or "MD 16.4k atoms per rank (16³ FCC
    cells)" for weak: global sizes from the CSV, per-rank ones from the
    global size / ranks (weak scaling grows the problem with the ranks)."""
    rows = [r for r in rows if r["scaling"] == scaling and r.get("status", "ok") == "ok"]
    name = solver_name(rows, prov)
    unit = rows[0].get("throughput_unit", "cell-updates/s")
    noun = unit.split("-", 1)[0] + "s" if "-" in unit else ""
    per_rank = " per rank" if scaling == "weak" else ""
    if noun == "cells":
        grids = {tuple(g) for g in map(grid_of, rows) if g}
        if not grids:
            return name
        if scaling == "strong":
            if len(grids) > 1:
                return "%s, %d grids" % (name, len(grids))
            dims = grids.pop()
            return "%s %s (%s cells)" % (name, grid_text(dims), count_text(product(dims)))
        cells = {product(grid_of(r)) // int(r["ranks"]) for r in rows if grid_of(r)}
        if len(cells) > 1:
            return "%s, %s cells per rank" % (name, " to ".join(count_text(c) for c in (min(cells), max(cells))))
        n = cells.pop()
        side = round(n ** (1 / 3))
        cube = "%d³ " % side if side ** 3 == n else ""
        return "%s %sper rank (%s cells)" % (name, cube, count_text(n))
    sets = set_values(prov)
    lattice = [sets.get("md.cells_" + a, "") for a in "xyz"]
    if noun == "atoms" and all(v.isdigit() for v in lattice):
        # The input's FCC lattice: per rank for weak scaling (the sweep grows it
        # with the ranks), in all for strong.
        dims = [int(v) for v in lattice]
        return "%s %s atoms%s (%s FCC cells)" % (name, count_text(FCC_ATOMS * product(dims)),
                                                 per_rank, grid_text(dims))
    n = measured_count(rows, prov, scaling == "weak") if noun else None
    return "%s %s %s%s" % (name, count_text(n), noun, per_rank) if n else name


def median_of(counts):
    """"median of 3 repeats" (or of 2-3 where points differ); "" for no points."""
    counts = sorted(set(counts))
    if not counts:
        return ""
    if counts == [1]:
        return "one run per point (no repeats)"
    return "median of %s repeats" % (str(counts[0]) if len(counts) == 1 else "%d-%d" % (counts[0], counts[-1]))


def repeats_caption(groups):
    """"median of 3 repeats, bars min–max" for these points' groups of rows."""
    text = median_of(len(g) for g in groups)
    return text + ", bars min–max" if text.startswith("median") else text


def log_limits(lo, hi):
    """Limits around [lo, hi] on a log axis with room for the markers."""
    span = max(math.log10(hi / lo), 0.2)
    pad = 10 ** (0.07 * span)
    return lo / pad, hi * pad


# Labelled values on a log axis, coarse to fine, each with the largest span
# in decades it may label before its labels crowd one another.
LOG_SUBS = (((1.0,), float("inf")), ((1.0, 2.0, 5.0), float("inf")), ((1.0, 2.0, 3.0, 5.0), 2.5),
            (tuple(range(1, 10)), 0.8))


def label_log_axis(ax, lo, hi):
    """Limits and labelled ticks for the y axis: the coarsest labels that give
    5 values within the limits, else the finest the span allows, else (under
    3) plain steps; values in SI (50 G, 200 G)."""
    from matplotlib.ticker import EngFormatter, FixedLocator, LogLocator, MaxNLocator, NullFormatter
    lo, hi = log_limits(lo, hi)
    ax.set_ylim(lo, hi)
    ticks = []
    for subs, span in LOG_SUBS:
        if math.log10(hi / lo) > span:
            break
        ticks = [t for t in LogLocator(base=10, subs=subs, numticks=40).tick_values(lo, hi) if lo <= t <= hi]
        if len(ticks) >= 5:
            break
    if len(ticks) < 3:  # a span well under a decade
        ticks = [t for t in MaxNLocator(4).tick_values(lo, hi) if lo <= t <= hi]
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_major_formatter(EngFormatter(sep=" "))
    ax.yaxis.set_minor_locator(LogLocator(base=10, subs="all", numticks=40))
    ax.yaxis.set_minor_formatter(NullFormatter())


def rank_ticks(ax, counts, in_all):
    """Ranks per GPU on a log2 x axis; with more than one GPU, the ranks in all below."""
    from matplotlib.ticker import NullLocator
    ax.set_xscale("log", base=2)
    ax.set_xlim(min(counts) / 2 ** 0.35, max(counts) * 2 ** 0.35)
    ax.set_xticks(counts)
    several = any(in_all.get(c, c) != c for c in counts)
    ax.set_xticklabels(["%d\n(%d)" % (c, in_all[c]) if several else str(c) for c in counts])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("ranks per GPU (ranks in all)" if several else "ranks per GPU")


def sweep_figure(points, medians, prov, scaling, note):
    """The figure of one scaling kind, unsaved: aggregate throughput (log) and
    throughput / 1 rank per GPU, medians with bars from the lowest to the
    highest repeat. ImportError without matplotlib."""
    plt = pyplot()
    groups = {k: g for k, g in points.items() if k[0] == scaling}
    med = {k: v for k, v in medians.items() if k[0] == scaling}
    rows = [r for g in groups.values() for r in g]
    values = {k: [float(r["updates_per_second"]) for r in g] for k, g in groups.items()}
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.8))
    hollow = False
    effs = [1.0]
    for mode in MODE_NAMES:
        pts = sorted((k[2], v) for k, v in med.items() if k[1] == mode)
        if not pts:
            continue
        base = pts[0][1][0] if pts[0][0] == 1 else float("nan")
        # Points that asked for MPS and ran without it are never drawn as MPS:
        # hollow markers, dotted, labelled, above the other lines (a time-sliced
        # point of the same value would hide them).
        good = [(x, v[0]) for x, v in pts if v[1]]
        bad = [(x, v[0]) for x, v in pts if not v[1]]
        color = None
        if good:
            xs = [g[0] for g in good]
            ys = [g[1] for g in good]
            lows = [y - min(values[(scaling, mode, x)]) for x, y in good]
            highs = [max(values[(scaling, mode, x)]) - y for x, y in good]
            line = ax1.errorbar(xs, ys, yerr=[lows, highs], marker="o", markersize=MARKER, capsize=3,
                                label=MODE_NAMES[mode])[0]
            color = line.get_color()
            ax2.errorbar(xs, [y / base for y in ys], yerr=[[v / base for v in lows], [v / base for v in highs]],
                         marker="o", markersize=MARKER, capsize=3, color=color)
            effs += [max(values[(scaling, mode, x)]) / base for x in xs]
        if bad:
            hollow = True
            ax1.plot([b[0] for b in bad], [b[1] for b in bad], linestyle=":", marker="o", markersize=MARKER,
                     markerfacecolor="none", color=color, zorder=3,
                     label="%s asked, MPS NOT active" % MODE_NAMES[mode])
    every = [v for vs in values.values() for v in vs]
    ax1.set_yscale("log")  # MPS and time-slicing differ by 10-20x: linear hides one
    label_log_axis(ax1, min(every), max(every))
    ax2.axhline(1.0, color="gray", linestyle="--", linewidth=1, label="1 rank per GPU")
    effs = [e for e in effs if e == e]  # no 1-rank point: no efficiency
    # Efficiency on a linear axis from 0, a little below so that a point near 0
    # keeps its whole marker.
    top = max(effs) * 1.08
    ax2.set_ylim(-0.04 * top, top)
    counts = sorted({k[2] for k in med})
    in_all = {int(r["ranks_per_gpu"]): int(r["ranks"]) for g in groups.values() for r in g}
    unit = rows[0].get("throughput_unit", "cell-updates/s")
    for ax, label in ((ax1, "aggregate " + unit), (ax2, "throughput / 1 rank per GPU")):
        rank_ticks(ax, counts, in_all)
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    # One legend for both panels, below them: inside, it covers points.
    handles, names = ax1.get_legend_handles_labels()
    h2, n2 = ax2.get_legend_handles_labels()
    fig.legend(handles + h2, names + n2, loc="lower center", ncol=len(names) + len(n2), fontsize=9, frameon=False)
    caption = repeats_caption(groups.values())
    if hollow:
        caption += "; hollow, dotted: MPS asked for and NOT active"
    titles(fig, "%s, %s scaling\n%s" % (problem_label(rows, prov, scaling), scaling, note), caption)
    return fig


def titles(fig, title, caption, legend_row=True):
    """Title and caption above the panels, the legend's row below them, the
    panels in between (laid out first: tight_layout would make room for the
    title a second time)."""
    height = fig.get_figheight()
    below = 1 - (0.14 + 0.19 * (title.count("\n") + 1)) / height  # 11 pt lines with their spacing
    fig.tight_layout(rect=(0, (0.35 if legend_row else 0.05) / height, 1, below - 0.2 / height))
    fig.suptitle(title, fontsize=11, y=1 - 0.08 / height, va="top")
    fig.text(0.5, below, caption, ha="center", va="top", fontsize=9, color="dimgray")


def draw(points, medians, prov, out_dir, note):
    """sweep_<scaling>.png for each scaling kind of the points; [] without matplotlib."""
    try:
        plt = pyplot()
    except ImportError:
        print("matplotlib is not installed for %s: no plots (the CSV and summary are written; "
              "--plot-only with an interpreter that has it draws them)" % sys.executable)
        return []
    files = []
    for scaling in sorted({k[0] for k in points}):
        fig = sweep_figure(points, medians, prov, scaling, note)
        path = os.path.join(out_dir, "sweep_%s.png" % scaling)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files.append(path)
    return files
