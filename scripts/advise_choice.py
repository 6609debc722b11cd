"""advise's decisions, apart from how its points are measured, so that they are
tested on recorded probe tables (tests/sweep/test_advise_choice.py): which
points of the three arms a node can run, when the probe stops climbing an arm,
which point it picks, and what that costs. The arms:
  one per GPU   1 rank per GPU
  time-sliced   k ranks per GPU without MPS
  MPS           k ranks per GPU under MPS, each capped at `cap` percent
"""
from dataclasses import dataclass

ONE_PER_GPU, TIME_SLICED, MPS = "one per GPU", "time-sliced", "MPS"
GIB = 1024.0 ** 3


@dataclass
class Point:
    arm: str = ONE_PER_GPU
    ranks_per_gpu: int = 1
    cap: int = 0  # MPS active thread percentage; 0: none (or not known yet)


def describe(p, host=False):
    """"1/GPU", "8 time-sliced", "8 MPS 25%"; on the host (no GPU to share)
    "1 rank", "8 ranks" (and the MPS arm, never run there, "8 MPS")."""
    if host and p.arm != MPS:
        return "%d rank%s" % (p.ranks_per_gpu, "" if p.ranks_per_gpu == 1 else "s")
    if p.arm == ONE_PER_GPU:
        return "1/GPU"
    text = "%d %s" % (p.ranks_per_gpu, p.arm)
    if p.arm == MPS and p.cap > 0:
        text += " %d%%" % p.cap
    return text


@dataclass
class Node:
    """What the node gives the job."""
    gpus: int = 1
    cores: int = 1             # in the job's cpuset
    host_bytes: float = 0      # host memory the job may use; 0: unknown
    gpu_bytes: float = 0       # each GPU's; 0: unknown
    clients_per_gpu: int = 48  # the MPS server's limit (mps/cap_policy.hpp)


@dataclass
class RankNeed:
    """What one rank needs at a point (a strong-scaled rank needs less the more
    ranks share the input)."""
    host_bytes: float = 0
    gpu_bytes: float = 0


def skip_reason(p, node, need):
    """Why `p` cannot run on `node`, or "" when it can: more ranks than cores,
    more MPS clients than a GPU's server takes, host or GPU memory. A node
    without a GPU (the host backend) counts as one."""
    ranks = p.ranks_per_gpu * max(node.gpus, 1)
    if ranks > node.cores:
        return "%d ranks on %d cores" % (ranks, node.cores)
    if p.arm == MPS and p.ranks_per_gpu > node.clients_per_gpu:
        return "%d MPS clients per GPU, the server takes %d" % (p.ranks_per_gpu, node.clients_per_gpu)
    host = need.host_bytes * ranks
    if node.host_bytes > 0 and host > node.host_bytes:
        return "host memory: %.1f GiB needed, %.1f GiB available" % (host / GIB, node.host_bytes / GIB)
    gpu = need.gpu_bytes * p.ranks_per_gpu
    if node.gpu_bytes > 0 and gpu > node.gpu_bytes:
        return "GPU memory: %.1f GiB needed per GPU, %.1f GiB available" % (gpu / GIB,
                                                                          node.gpu_bytes / GIB)
    return ""


@dataclass
class Measured:
    """A point of the probe table: run (throughput: the workload's unit per
    second over the whole job), or not (why: skipped or failed, and how)."""
    point: Point
    ran: bool = False
    throughput: float = 0
    why: str = ""
    seconds_per_step: float = 0  # steady, where it ran
    run_seconds: float = 0       # the probe's wall time for the point (launch to exit)


def keep_climbing(arm_points, start=None):
    """Whether the probe goes on to the next k of an arm, given that arm's points
    so far in rising k: not once the last one that ran fell below the best
    before it, nor after a point that could not run. `start` is the point the
    arm climbs from, where there is one: the time-sliced arm climbs from one
    rank per GPU (time-slicing adds ranks that wait their turn, no
    concurrency), so a first point slower than that ends it; the MPS arm's
    first point always gets a second (its cap changes with k)."""
    if start is not None and start.ran:
        arm_points = [start] + arm_points
    if not arm_points:
        return True
    if not arm_points[-1].ran:
        return False
    best_before = max([m.throughput for m in arm_points[:-1] if m.ran], default=0)
    return arm_points[-1].throughput >= best_before


def _simplicity(p):
    """Simpler first: fewer ranks per GPU, then no MPS, then the larger cap."""
    return (p.ranks_per_gpu, 1 if p.arm == MPS else 0, -p.cap)


@dataclass
class Choice:
    index: int = -1         # into the table; -1: no point ran
    efficiency: float = 0   # its throughput / one per GPU's (0: that did not run)
    why: str = ""           # one line: why this point


def choose(table, tie=0.02):
    """The fastest point that ran. Points within `tie` (relative) of it count as
    level, and of those the simplest wins: fewer ranks per GPU, then no MPS
    before MPS, then the larger cap."""
    ran = [m for m in table if m.ran]
    if not ran:
        return Choice(why="no point ran")
    best = max(m.throughput for m in ran)
    one = max([m.throughput for m in ran if m.point.arm == ONE_PER_GPU], default=0)
    level = [i for i, m in enumerate(table) if m.ran and m.throughput >= (1 - tie) * best]
    index = min(level, key=lambda i: (_simplicity(table[i].point), i))
    m = table[index]
    why = ("the fastest point" if m.throughput == best else
           "within %d %% of the fastest, and simpler" % round(tie * 100))
    return Choice(index, m.throughput / one if one > 0 else 0, why)


@dataclass
class Forecast:
    seconds: float = 0
    gpu_hours: float = 0


def forecast(steps, seconds_per_step, gpus):
    """Time to solution and its cost: `steps` at `seconds_per_step` on `gpus` GPUs."""
    if seconds_per_step <= 0:
        return Forecast()
    seconds = steps * seconds_per_step
    return Forecast(seconds, seconds * gpus / 3600.0)
