"""The figures of scripts/sweep_plot.py and scripts/speedup_gpus.py drawn from
committed sweeps (docs/): each names its problem, its repeats ("median of N")
and bars, and keeps every point, bar and marker inside its axes, with legends
and captions off the points; the speed-ups over GPUs agree with README.md's
table. Without matplotlib the figure cases are skipped and the test exits 77
(a skip to ctest), saying so.
  python3 tests/sweep/test_sweep_plot.py SOURCE_DIR"""
import copy
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

source = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else ".")
scripts = os.path.join(source, "scripts")
sys.path.insert(0, scripts)
import speedup_gpus  # noqa: E402
import sweep  # noqa: E402
import sweep_plot  # noqa: E402

try:
    sweep_plot.pyplot()
    HAVE_MPL = True
except ImportError:
    HAVE_MPL = False
NO_MPL = "matplotlib is not installed for %s" % sys.executable
DOCS = os.path.join(source, "docs")
NOTE = "1 GPU(s) per node (NVIDIA H200), cuda backend"


def committed(name):
    return sweep.read_sweep(os.path.join(DOCS, name))


def texts(fig):
    """Every piece of text the figure shows."""
    import matplotlib.text
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text()]


def problems(fig):
    """What is drawn where it should not be: points, bar ends and markers out of
    their axes, legends over a point, a title or caption over an axes, a
    value label out of its axes (none: [])."""
    fig.canvas.draw()
    found, points = [], []
    shown = [ax for ax in fig.axes if ax.axison]
    for ax in shown:
        box = ax.get_window_extent()
        inside = lambda x, y, r: box.x0 + r - 0.5 <= x <= box.x1 - r + 0.5 and box.y0 + r - 0.5 <= y <= box.y1 - r + 0.5
        for line in ax.lines:
            if line.get_transform() is not ax.transData:  # a reference line across the axes
                continue
            r = line.get_markersize() * fig.dpi / 72 / 2 if line.get_marker() == "o" else 0
            name = line.get_label() if not line.get_label().startswith("_") else "a line"
            for x, y in ax.transData.transform(line.get_xydata()):
                points.append((x, y))
                if not inside(x, y, r):
                    found.append("%s: a point of %s at (%.0f, %.0f) px is out of the axes %s"
                                 % (ax.get_title() or ax.get_ylabel(), name, x, y, box.bounds))
        for c in ax.collections:
            for seg in c.get_segments():
                for x, y in c.get_transform().transform(seg):
                    if not inside(x, y, 0):
                        found.append("%s: a bar end at (%.0f, %.0f) px is out of the axes" % (ax.get_ylabel(), x, y))
        for t in ax.texts:
            b = t.get_window_extent()
            if b.x0 < box.x0 or b.x1 > box.x1 or b.y0 < box.y0 or b.y1 > box.y1:
                found.append("the label %r is out of its axes" % t.get_text())
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    for legend in legends:
        b = legend.get_window_extent()
        if any(b.contains(x, y) for x, y in points):
            found.append("a legend covers a point")
    renderer = fig.canvas.get_renderer()
    for t in list(fig.texts) + ([fig._suptitle] if fig._suptitle else []):
        b = t.get_window_extent(renderer)
        for ax in shown:
            if b.overlaps(ax.get_tightbbox(renderer)):
                found.append("%r overlaps an axes" % t.get_text())
    return found


class Labels(unittest.TestCase):
    """The words of the figures, from the data (no matplotlib needed)."""

    def test_heat_strong_is_named_by_its_grid(self):
        rows, prov = committed("sweep-h200/heat-strong")
        self.assertEqual(sweep_plot.problem_label(rows, prov, "strong"), "heat 256³ (16.8M cells)")

    def test_weak_scaling_names_the_block_of_a_rank(self):
        rows, prov = committed("sweep-h200/heat-weak")
        self.assertEqual(sweep_plot.problem_label(rows, prov, "weak"), "heat 128³ per rank (2.1M cells)")
        rows, prov = committed("sweep-h200/md-weak")
        self.assertEqual(sweep_plot.problem_label(rows, prov, "weak"), "MD 16.4k atoms per rank (16³ FCC cells)")

    def test_md_strong_counts_its_atoms(self):
        rows, prov = committed("multi-gpu-h200x4/md1M-g4")
        self.assertEqual(sweep_plot.problem_label(rows, prov, "strong"), "MD 1.05M atoms (64³ FCC cells)")
        # Without the lattice in the --set list: atoms from throughput x time /
        # steps, the solver named by its input.
        prov = dict(prov, set=[s for s in prov["set"] if not s.startswith("md.cells")])
        self.assertEqual(sweep_plot.problem_label(rows, prov, "strong"), "md_lj.h5 1.05M atoms")

    def test_the_caption_says_how_many_repeats(self):
        rows, _ = committed("sweep-h200/heat-strong")
        self.assertEqual(sweep_plot.repeats_caption(sweep.points(rows).values()),
                         "median of 3 repeats, bars min–max")
        self.assertEqual(sweep_plot.repeats_caption(sweep.points(rows[1:]).values()),
                         "median of 2-3 repeats, bars min–max")

    def test_readme_table_is_what_the_sweeps_give(self):
        # The README's table of strong scaling over GPUs, row by row, against
        # the speed-ups the figure draws from the sweeps it links.
        with open(os.path.join(source, "README.md")) as f:
            readme = f.read()
        table = readme[readme.index("| problem | ranks per GPU | 2 GPUs | 4 GPUs |"):].split("\n\n")[0]
        rows = [r for r in table.splitlines()[2:]]
        self.assertEqual(len(rows), 5, table)
        for row in rows:
            cells = [c.strip() for c in row.strip("|").split("|")]
            folder = re.search(r"\((docs/[^)]+)\)", cells[0])
            folder = folder.group(1) if folder else "docs/multi-gpu-h200x4"
            name = next(n for key, n in (("256³", "heat256"), ("512³", "heat512"), ("1M atoms", "md1M"),
                                         ("4M atoms", "md4M")) if key in cells[0])
            found = speedup_gpus.sweeps_of(os.path.join(source, folder, name))
            mine = speedup_gpus.table_row("x", speedup_gpus.speedups(found))
            self.assertEqual([c.strip() for c in mine.strip("|").split("|")][1:], cells[1:], row)


@unittest.skipUnless(HAVE_MPL, NO_MPL)
class SweepFigures(unittest.TestCase):
    def figure(self, rows, prov, scaling, note=NOTE):
        fig = sweep_plot.sweep_figure(sweep.points(rows), sweep.medians(rows), prov, scaling, note)
        self.addCleanup(sweep_plot.pyplot().close, fig)
        return fig

    def check(self, fig, *words):
        shown = "\n".join(texts(fig))
        for w in words:
            self.assertIn(w, shown)
        self.assertEqual(problems(fig), [])

    def test_heat_strong(self):
        rows, prov = committed("sweep-h200/heat-strong")
        fig = self.figure(rows, prov, "strong")
        self.check(fig, "heat 256³ (16.8M cells), strong scaling", "median of 3 repeats, bars min–max",
                   "NVIDIA H200", "time-slicing", "MPS with caps")
        ax = fig.axes[0]
        self.assertEqual([t.get_text() for t in ax.get_xticklabels()], ["1", "2", "4", "8", "16", "32"])
        low, high = ax.get_ylim()
        labelled = [t for t in ax.get_yticks() if low <= t <= high]
        self.assertGreaterEqual(len(labelled), 4, "too few labelled values on the log axis")

    def test_weak_ones(self):
        rows, prov = committed("sweep-h200/heat-weak")
        self.check(self.figure(rows, prov, "weak"), "heat 128³ per rank (2.1M cells), weak scaling")
        rows, prov = committed("sweep-h200/md-weak")
        self.check(self.figure(rows, prov, "weak"), "MD 16.4k atoms per rank (16³ FCC cells), weak scaling",
                   "median of 3 repeats")

    def test_several_gpus_show_the_ranks_in_all(self):
        # Its 1-rank point's top bar was cut by the axes before.
        rows, prov = committed("multi-gpu-h200x4/md1M-g4")
        fig = self.figure(rows, prov, "strong", "4 GPU(s) per node (NVIDIA H200), cuda backend")
        self.check(fig, "MD 1.05M atoms (64³ FCC cells)", "median of 2 repeats", "ranks per GPU (ranks in all)")
        self.assertEqual([t.get_text() for t in fig.axes[0].get_xticklabels()], ["1\n(4)", "8\n(32)", "16\n(64)"])

    def test_uneven_repeats_and_mps_not_active(self):
        rows, prov = committed("sweep-h200/heat-strong")
        rows = copy.deepcopy(rows[1:])
        for r in rows:
            if r["mode"] == "mps" and r["ranks_per_gpu"] == "8":
                r["mps_as_asked"] = "NO"
        fig = self.figure(rows, prov, "strong")
        self.check(fig, "median of 2-3 repeats", "MPS asked, MPS NOT active", "hollow, dotted")
        hollow = [l for l in fig.axes[0].lines if l.get_markerfacecolor() == "none"]
        self.assertEqual(len(hollow), 1)
        self.assertEqual(list(hollow[0].get_xdata()), [8])
        self.assertGreater(hollow[0].get_zorder(), max(l.get_zorder() for l in fig.axes[0].lines if l not in hollow))

    def test_a_narrow_span_still_has_labelled_values(self):
        fig, ax = sweep_plot.pyplot().subplots()
        self.addCleanup(sweep_plot.pyplot().close, fig)
        ax.set_yscale("log")
        for lo, hi in ((2.1e11, 2.3e11), (1.6e9, 2.1e9), (2.4e8, 7.4e8), (1.9e8, 3.5e9), (3e9, 2.3e11), (1e3, 1e9)):
            sweep_plot.label_log_axis(ax, lo, hi)
            low, high = ax.get_ylim()
            self.assertLess(low, lo)
            self.assertGreater(high, hi)
            labelled = [t for t in ax.get_yticks() if low <= t <= high]
            self.assertGreaterEqual(len(labelled), 3, (lo, hi, labelled))
            self.assertLessEqual(len(labelled), 10, (lo, hi, labelled))

    def test_plot_only_draws_it(self):
        work = tempfile.mkdtemp(prefix="mpsfw-plot-")
        self.addCleanup(shutil.rmtree, work)
        shutil.copytree(os.path.join(DOCS, "sweep-h200", "md-weak"), os.path.join(work, "md-weak"))
        png = os.path.join(work, "md-weak", "sweep_weak.png")
        os.remove(png)
        done = subprocess.run([sys.executable, os.path.join(scripts, "sweep.py"), "--plot-only", "--out",
                               os.path.join(work, "md-weak")], capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertGreater(os.path.getsize(png), 10000)


@unittest.skipUnless(HAVE_MPL, NO_MPL)
class SpeedupFigure(unittest.TestCase):
    def test_readme_figure(self):
        prefixes = ["multi-gpu-h200x4/heat256", "multi-gpu-h200x4/heat512", "multi-gpu-h200x4/md1M",
                    "strong-h200x4/heat512", "strong-h200x4/md4M"]
        panels = []
        for p in prefixes:
            found = speedup_gpus.sweeps_of(os.path.join(DOCS, p))
            panels.append((sweep_plot.problem_label(found[1][0], found[1][1], "strong"), speedup_gpus.speedups(found)))
        fig = speedup_gpus.figure(panels, ["NVIDIA H200"])
        self.addCleanup(sweep_plot.pyplot().close, fig)
        shown = texts(fig)
        for w in ("heat 256³ (16.8M cells)", "heat 512³ (134M cells)", "MD 1.05M atoms (64³ FCC cells)",
                  "MD 4M atoms (100³ FCC cells)", "median of 2-3 repeats", "bars min–max", "NVIDIA H200",
                  "16 ranks per GPU", "ideal", "3.58", "0.33"):
            self.assertTrue(any(w in t for t in shown), w)
        self.assertEqual(problems(fig), [])


if __name__ == "__main__":
    result = unittest.main(exit=False).result
    if not result.wasSuccessful():
        sys.exit(1)
    if not HAVE_MPL:
        print("SKIP: the figure cases did not run: %s" % NO_MPL, file=sys.stderr)
        sys.exit(77)
