#!/usr/bin/env python3
"""The README's sample summary is what ./scripts/run.sh prints: runs the
solver as run.sh does (4 ranks, inputs/heat_default.h5, on 2 cores of this
machine as in the README's caption, the backend chosen as run.sh leaves it),
and compares its summary with the README's block line by line, numbers,
paths and host names aside; the README's "    ..." stands for the ranks
after the first. Exit 1 with a diff when they drift; --write puts the run's
summary into the README instead.
    tests/cli/readme_sample.py SOLVER MPIEXEC README [--write]"""
import difflib
import os
import re
import subprocess
import sys

CAPTION = "(`./scripts/run.sh` on a 2-core machine without a GPU:)"


def summary_of(solver, mpiexec, root):
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1")
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cores = sorted(os.sched_getaffinity(0))[:2]
    cmd = ["taskset", "-c", ",".join(map(str, cores)), mpiexec, "-n", "4", solver,
           os.path.join(root, "inputs", "heat_default.h5")]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    if done.returncode != 0:
        sys.exit("readme_sample: the run failed (exit %d):\n%s" % (done.returncode, done.stderr[-2000:]))
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("== mpsfw"))
    out, seen_rank = [], False
    for line in lines[start:]:
        if re.match(r"    rank \d+ on ", line):
            if seen_rank:
                if out[-1] != "    ...":
                    out.append("    ...")
                continue
            seen_rank = True
        out.append(line.replace(root, "/tmp/x"))
    while out and not out[-1].strip():
        out.pop()
    return out


def masked(lines):
    """Numbers, the input's folder and host names out; spacing collapsed."""
    result = []
    for line in lines:
        line = re.sub(r"(input\s+)\S*/", r"\1", line)
        line = re.sub(r" on \S+:", " on HOST:", line)
        line = re.sub(r"\d+(\.\d+)?(e[+-]?\d+)?", "#", line)
        result.append(" ".join(line.split()))
    return result


def main():
    solver, mpiexec, readme = sys.argv[1:4]
    write = "--write" in sys.argv[4:]
    root = os.path.dirname(os.path.abspath(readme))
    text = open(readme).read()
    at = text.index(CAPTION)
    begin = text.index("```\n", at) + 4
    end = text.index("```\n", begin)
    documented = text[begin:end].rstrip("\n").splitlines()
    actual = summary_of(solver, mpiexec, root)
    if write:
        with open(readme, "w") as f:
            f.write(text[:begin] + "\n".join(actual) + "\n" + text[end:])
        print("readme_sample: wrote %d lines into %s" % (len(actual), readme))
        return 0
    if masked(documented) == masked(actual):
        print("readme_sample: the README's summary is what run.sh prints (%d lines)" % len(actual))
        return 0
    print("readme_sample: the README's sample summary has drifted from what run.sh prints "
          "(tests/cli/readme_sample.py SOLVER MPIEXEC README --write updates it):")
    sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in documented], [l + "\n" for l in actual],
                                               "README.md", "run.sh"))
    return 1


if __name__ == "__main__":
    sys.exit(main())
