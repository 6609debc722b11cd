"""How advise and sweep start commands and how they end them. Every command
runs in a session of its own, so that a --timeout, SIGINT or SIGTERM ends all
of it: the launcher and every rank it started (mpirun killed alone leaves its
ranks running; Open MPI gives each rank a process group of its own, but in
the launcher's session). Each script's main runs under `main_interruptible`:
the first SIGINT or SIGTERM unwinds through the scripts' finally blocks
(which end the running session and remove the script's temporary files) and
ends in one line and exit 128 + the signal (130, 143).
"""
import os
import signal
import subprocess
import sys
import time

TIMED_OUT = 124  # a run ended by --timeout (timeout(1)'s exit code)
NO_FIGURE = -1  # a --command that ran but printed no --time / --rate figure
# From SIGTERM (mpirun passes it to its ranks, the solver stops at its next
# step) to SIGKILL of whatever is left.
GRACE_SECONDS = 3.0


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived. A BaseException, so that no `except
    Exception` on the way stops it."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def session_members(sid):
    """The live processes (zombies aside) of session `sid`, from /proc."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                # After the command name's ")": state, ppid, pgrp, session.
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if len(fields) > 3 and int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(entry))
    return pids


def _kill(pids, signum):
    for pid in pids:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def end_session(proc, grace=GRACE_SECONDS):
    """Ends the session `proc` leads (started with start_new_session: its pid
    is the session's): SIGTERM to `proc` (a launcher passes it to its ranks,
    as it does a scheduler's), up to `grace` seconds for the session to
    empty, then SIGKILL to every process left in it; returns once `proc` is
    reaped and no process of the session is left (or `grace` more seconds
    passed)."""
    sid = proc.pid
    _kill([sid], signal.SIGTERM)
    deadline = time.monotonic() + grace
    while (proc.poll() is None or session_members(sid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    _kill(session_members(sid), signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + grace
    while session_members(sid) and time.monotonic() < deadline:
        time.sleep(0.05)


def run(cmd, timeout=None, capture_output=False, **popen_args):
    """subprocess.run, the command in a session of its own. On a timeout
    (subprocess.TimeoutExpired) or anything else that unwinds through it
    (Interrupted), the whole session is ended before the exception goes on."""
    if capture_output:
        popen_args.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with subprocess.Popen(cmd, start_new_session=True, **popen_args) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except BaseException:
            try:
                end_session(proc)
            except Interrupted:  # while a timed-out run was ended: end all of it still
                end_session(proc)
                raise
            raise
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def exit_text(rc, timeout):
    """A failed run's exit as the scripts print it."""
    if rc == NO_FIGURE:
        return "exit 0 but no figure of its speed in its output"
    return "timed out after %g s (--timeout)" % timeout if rc == TIMED_OUT else "exit %d" % rc


def main_interruptible(main, who):
    """main()'s return value; SIGINT or SIGTERM while it runs: one line on
    stderr and 128 + the signal. Signals after the first are ignored, so that
    the clean-up they started is not cut short."""

    def on_signal(signum, _frame):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Interrupted(signum)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        return main()
    except Interrupted as stop:
        print("%s: stopped by %s: the runs it started are ended, its temporary files removed"
              % (who, signal.Signals(stop.signum).name), file=sys.stderr)
        return 128 + stop.signum
