#!/usr/bin/python3
"""Strong scaling over the GPUs of one node, as a figure: for each problem the
speed-up over one GPU at the same ranks per GPU and sharing mode, one line per
ranks per GPU, against the ideal (speed-up = GPUs).

  scripts/speedup_gpus.py PREFIX [PREFIX ...] --out FIG.png

PREFIX names the finished sweeps of one problem (scripts/sweep.py --gpus N
--out PREFIX-gN): PREFIX-g1, PREFIX-g2, PREFIX-g4 ...; each one's GPU count is
its provenance.json's. Speed-up: the median throughput / the 1-GPU sweep's
median; its bars: the lowest and highest repeat / that same 1-GPU median.
Prints the speed-ups as a table (ranks per GPU "1 / 8 / 16", one column per
GPU count) to check a document's table against."""
import argparse
import glob
import os
import sys

import sweep
import sweep_plot


def sweeps_of(prefix):
    """{GPUs: (rows, provenance)} of the sweeps PREFIX-g*; exits without a 1-GPU one."""
    found = {}
    for folder in sorted(glob.glob(prefix + "-g*")):
        if os.path.exists(os.path.join(folder, "sweep.csv")):
            rows, prov = sweep.read_sweep(folder)
            found[int(prov.get("gpus", 0))] = (rows, prov)
    if 1 not in found:
        sys.exit("speedup_gpus: %s-g*: no sweep on 1 GPU (found GPU counts %s)" % (prefix, sorted(found) or "none"))
    return found


def speedups(found):
    """{(mode, ranks per GPU): {GPUs: (speed-up, lowest, highest, repeats)}} of
    the strong-scaling points that got the sharing they asked for on 1 GPU and
    on that count."""
    base = sweep.medians(found[1][0])
    out = {}
    for gpus, (rows, _) in sorted(found.items()):
        med, groups = sweep.medians(rows), sweep.points(rows)
        for key, (value, as_asked) in med.items():
            one = base.get(key)
            if key[0] != "strong" or not as_asked or one is None or not one[1]:
                continue
            values = [float(r["updates_per_second"]) for r in groups[key]]
            out.setdefault((key[1], key[2]), {})[gpus] = (value / one[0], min(values) / one[0],
                                                         max(values) / one[0], len(values))
    return out


def table_row(label, ups):
    """| label | 1 / 8 / 16 | 1.80 / 1.74 / 1.34 | ... |, one column per GPU count above 1."""
    keys = sorted(ups, key=lambda k: k[1])
    counts = sorted({g for v in ups.values() for g in v if g > 1})
    cells = [" / ".join("%.2f" % ups[k][g][0] if g in ups[k] else "—" for k in keys) for g in counts]
    rpgs = " / ".join(str(k[1]) if len({m for m, _ in keys}) == 1 else "%s %d" % k for k in keys)
    return "| %s | %s | %s |" % (label, rpgs, " | ".join(cells))


def spread_labels(ys, gap):
    """Label heights near ys (same order), at least gap apart."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    out = list(ys)
    for prev, i in zip(order, order[1:]):
        out[i] = max(ys[i], out[prev] + gap)
    # Centre the moved group on the values it labels.
    shift = (sum(out) - sum(ys)) / len(ys) if ys else 0
    return [y - shift for y in out]


def figure(panels, devices):
    """panels: [(title, {(mode, rpg): {GPUs: (speed-up, low, high, repeats)}})],
    devices: the GPUs' names; the Figure, unsaved."""
    plt = sweep_plot.pyplot()
    cols = min(3, len(panels))
    nrows = -(-len(panels) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(3.7 * cols, 3.2 * nrows + 0.9), sharey=True, squeeze=False)
    axes = [a for row in axes for a in row]
    rpgs = sorted({k[1] for _, ups in panels for k in ups})
    modes = [m for m in sweep_plot.MODE_NAMES if any(k[0] == m for _, ups in panels for k in ups)]
    color = {r: "C%d" % i for i, r in enumerate(rpgs)}
    style = {m: s for m, s in zip(modes, ("-", "-.", ":"))}
    counts = sorted({g for _, ups in panels for v in ups.values() for g in v})
    top = max([max(counts)] + [v[2] for _, ups in panels for s in ups.values() for v in s.values()]) * 1.08
    labels = []  # (axes, x, y, text, color): placed once the layout is known
    for ax, (title, ups) in zip(axes, panels):
        ax.plot(counts, counts, color="gray", linestyle="--", linewidth=1, label="ideal")
        for (mode, rpg), by_gpus in sorted(ups.items(), key=lambda kv: (modes.index(kv[0][0]), kv[0][1])):
            xs = sorted(by_gpus)
            ys = [by_gpus[g][0] for g in xs]
            name = "%d rank%s per GPU" % (rpg, "" if rpg == 1 else "s")
            if len(modes) > 1:
                name += ", " + sweep_plot.MODE_NAMES[mode]
            ax.errorbar(xs, ys, yerr=[[y - by_gpus[g][1] for g, y in zip(xs, ys)],
                                      [by_gpus[g][2] - y for g, y in zip(xs, ys)]],
                        marker="o", markersize=sweep_plot.MARKER, capsize=3, color=color[rpg],
                        linestyle=style[mode], label=name)
            labels += [(ax, g, y, "%.2f" % y, color[rpg]) for g, y in zip(xs, ys) if g > 1]
        ax.set_title(title, fontsize=9)
        ax.set_xticks(counts)
        ax.set_xlim(min(counts) - 0.35, max(counts) + 0.9)  # room for the values right of the last points
        ax.set_ylim(-0.03 * top, top)
        ax.set_xlabel("GPUs")
        ax.grid(True, alpha=0.3)
    for ax in axes[::cols]:
        ax.set_ylabel("speed-up over 1 GPU")
    # One legend for all panels: the lines of every panel, once each.
    handles, names = axes[0].get_legend_handles_labels()
    for ax in axes[1:len(panels)]:
        for h, n in zip(*ax.get_legend_handles_labels()):
            if n not in names:
                handles.append(h)
                names.append(n)
    title = ("Strong scaling over the GPUs of one node (%s, %s)\nspeed-up over 1 GPU at the same ranks per GPU"
             % (", ".join(sorted(set(devices))) or "no GPU", ", ".join(sweep_plot.MODE_NAMES[m] for m in modes)))
    repeats = sweep_plot.median_of(v[3] for _, ups in panels for s in ups.values() for v in s.values())
    caption = "%s / the 1-GPU median, bars min–max (each repeat / that median); dashed: ideal" % repeats
    spare = axes[len(panels):]
    for ax in spare:
        ax.axis("off")
    if spare:
        spare[0].legend(handles, names, loc="center", fontsize=9, frameon=False)
    else:
        fig.legend(handles, names, loc="lower center", ncol=len(names), fontsize=9, frameon=False)
    sweep_plot.titles(fig, title, caption, legend_row=not spare)
    place_labels(fig, labels)
    return fig


def place_labels(fig, labels):
    """The speed-up beside each point past 1 GPU, moved apart where they would overlap."""
    fig.canvas.draw()
    by_place = {}
    for ax, x, y, text, color in labels:
        by_place.setdefault((ax, x), []).append((y, text, color))
    for (ax, x), items in by_place.items():
        low, high = ax.get_ylim()
        gap = (high - low) * 8 * 1.15 * fig.dpi / 72 / ax.get_window_extent().height  # an 8 pt line
        heights = spread_labels([y for y, _, _ in items], gap)
        for (y, text, color), h in zip(items, heights):
            ax.annotate(text, (x, y), xytext=(x + 0.12, h), textcoords="data", va="center", fontsize=8,
                        color=color, bbox=dict(boxstyle="square,pad=0.05", facecolor="white", edgecolor="none",
                                               alpha=0.8))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("prefix", nargs="+", help="sweeps PREFIX-g1, PREFIX-g2, ... of one problem")
    p.add_argument("--out", required=True, help="the PNG to write")
    args = p.parse_args()
    panels, devices = [], []
    for prefix in args.prefix:
        found = sweeps_of(prefix)
        rows, prov = found[1]
        label = sweep_plot.problem_label(rows, prov, "strong")
        ups = speedups(found)
        devices += [f[1]["device"] for f in found.values() if f[1].get("device")]
        print(table_row(label, ups))
        # The folder tells two runs of one problem apart.
        where = os.path.basename(os.path.dirname(os.path.abspath(prefix)))
        repeats = sweep_plot.median_of(v[3] for s in ups.values() for v in s.values())
        panels.append(("%s\n%s, %s" % (label, where, repeats), ups))
    try:
        fig = figure(panels, devices)
    except ImportError:
        sys.exit("speedup_gpus: matplotlib is not installed for %s: no figure" % sys.executable)
    fig.savefig(args.out, dpi=110)
    print("wrote %s" % args.out)


if __name__ == "__main__":
    main()
