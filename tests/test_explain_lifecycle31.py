"""Process life and death under resource limits (explain-lifecycle31, issue 18): the signal table generated from
Python's signal module and glibc's strsignal() (tools/gen_signals.py), and explain's answer to each recording of
fixtures/recorded/explain-lifecycle31/ (torch 2.13.0+cpu, CPython 3.11.7, glibc 2.36; commands in its README.md)."""

import os
import signal
import sys

import pytest

from gpudoctor.explain import explain_file, runend, srunend

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REC = os.path.join(REPO, "fixtures", "recorded", "explain-lifecycle31")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_signals  # noqa: E402
import knowgen  # noqa: E402


def test_signals_table_regenerates_from_its_slice(tmp_path):
    got = knowgen.regenerated(gen_signals.main, os.path.join(REPO, "tools", "data", "signals_slice.tsv"),
                              tmp_path / "signals.json")
    want = knowgen.committed("signals")
    assert got["signals"] == want["signals"] and len(want["signals"]) == 31
    assert want["header"]["generator"] == "tools/gen_signals.py" and "glibc" in want["header"]["version"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's signal numbers")
def test_signal_names_and_texts_are_this_pythons():
    for s in signal.Signals:
        if 1 <= int(s) <= 31:
            assert runend.SIGNALS[int(s)] == s.name
    # srun / bash report only the signals whose default action ends the process (signal(7) Term / Core)
    assert srunend.STRSIGNAL["Killed"] == 9 and srunend.STRSIGNAL["CPU time limit exceeded"] == 24
    assert "Stopped" not in srunend.STRSIGNAL and "Child exited" not in srunend.STRSIGNAL


def _root(name):
    r = explain_file(os.path.join(REC, name))
    return r, r["findings"][0]


@pytest.mark.parametrize("name, eid, verdict", [
    ("brokenpool.txt", "python.multiprocessing", "root_cause"),
    ("dl_bus.txt", "shm.size", "root_cause"),
    ("dl_fd.txt", "usercode.shm_open", "root_cause"),
    ("dl_fdmain.txt", "errno.emfile", "root_cause"),
    ("dl_kill.txt", "usercode.dataloader_killed", "root_cause"),
    ("el_kill.txt", "elastic.sigkill", "root_cause"),
    ("el_term.txt", "elastic.sigterm", "root_cause"),
    ("fork.txt", "errno.eagain", "root_cause"),
    ("nofile_py.txt", "errno.emfile", "root_cause"),
    ("thread_py.txt", "errno.eagain", "root_cause"),
    ("xcpu.txt", "limits.cpu_time", "root_cause"),
    ("xfsz.txt", "errno.efbig", "root_cause"),
    ("killed.txt", "errno.enomem", "likely_cause"),
    ("segv.txt", "cascade.signal", "likely_cause"),
])
def test_each_recording_names_its_family(name, eid, verdict):
    r, root = _root(name)
    assert (root["id"], r["verdict"]) == (eid, verdict)


def test_fixes_name_the_limit_and_the_command_that_raises_it():
    assert "ulimit -n 65536" in _root("nofile_py.txt")[1]["causes"][0]["fix"][0]
    assert "set_sharing_strategy('file_system')" in _root("dl_fd.txt")[1]["causes"][0]["fix"][0]
    assert "ulimit -u" in _root("fork.txt")[1]["causes"][0]["fix"][0]
    assert "--shm-size" in _root("dl_bus.txt")[1]["causes"][0]["fix"][0]
    assert "ulimit -f unlimited" in _root("xfsz.txt")[1]["causes"][0]["fix"][0]


def test_thread_refused_under_an_address_space_limit_lists_ulimit_v():
    # thread_py.txt was recorded under ulimit -v, far below ulimit -u: the RLIMIT_AS cause is listed with its command
    causes = _root("thread_py.txt")[1]["causes"]
    as_cause = [c for c in causes if "RLIMIT_AS" in c["text"]]
    assert as_cause and "ulimit -v unlimited" in as_cause[0]["fix"][0]


@pytest.mark.parametrize("line", [
    # mm/oom_kill.c __oom_kill_process: pr_err("%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:
    # %lukB, shmem-rss:%lukB, UID:%u pgtables:%lukB oom_score_adj:%hd\n", message, ...), as dmesg prints it
    "[ 1234.567890] Out of memory: Killed process 4242 (python3) total-vm:98765432kB, anon-rss:87654321kB, "
    "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:171234kB oom_score_adj:0",
    "Memory cgroup out of memory: Killed process 12345 (python) total-vm:123456kB, anon-rss:98765kB, file-rss:0kB, "
    "shmem-rss:0kB, UID:1000 pgtables:1234kB oom_score_adj:0",
])
def test_the_kernels_oom_kill_line_is_a_sigkill_by_the_oom_killer(line):
    from gpudoctor.explain import explain_text

    r = explain_text(line)
    root = r["findings"][0]
    assert (root["id"], r["verdict"]) == ("elastic.sigkill", "root_cause")
    assert any("OOM killer" in c["text"] for c in root["causes"][:2])


def test_a_ulimit_above_the_hard_limit_names_the_hard_limit_and_where_to_raise_it():
    # ulimit_hard.txt: bash's ulimit -n / -u above the hard limit as an unprivileged user (setpriv --reuid=65534)
    r, root = _root("ulimit_hard.txt")
    assert (root["id"], r["verdict"]) == ("errno.permission", "root_cause")
    first = root["causes"][0]
    assert "hard limit" in first["text"] and "LimitNOFILE=" in first["fix"][0]
