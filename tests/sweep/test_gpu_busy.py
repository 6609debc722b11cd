"""bench/gpu_busy.py on a made-up run of two ranks, ten steps of 1000 us:
host phases integrate [0, 100), neighbour check [100, 700), integrate
[700, 900); GPU work A [10, 300) queued at 5, B [710, 800) queued at 705, a
copy [820, 821) queued at 706. Rank 1 is 5 us later on the steady clock, and
each rank's CUPTI clock has its own offset (the "clock" line lines them up).
  python3 tests/sweep/test_gpu_busy.py BENCH_DIR"""
import json
import os
import shutil
import sys
import tempfile
import unittest

bench = sys.argv.pop(1) if len(sys.argv) > 1 else "bench"
sys.path.insert(0, bench)
from gpu_busy import analyse, load, short_name  # noqa: E402

US = 1000  # ns
B_NAME = ("void mpsfw::cuda_exec::for_each_kernel<mpsfw::md::MdArraysStore<mpsfw::CudaExec>::"
          "kick_drift(double, double, mpsfw::md::LjParams const&)::{lambda(long, double*)#1}>"
          "(long, T1)")


def made_up_run(folder, steps=10):
    events = []
    for rank, pid, late, cupti_offset in ((0, 100, 0, 7 * US), (1, 200, 5 * US, -3 * US)):
        origin = 10**9 + late
        events.append({"name": "thread_name", "ph": "M", "pid": 0, "tid": rank,
                       "args": {"name": "rank %d (h)" % rank, "process": pid, "origin_ns": origin}})
        lines = ["clock %d %d" % (10**9 + cupti_offset, 10**9)]
        corr = 0
        for k in range(steps):
            t = 1000.0 * k
            for start, dur, name in ((0, 100, "integrate"), (100, 600, "neighbour check"),
                                     (700, 200, "integrate")):
                events.append({"name": name, "ph": "X", "pid": 0, "tid": rank, "ts": t + start,
                               "dur": dur})
            base = origin + int(t * US) + cupti_offset  # this rank's step start, CUPTI's clock
            for kind, start, end, queued, tail in (("k", 10, 300, 5, "void foo<int>(double*)"),
                                                   ("k", 710, 800, 705, B_NAME),
                                                   ("c", 820, 821, 706, "8")):
                corr += 1
                lines.append("r %d %d 0 %d" % (base + (queued - 1) * US, base + queued * US, corr))
                lines.append("%s %d %d 7 %d %s" % (kind, base + start * US, base + end * US, corr,
                                                   tail))
        with open(os.path.join(folder, "gpu-%d.txt" % pid), "w") as f:
            f.write("\n".join(lines) + "\n")
    with open(os.path.join(folder, "timeline.json"), "w") as f:
        json.dump({"traceEvents": events}, f)


class GpuBusy(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mpsfw-gpu-busy-")
        made_up_run(self.dir)
        self.a = analyse(*load(os.path.join(self.dir, "timeline.json"), self.dir), 0.0)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_kernel_names_are_their_lambdas_functions(self):
        self.assertEqual(short_name(B_NAME), "kick_drift{lambda}")
        self.assertEqual(short_name("void foo<int>(double*)"), "foo")

    def test_busy_is_the_union_of_both_ranks_work(self):
        # A [10, 305) + B [710, 805) + the copies [820, 821) and [825, 826), each step.
        self.assertEqual(self.a["window"], 9905 * US)
        self.assertAlmostEqual(self.a["busy"], 10 * 392 * US, delta=1)
        self.assertEqual(self.a["steps"], {0: 10, 1: 10})
        self.assertEqual(self.a["ops_per_step"], [3.0, 3.0])

    def test_each_wait_goes_to_the_host_or_the_gpu(self):
        # B queued 405 us after A ended, then 5 us on the GPU; the copy queued
        # before B ended, 20 us on the GPU; A queued 184 us after the copy.
        count, host, gpu = self.a["waits"]["kick_drift{lambda}"]
        self.assertEqual(count, 20)
        self.assertAlmostEqual(host, 20 * 405 * US, delta=1)
        self.assertAlmostEqual(gpu, 20 * 5 * US, delta=1)
        count, host, gpu = self.a["waits"]["(copy)"]
        self.assertEqual((count, host), (20, 0))
        self.assertAlmostEqual(gpu, 20 * 20 * US, delta=1)
        count, host, _ = self.a["waits"]["foo"]
        self.assertEqual(count, 18)  # the first A of each rank follows nothing
        self.assertAlmostEqual(host, 18 * 184 * US, delta=1)

    def test_idle_time_goes_to_the_phase_the_hosts_were_in(self):
        idle = self.a["idle_by_phase"]
        self.assertAlmostEqual(idle["neighbour check"], 10 * 405 * US, delta=1)
        self.assertAlmostEqual(idle["(between phases)"], 9 * 184 * US, delta=1)
        self.assertAlmostEqual(idle["integrate"], (10 * 19 + 10 + 79) * US, delta=1)
        self.assertAlmostEqual(sum(idle.values()), self.a["window"] - self.a["busy"], delta=1)


if __name__ == "__main__":
    unittest.main()
