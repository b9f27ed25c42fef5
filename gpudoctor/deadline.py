"""The local run under a deadline: what `--timeout` means on this machine.

Contract (docs/slurm.md, "Timeout"): `gpudoctor check` on this machine gathers facts
in a worker thread and waits at most `--timeout` seconds (default 30). When the
deadline passes, the node is reported as "could not be checked" with error_kind
``timeout`` and the run exits 1, like an SSH node that timed out: a node whose own
facts hang (a wedged NVML, a job interpreter stuck importing from a dead NFS mount)
is not healthy. The report still prints, in every format, and names the deadline.

A thread rather than SIGALRM: a C call blocked in the kernel (NVML on a dead GPU)
ignores Python's signal handler until it returns, so an alarm would not fire in time;
a daemon thread is simply abandoned, which is what NHC's watchdog could not do
(mej/nhc #134: a hung check outlived its watchdog).
"""

import threading

try:
    from gpudoctor.node import Node
except ImportError:  # pragma: no cover - before the lead's move lands
    from gpudoctor.runner import Node


class _Outcome(object):
    done = False
    value = None
    error = None


def call(func, seconds):
    """func() in a daemon thread, waited on for at most `seconds`. Returns (True, value),
    or (False, None) when it is still running; its exceptions re-raise here."""
    out = _Outcome()
    out.finished = threading.Event()  # what a caller waits on after Ctrl-C: Thread.join, interrupted once, marks
    # the thread stopped while it runs (CPython 3.11's _wait_for_tstate_lock, bpo-45274's fix) and returns at once

    def work():
        try:
            out.value = func()
        except BaseException as exc:  # re-raised in the caller's thread
            out.error = exc
        with _LOCK:  # ended: its ident may be another thread's next (a test process's deadline.call runs on)
            out.done = True
            _ABANDONED.discard(threading.get_ident())
        out.finished.set()

    t = threading.Thread(target=work, name="gpudoctor-local-run", daemon=True)
    t.start()
    try:
        t.join(seconds if seconds and seconds > 0 else None)
    except KeyboardInterrupt as exc:  # the work goes on: a caller may wait a moment for what it has (watch)
        exc.pending = (t, out)
        raise
    with _LOCK:
        if not out.done:
            _abandon(t)
            return False, None
    if out.error is not None:
        raise out.error
    return True, out.value


class held_interrupts(object):
    """Within it, SIGINT and SIGTERM are noted, not raised (main thread only; elsewhere nothing changes): the short,
    bounded wait after a first interrupt for what a run sampled (watch). A second signal there ended it at any line
    and lost the partial report: coreutils' timeout -s INT sends the signal to its command and then again to the
    whole process group (https://github.com/coreutils/coreutils/blob/master/src/timeout.c, cleanup()), so a command
    it ends gets two, microseconds apart; a user's second Ctrl-C only waits out the bound."""

    def __enter__(self):
        import signal

        self.old = {}
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self.old[sig] = signal.signal(sig, self._note)
            except (ValueError, OSError):  # not the main thread
                pass
        self.noted = []
        return self

    def _note(self, signum, frame):
        self.noted.append(signum)

    def __exit__(self, *exc):
        import signal

        for sig, handler in self.old.items():
            try:
                signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
            except (ValueError, OSError, TypeError):
                pass
        return False


def local_nodes(python=None, timeout=30.0, fast=False):
    """This machine's facts as [Node], bounded by `timeout` seconds: the local transport
    (gpudoctor/transport/local.py), kept here for callers of the old name."""
    from gpudoctor.transport import Payload, get_transport

    return get_transport("local", timeout=timeout).run([], Payload(python=python, fast=fast))


_SWEEP_AT_EXIT = []
_LOCK = threading.Lock()
_HOOKED = []
_ABANDONED = set()  # threads past their deadline: they start no process any more (_no_spawn)
_SPAWN_EVENTS = frozenset(("subprocess.Popen", "os.system", "os.posix_spawn", "os.fork", "os.forkpty", "os.exec",
                           "os.spawn", "pty.spawn"))  # the audit events that start a program (Python docs, audit_events)


def _abandon(thread):
    """A thread past its deadline goes on (it cannot be stopped), but what it would start now would outlive the
    run's sweep (kill_children): each program it starts from now on is refused (an audit hook, Python 3.8+, which
    raises PermissionError in the thread that asked: its caller sees a program that cannot start)."""
    import sys

    if not _HOOKED and hasattr(sys, "addaudithook"):  # once: a hook cannot be removed, and the set empties each
        _HOOKED.append(True)  # time its threads end (a long watch whose windows time out now and then added one each)
        sys.addaudithook(_no_spawn)
        import os

        if hasattr(os, "register_at_fork"):  # a forked child has only the thread that forked (one not refused: it
            os.register_at_fork(after_in_child=_after_fork)  # could not fork); the abandoned ones' idents are free
            # there and glibc gives them to its next threads, which were refused programs (review29)
    _ABANDONED.add(thread.ident)


def _after_fork():
    global _LOCK
    _LOCK = threading.Lock()  # another thread may have held it at the fork: it is never released in the child
    _ABANDONED.clear()


def _no_spawn(event, args):
    if event in _SPAWN_EVENTS and threading.get_ident() in _ABANDONED:
        raise PermissionError("the run's deadline passed: no program is started any more")


def kill_children():
    """Kill what the abandoned work started (a hung interpreter probe, nvidia-smi), so a
    prolog that timed out leaves nothing running. A process stuck in the kernel (D state)
    ignores even SIGKILL; it is left to the kernel.
    The abandoned thread goes on and can start a process after this sweep: a --python probe it had not
    started yet at the deadline ran on after gpudoctor exited (`check --timeout 0.15-0.35 --python` of a
    script that hangs: 5 of 16 runs left it running, reparented to init). The thread is refused new programs
    from its deadline on (_abandon); one it had begun to start then is swept once more as this process exits
    (atexit: after the report is written, when nothing of this run may run any more)."""
    _kill_children()
    if not _SWEEP_AT_EXIT:
        import atexit

        _SWEEP_AT_EXIT.append(True)
        atexit.register(_kill_children)


def _kill_children():
    try:
        import psutil

        kids = psutil.Process().children(recursive=True)
    except Exception:  # psutil missing or /proc unreadable: nothing more to do
        return
    for k in kids:
        try:
            k.kill()
        except Exception:
            pass


def timed_out_node(timeout):
    import socket  # only for a timed-out run (the prolog tier's parent imports no socket otherwise)

    return Node(host=socket.gethostname(), error_kind="timeout",
                error="the local run did not finish within %gs (--timeout); a hung NVML/nvidia-smi or a slow "
                      "--python probe are the usual causes: `gpudoctor facts` shows each section's seconds"
                      % timeout)
