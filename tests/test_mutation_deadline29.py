"""Mutation round 24 (docs/mutation.md): gpudoctor/deadline.py (suite29/review29: d0affb34, a0d00ee4, 5d4db7af) in
process, so mutmut can count it. test_timeout.py and test_review29.py run most of it in a subprocess, which mutmut
cannot see. The work runs real programs (`true`); every wait is on a state with a deadline."""
import os
import signal
import subprocess
import threading
import time

import pytest

from gpudoctor import deadline


def _until(cond, what, limit=60):
    end = time.time() + limit
    while not cond():
        assert time.time() < end, what
        time.sleep(0.01)


def test_work_past_its_deadline_is_refused_programs_and_others_are_not():
    go, done, said = threading.Event(), threading.Event(), []

    def work():
        go.wait(60)
        try:
            subprocess.run(["true"], check=True)
            said.append("ran")
        except OSError as exc:
            said.append("refused: %s" % exc)
        done.set()

    assert deadline.call(work, 0.05) == (False, None)
    # this thread (the caller) and a new one still start programs
    subprocess.run(["true"], check=True)
    other = []
    t = threading.Thread(target=lambda: other.append(subprocess.run(["true"]).returncode))
    t.start()
    t.join(60)
    assert other == [0]
    go.set()
    assert done.wait(60)
    assert said == ["refused: the run's deadline passed: no program is started any more"], said


def test_work_within_its_deadline_gives_its_value_and_no_deadline_waits_for_it():
    assert deadline.call(lambda: subprocess.run(["true"]).returncode, 30) == (True, 0)
    # 0, a negative number and None: no deadline (the work is waited on to its end)
    for seconds in (0, -1, None):
        go = threading.Event()
        threading.Timer(0.3, go.set).start()
        assert deadline.call(lambda: go.wait(60) and "done", seconds) == (True, "done")


def test_a_deadline_under_a_second_is_kept():
    go = threading.Event()
    try:
        assert deadline.call(lambda: go.wait(20), 0.5) == (False, None)
    finally:
        go.set()


def test_an_interrupt_while_waiting_leaves_the_work_to_be_waited_on():
    # watch: a first Ctrl-C waits a moment for what the work has; the exception carries the thread and its outcome
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals are delivered to the main thread")
    go = threading.Event()
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt) as got:
        deadline.call(lambda: go.wait(60) and 7, 60)
    t, out = got.value.pending
    assert isinstance(t, threading.Thread) and not out.done  # (join marks it stopped: bpo-45274)
    go.set()
    assert out.finished.wait(60)
    assert out.done and out.value == 7 and out.error is None


def test_held_interrupts_notes_signals_and_restores_the_handlers():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are set in the main thread only")
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with deadline.held_interrupts() as held:
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGTERM)
        _until(lambda: len(held.noted) == 2, "the signals were not noted")
    assert sorted(held.noted) == sorted([signal.SIGINT, signal.SIGTERM])
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    # an error inside is not swallowed (watch's partial report raises on)
    with pytest.raises(KeyError):
        with deadline.held_interrupts():
            {}["x"]
    # in another thread nothing changes (signal.signal refuses there) and nothing is raised
    seen = []

    def elsewhere():
        with deadline.held_interrupts() as h:
            seen.append((dict(h.old), list(h.noted)))

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join(60)
    assert seen == [({}, [])]


def test_a_forked_child_of_a_process_with_abandoned_work_starts_programs():
    # the abandoned threads' idents are free in a child (only the forking thread is there); its next threads reuse
    # them and were refused programs (review29)
    go = threading.Event()
    assert deadline.call(lambda: go.wait(60), 0.05) == (False, None)
    try:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: 8 threads, each starts a program
            try:
                said = []

                def start():
                    try:
                        subprocess.run(["true"], check=True)
                        said.append("r")
                    except OSError:
                        said.append("x")

                for _ in range(8):
                    t = threading.Thread(target=start)
                    t.start()
                    t.join(30)
                with deadline._LOCK:
                    said.append(str(len(deadline._ABANDONED)))
                os.write(w, "".join(said).encode())
            finally:
                os._exit(0)
        os.close(w)
        got = b""
        while True:
            chunk = os.read(r, 100)
            if not chunk:
                break
            got += chunk
        os.close(r)
        os.waitpid(pid, 0)
        assert got == b"rrrrrrrr0", got
    finally:
        go.set()


def test_a_timed_out_node_says_which_deadline_passed():
    import socket

    node = deadline.timed_out_node(0.25)
    assert node.host == socket.gethostname() and node.error_kind == "timeout"
    assert node.error == ("the local run did not finish within 0.25s (--timeout); a hung NVML/nvidia-smi or a slow "
                          "--python probe are the usual causes: `gpudoctor facts` shows each section's seconds")
