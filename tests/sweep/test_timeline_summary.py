"""scripts/timeline_summary.py on a made-up timeline of two ranks: rank 1
starts every step 50 us after rank 0, which waits for it in "halo wait".
  python3 tests/sweep/test_timeline_summary.py SCRIPTS_DIR"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

scripts = sys.argv.pop(1) if len(sys.argv) > 1 else "scripts"
sys.path.insert(0, scripts)
from timeline_summary import phase_totals, read_tracks, skew, step_phase_of  # noqa: E402


def made_up_timeline(path, steps=10):
    events = [{"name": "thread_name", "ph": "M", "pid": 0, "tid": r, "args": {"name": "rank %d (h)" % r}}
              for r in (0, 1)]
    for k in range(steps):
        t = 1000.0 * k
        for rank, late in ((0, 0.0), (1, 50.0)):
            events.append({"name": "update", "ph": "X", "pid": 0, "tid": rank, "ts": t + late, "dur": 100.0})
        # rank 0 waits from the end of its update until rank 1's ends
        events.append({"name": "halo wait", "ph": "X", "pid": 0, "tid": 0, "ts": t + 100.0, "dur": 50.0})
        events.append({"name": "halo wait", "ph": "X", "pid": 0, "tid": 1, "ts": t + 150.0, "dur": 1.0})
    with open(path, "w") as f:
        json.dump({"traceEvents": events}, f)


class TimelineSummary(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mpsfw-timeline-")
        self.path = os.path.join(self.dir, "t.json")
        made_up_timeline(self.path)

    def test_phase_totals_per_rank(self):
        tracks, names = read_tracks(self.path)
        self.assertEqual(names[1], "rank 1 (h)")
        totals = phase_totals(tracks)
        self.assertEqual(list(totals), ["update", "halo wait"])
        self.assertAlmostEqual(totals["update"][0], 1.0)  # 10 x 100 us
        self.assertAlmostEqual(totals["halo wait"][0], 0.5)
        self.assertAlmostEqual(totals["halo wait"][1], 0.01)

    def test_the_late_rank_is_named_at_every_step(self):
        tracks, _ = read_tracks(self.path)
        self.assertIn(step_phase_of(tracks), ("update", "halo wait"))
        steps = skew(tracks, "update")
        self.assertEqual(len(steps), 10)
        for spread, last in steps:
            self.assertAlmostEqual(spread, 50.0)
            self.assertEqual(last, 1)

    def test_the_command_prints_it(self):
        done = subprocess.run([sys.executable, os.path.join(scripts, "timeline_summary.py"), self.path,
                               "--step-phase", "update"], capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("median 50.0 us", done.stdout)
        self.assertIn("last to start it: rank 1 10 times", done.stdout)
        self.assertRegex(done.stdout, r"halo wait +0\.255 +0\.010 +0\.500  rank 0 / rank 1")

    def test_not_a_timeline_is_refused(self):
        bad = os.path.join(self.dir, "bad.json")
        with open(bad, "w") as f:
            f.write("{")
        done = subprocess.run([sys.executable, os.path.join(scripts, "timeline_summary.py"), bad],
                              capture_output=True, text=True, timeout=60)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("is not a timeline", done.stderr)


if __name__ == "__main__":
    unittest.main()
