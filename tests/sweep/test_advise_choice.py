"""advise's decisions (scripts/advise_choice.py) on recorded probe tables: the
medians of the H200 sweeps (docs/sweep-h200/*/sweep.csv at 73f2085; "mps" there
is MPS at 100 %, "mps-caps" MPS at the auto cap) and small tables that hold a
tie, a failed point and a node with fewer cores than the table.
  python3 tests/sweep/test_advise_choice.py SCRIPTS_DIR"""
import sys
import unittest

sys.path.insert(0, sys.argv.pop(1) if len(sys.argv) > 1 else "scripts")
from advise_choice import (GIB, MPS, ONE_PER_GPU, TIME_SLICED, Measured, Node, Point,  # noqa: E402
                           RankNeed, choose, describe, forecast, keep_climbing, skip_reason)


def ran(arm, k, cap, throughput):
    return Measured(Point(arm, k, cap), True, throughput, "")


def heat_strong_h200():
    """heat 256^3 strong, one H200 (docs/sweep-h200/heat-strong at 73f2085)."""
    return [ran(ONE_PER_GPU, 1, 0, 2.16e11), ran(TIME_SLICED, 2, 0, 5.23e10),
            ran(TIME_SLICED, 4, 0, 2.58e10), ran(MPS, 2, 100, 2.22e11),
            ran(MPS, 4, 50, 2.09e11), ran(MPS, 8, 25, 2.02e11),
            ran(MPS, 16, 13, 1.90e11), ran(MPS, 32, 7, 1.19e11)]


def md_weak_h200():
    """MD 16k atoms per rank, weak, MPS at the auto cap (docs/sweep-h200/md-weak at 73f2085)."""
    return [ran(ONE_PER_GPU, 1, 0, 1.28e8), ran(MPS, 2, 100, 1.46e8), ran(MPS, 4, 50, 2.17e8),
            ran(MPS, 8, 25, 2.85e8), ran(MPS, 16, 13, 3.43e8), ran(MPS, 32, 7, 4.76e7)]


def arm_of(table, arm):
    return [m for m in table if m.point.arm == arm]


class AdviseChoice(unittest.TestCase):
    def test_heat_strong_picks_two_ranks_under_mps(self):
        table = heat_strong_h200()
        c = choose(table)
        self.assertEqual(c.index, 3)
        self.assertEqual(describe(table[3].point), "2 MPS 100%")
        self.assertAlmostEqual(c.efficiency, 2.22 / 2.16, places=12)
        self.assertEqual(c.why, "the fastest point")

    def test_md_weak_picks_sixteen_ranks_and_eight_on_eight_cores(self):
        table = md_weak_h200()
        self.assertEqual(describe(table[choose(table).index].point), "16 MPS 13%")
        # The same table on a node with 8 cores: 16 and 32 ranks are skipped.
        node = Node(gpus=1, cores=8)
        for k, m in enumerate(table):
            why = skip_reason(m.point, node, RankNeed())
            if why:
                table[k] = Measured(m.point, False, m.throughput, why)
        self.assertEqual(table[4].why, "16 ranks on 8 cores")
        c = choose(table)
        self.assertGreaterEqual(c.index, 0)
        self.assertEqual(describe(table[c.index].point), "8 MPS 25%")
        self.assertAlmostEqual(c.efficiency, 2.85 / 1.28, places=12)

    def test_the_probe_stops_climbing_once_throughput_falls(self):
        mps = arm_of(heat_strong_h200(), MPS)
        # 2 is the first: climb; then 4 fell below 2: stop there.
        self.assertTrue(keep_climbing(mps[:1]))
        self.assertFalse(keep_climbing(mps[:2]))
        md = arm_of(md_weak_h200(), MPS)
        for n in range(1, 5):
            self.assertTrue(keep_climbing(md[:n]), n)
        self.assertFalse(keep_climbing(md))  # 32 fell
        # A point that failed or was skipped ends the arm too.
        md[1] = Measured(md[1].point, False, 0, "exit 1")
        self.assertFalse(keep_climbing(md[:2]))
        self.assertTrue(keep_climbing([]))

    def test_the_time_sliced_arm_climbs_from_one_rank_per_gpu(self):
        table = heat_strong_h200()
        one, ts = table[0], arm_of(table, TIME_SLICED)
        self.assertTrue(keep_climbing([], start=one))
        self.assertFalse(keep_climbing(ts[:1], start=one))  # 2 time-sliced fell below 1/GPU
        self.assertTrue(keep_climbing(ts[:1]))               # without the start: a second point
        faster = [ran(TIME_SLICED, 2, 0, 1.01 * one.throughput)]
        self.assertTrue(keep_climbing(faster, start=one))
        # A start that did not run is no start.
        self.assertTrue(keep_climbing(ts[:1], start=Measured(one.point, False, 0, "exit 1")))

    def test_level_points_go_to_the_simplest(self):
        # 8 MPS is 1 % faster than 4 MPS and 4 time-sliced: level; fewer ranks
        # first, then no MPS.
        table = [ran(ONE_PER_GPU, 1, 0, 1.0e9), ran(MPS, 4, 50, 1.50e9),
                 ran(TIME_SLICED, 4, 0, 1.50e9), ran(MPS, 8, 25, 1.515e9)]
        c = choose(table)
        self.assertEqual(c.index, 2)
        self.assertEqual(c.why, "within 2 % of the fastest, and simpler")
        # With no tolerance the fastest wins.
        self.assertEqual(choose(table, 0).index, 3)
        # At the same k, the larger cap is simpler (fewer SMs withheld).
        self.assertEqual(choose([ran(MPS, 4, 25, 2e9), ran(MPS, 4, 50, 2e9)]).index, 1)

    def test_a_failed_point_is_never_chosen(self):
        table = md_weak_h200()
        table[4] = Measured(table[4].point, False, 9e9, "exit 137 (out of memory)")
        c = choose(table)
        self.assertGreaterEqual(c.index, 0)
        self.assertEqual(describe(table[c.index].point), "8 MPS 25%")
        self.assertEqual(choose([Measured(Point(), False, 0, "exit 1")]).index, -1)
        self.assertEqual(choose([]).index, -1)
        # Without a one-per-GPU point there is no efficiency to give.
        self.assertEqual(choose([ran(MPS, 8, 25, 3e8)]).efficiency, 0)

    def test_points_that_did_not_run_are_no_candidates_however_fast(self):
        # A failed and a skipped point that keep a throughput (a run cut short,
        # a recorded table) at or above the fastest point that ran, and simpler
        # than it: neither is level with it, neither is chosen, nor is its
        # throughput the efficiency's base.
        table = [Measured(Point(ONE_PER_GPU, 1, 0), False, 5e9, "failed (exit 1)"),
                 Measured(Point(TIME_SLICED, 2, 0), False, 5e9, "skipped: 2 ranks on 1 cores"),
                 ran(MPS, 4, 50, 2e9), ran(MPS, 8, 25, 1.5e9)]
        c = choose(table)
        self.assertEqual(c.index, 2)
        self.assertEqual(c.why, "the fastest point")
        self.assertEqual(c.efficiency, 0)
        # Level with the fastest that ran: still not chosen.
        table[1] = Measured(Point(TIME_SLICED, 2, 0), False, 2e9, "failed (exit 137)")
        self.assertEqual(choose(table).index, 2)

    def test_points_a_node_cannot_run_are_skipped_with_the_reason(self):
        node = Node(4, 64, 100 * GIB, 80 * GIB, 48)
        self.assertEqual(skip_reason(Point(MPS, 16, 13), node, RankNeed()), "")
        self.assertEqual(skip_reason(Point(MPS, 32, 7), node, RankNeed()), "128 ranks on 64 cores")
        self.assertEqual(skip_reason(Point(TIME_SLICED, 4, 0), Node(0, 2), RankNeed()),
                         "4 ranks on 2 cores")  # the host backend: the node is one
        wide = Node(1, 128, 0, 0, 48)
        self.assertEqual(skip_reason(Point(MPS, 64, 4), wide, RankNeed()),
                         "64 MPS clients per GPU, the server takes 48")
        self.assertEqual(skip_reason(Point(TIME_SLICED, 64, 0), wide, RankNeed()), "")  # no server
        self.assertEqual(skip_reason(Point(MPS, 8, 25), node, RankNeed(4 * GIB, 0)),
                         "host memory: 128.0 GiB needed, 100.0 GiB available")
        self.assertEqual(skip_reason(Point(MPS, 8, 25), node, RankNeed(0, 12 * GIB)),
                         "GPU memory: 96.0 GiB needed per GPU, 80.0 GiB available")

    def test_forecast_is_steps_times_a_step_on_every_gpu(self):
        f = forecast(36000, 0.1, 4)
        self.assertAlmostEqual(f.seconds, 3600)
        self.assertAlmostEqual(f.gpu_hours, 4)
        self.assertEqual(forecast(1000, 0, 1).seconds, 0)


if __name__ == "__main__":
    unittest.main()
