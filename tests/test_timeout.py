"""The --timeout contract for a local run (gpudoctor/deadline.py, docs/slurm.md "Timeout"):
past the deadline the node is reported as not checked (error_kind timeout), in every
format, and the run exits 1, promptly, even though the hung work is still running."""

import json
import os
import time

import pytest


@pytest.fixture
def hung_python(tmp_path):
    """A job interpreter that never answers (stuck importing from a dead NFS mount). It hangs for
    600 s, five times the deadline gpudoctor_cli gives the whole run (120 s): a run that ends at all
    was ended by its --timeout, whatever the machine's load (no wall-clock bound in the test)."""
    p = tmp_path / "python-hangs"
    p.write_text("#!/bin/sh\necho $$ > %s.pid\nexec sleep 600\n" % p)
    p.chmod(0o755)
    return str(p)


def test_local_run_past_timeout_exits_1_and_says_so(gpudoctor_cli, hung_python):
    rc, out, err = gpudoctor_cli("check", "--timeout", "1", "--python", hung_python, "--format", "json")
    assert rc == 1, err  # within gpudoctor_cli's 120 s: the deadline ended the run, not the 600 s probe
    rep = json.loads(out)
    (node,) = rep["nodes"]
    assert node["reachable"] is False and node["error_kind"] == "timeout"
    assert "did not finish within 1s (--timeout)" in node["error"]
    assert rep["summary"]["exit_code"] == 1 and rep["summary"]["nodes_unreachable"] == 1
    # and the hung probe was killed, not left behind. Under load the deadline can end the run before the script wrote
    # its pid (it was killed first): then no process may still run the script itself.
    if os.path.exists(hung_python + ".pid"):
        with open(hung_python + ".pid") as f:
            pid = int(f.read())
        _wait_ended(pid)
    else:
        assert not _running(hung_python)


def _wait_ended(pid, deadline_s=60):
    """Wait until pid is gone or a zombie (killed: SIGKILL wakes it, and it still has to be scheduled to exit, which
    a loaded machine delays: a state 'S' read at once failed a 4-worker CI, suite28), at most deadline_s."""
    end = time.time() + deadline_s
    while True:
        try:
            with open("/proc/%d/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return
        if state == "Z":
            return
        assert time.time() < end, "pid %d still in state %s %d s after the run ended" % (pid, state, deadline_s)
        time.sleep(0.05)


def test_work_past_its_deadline_starts_no_program(tmp_path):
    """The thread a deadline abandoned goes on; a program it started after the sweep (kill_children) outlived the run:
    `check --timeout 0.15-0.35 --python` of a script that hangs left it running in 5 of 16 runs, and one such run was
    a CI failure (the hung probe in state S, suite28). Here the work starts `sleep 600` only after the sweep: the
    start is refused, and nothing the run started is left once it exited."""
    import subprocess
    import sys

    pidfile = tmp_path / "pid"
    code = r"""
import subprocess, sys, threading
from gpudoctor import deadline
go, done, said = threading.Event(), threading.Event(), []
def work():
    go.wait(60)
    try:
        p = subprocess.Popen(["sleep", "600"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        open(sys.argv[1], "w").write(str(p.pid))
        said.append("started")
    except OSError as exc:
        said.append("refused: %s" % exc)
    done.set()
finished, _ = deadline.call(work, 0.05)
deadline.kill_children()
go.set()
print(finished, done.wait(60), "".join(said))
"""
    p = subprocess.run([sys.executable, "-c", code, str(pidfile)], capture_output=True, text=True, timeout=120,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if pidfile.exists():  # the old behaviour: it started; it must not outlive the run (a killed one is gone or Z)
        _wait_ended(int(pidfile.read_text()))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("False True refused: the run's deadline passed"), p.stdout


def _running(path):
    """Live (not zombie) processes whose command line names path."""
    found = []
    for name in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                argv = f.read().split(b"\0")
            with open("/proc/%s/stat" % name) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if path.encode() in argv and state != "Z":
            found.append(int(name))
    return found


def test_timeout_in_text_and_prometheus(gpudoctor_cli, hung_python):
    rc, out, err = gpudoctor_cli("check", "--timeout", "0.5", "--python", hung_python)
    assert rc == 1
    assert "could not be checked (timeout): the local run did not finish within 0.5s (--timeout)" in out
    rc, out, err = gpudoctor_cli("check", "--timeout", "0.5", "--python", hung_python, "--format", "prometheus")
    assert rc == 1
    assert 'error_kind="timeout"} 0' in out and "gpudoctor_exit_code 1" in out


def test_run_within_timeout_is_a_normal_run(gpudoctor_cli):
    rc, out, err = gpudoctor_cli("check", "--fast", "--timeout", "30", "--select", "shm.size", "--format", "json")
    rep = json.loads(out)
    assert rep["nodes"][0]["reachable"] is True, rep["nodes"]
    assert [c["id"] for c in rep["checks"]] == ["shm.size"]
    assert rc == rep["summary"]["exit_code"]


def test_fast_tier_does_not_probe_another_interpreter(gpudoctor_cli, hung_python):
    """--fast reads only this process: PATH's python3 (here: one that hangs) is never run."""
    bindir = os.path.dirname(hung_python)
    os.rename(hung_python, os.path.join(bindir, "python3"))
    env = {"PATH": bindir + ":" + os.environ.get("PATH", "")}
    rc, out, err = gpudoctor_cli("check", "--fast", "--timeout", "5", "--format", "json", env=env)
    assert json.loads(out)["nodes"][0]["reachable"] is True, err
    assert not os.path.exists(hung_python + ".pid")  # the hung python3 never started (it writes its pid first)


def test_deadline_reraises_errors_of_the_work():
    from gpudoctor import deadline

    assert deadline.call(lambda: 42, 5) == (True, 42)
    with pytest.raises(KeyError):
        deadline.call(lambda: {}["x"], 5)
    assert deadline.call(lambda: time.sleep(2), 0.05) == (False, None)


def test_facts_past_timeout_says_so_instead_of_printing_null(gpudoctor_cli, hung_python):
    rc, out, err = gpudoctor_cli("facts", "--timeout", "1", "--python", hung_python)
    assert rc == 1 and out.strip() == ""
    assert "could not be checked (timeout)" in err and len(err.strip().splitlines()) == 1


def test_an_abandoned_thread_that_ended_frees_its_ident():
    """The refusal is of the abandoned thread only, while it runs: a thread's ident is reused by the next thread, and
    a test process (or anything else that calls deadline.call again) would have its later threads refused."""
    import threading

    from gpudoctor import deadline

    go, idents = threading.Event(), []

    def work():
        idents.append(threading.get_ident())
        go.wait(60)

    assert deadline.call(work, 0.01) == (False, None)
    assert idents and idents[0] in deadline._ABANDONED
    go.set()
    end = time.time() + 60
    while idents[0] in deadline._ABANDONED:
        assert time.time() < end, "the ended thread's ident is still refused programs"
        time.sleep(0.01)
