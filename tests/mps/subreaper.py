#!/usr/bin/python3
"""Runs a command as a child subreaper (Linux prctl PR_SET_CHILD_SUBREAPER).

  subreaper.py [--no-reap] COMMAND [ARGS...]

Daemons started under COMMAND (the MPS test double detaches with two forks, the
session's watchdog outlives its leader) are re-parented to this process instead
of PID 1, and this process reaps them as soon as they exit. In containers whose
PID 1 never reaps orphans (docker without --init) an exited daemon would stay a
zombie, and kill(pid, 0) still succeeds on a zombie: tests would see daemons
"alive" that have long quit. When COMMAND ends, anything still left under this
process gets SIGKILL, so a failing test leaks nothing. Exits with COMMAND's
status (128 + signal when it was killed).

--no-reap adopts the orphans but leaves them zombies until COMMAND ends: the
PID 1 of such a container, for the test that shows what a zombie daemon does
to the session's teardown.
"""
import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def children_of(pid):
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(entry))
    return out


def reap_all():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main():
    args = sys.argv[1:]
    reap = True
    if args[:1] == ["--no-reap"]:
        reap = False
        args = args[1:]
    if not args:
        sys.stderr.write(__doc__)
        return 2
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.stderr.write("subreaper.py: prctl failed; running without a subreaper\n")
    child = os.fork()
    if child == 0:
        try:
            os.execvp(args[0], args)
        except OSError as e:
            sys.stderr.write("subreaper.py: cannot run %s: %s\n" % (args[0], e))
            os._exit(127)

    def forward(signum, _frame):
        try:
            os.kill(child, signum)
        except OSError:
            pass

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, forward)
    status = 0
    while True:
        try:
            pid, st = os.wait() if reap else os.waitpid(child, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == child:
            status = os.WEXITSTATUS(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st)
            break
    # Whatever the command left behind (a leaked daemon, a watchdog) goes now.
    for _ in range(50):
        reap_all()
        left = [p for p in children_of(os.getpid()) if p != child]
        if not left:
            break
        for p in left:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.02)
    reap_all()
    return status


if __name__ == "__main__":
    sys.exit(main())
