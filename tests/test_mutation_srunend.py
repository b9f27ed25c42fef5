"""srunend.finding's words and branches (mutation round 17, part 2: the survivors of gpudoctor/explain/srunend.py
under tests/test_explain_noans22.py).

srun's task-end line (SchedMD/slurm src/srun/launch.c _task_finish: '%s: %s %s: Exited with exit code %d' and
'%s: %s %s: %s%s' with strsignal(sig)) is read through the real scanner (scan_stream) and srunend.finding itself, as
analyze reads it last: a status of 128+N (a shell between srun and the program) is read by runend.py first when the
whole text goes through explain, so the srun branch for it is reached only this way. The signal texts are checked
against this machine's glibc (signal.strsignal, which is glibc's strsignal)."""

import io
import signal
import sys

import pytest

from gpudoctor.explain import analyze, runend, srunend
from gpudoctor.explain.scan import Scan, scan_stream


def _finding(text, kb):
    scan = Scan()
    scan_stream(io.BytesIO(text.encode()), kb, scan, "<t>")
    return srunend.finding(scan, kb, analyze._structural_finding)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the table is glibc's Linux numbering")
@pytest.mark.parametrize("text, num", sorted(srunend.STRSIGNAL.items(), key=lambda kv: kv[1]))
def test_the_signal_texts_are_glibc_strsignal(text, num):
    assert signal.strsignal(num) == text
    m = srunend.task_end(type("H", (), {"groups": {"prog": "srun", "msg": "n1: task 3: %s (core dumped)" % text}})())
    assert m and m.group("sig") == text


@pytest.mark.parametrize("text, num", sorted(srunend.STRSIGNAL.items(), key=lambda kv: kv[1]))
def test_each_signal_srun_reports(text, num, kb):
    name = runend.SIGNALS[num]
    f = _finding("srun: error: n1: task 3: %s\n" % text, kb)
    assert f["id"] == runend.ENTRY.get(name, "cascade.signal")
    assert "(srun's report that task 3 on n1 ended by %s)" % name in f["notes"][0]
    nxt = runend.NEXT.get(name, runend.NEXT_DEFAULT)
    assert f["notes"][-1] == (
        "srun reports that task 3 on n1 ended by %s (signal %d: %s). srun only reports it: the task's own last lines "
        "say why; read %s." % (name, num, runend.MEANS.get(name, "signal %d" % num), nxt))
    assert f["causes"][0]["fix"].count("read next: " + nxt) == 1


def test_a_signal_without_a_meaning_or_a_host(kb):
    # SIGSTKFLT has no MEANS entry and no NEXT entry: the number and the default step are written
    f = _finding("srun: error: tasks 0-3: Stack fault\n", kb)
    assert f["notes"][-1] == ("srun reports that tasks 0-3 ended by SIGSTKFLT (signal 16: signal 16). srun only "
                              "reports it: the task's own last lines say why; read %s." % runend.NEXT_DEFAULT)
    assert f["causes"][0]["fix"][-1] == "read next: " + runend.NEXT_DEFAULT


def test_the_step_is_added_once_when_read_twice(kb):
    for _ in range(2):
        f = _finding("srun: error: n1: task 0: Killed\n", kb)
        assert f["id"] == "elastic.sigkill"
        assert f["causes"][0]["fix"].count("read next: " + runend.NEXT["SIGKILL"]) == 1


@pytest.mark.parametrize("code, num", [("129", 1), ("137", 9), ("139", 11), ("135", 7)])
def test_a_shell_status_of_128_plus_n_is_the_signal(code, num, kb):
    name = runend.SIGNALS[num]
    f = _finding("srun: error: cn2: task 1: Exited with exit code %s\n" % code, kb)
    assert f["id"] == runend.ENTRY.get(name, "cascade.signal")
    assert "srun reports that task 1 on cn2 ended by %s (signal %d: " % (name, num) in f["notes"][-1]


@pytest.mark.parametrize("code", ["1", "128", "255"])  # 255: over 128, no signal (255-128 = 127)
def test_an_own_status_is_the_echo(code, kb):
    f = _finding("srun: error: cn2: task 1: Exited with exit code %s\n" % code, kb)
    assert f["id"] == "cascade.child_failed"
    assert "(srun's report that task 1 on cn2 exited with code %s)" % code in f["notes"][0]
    assert f["notes"][-1] == (
        "srun reports that task 1 on cn2 exited with its own status %s: the program failed, not Slurm. Its error is "
        "the task's own output before this line; this text does not hold it. Find the first task that failed: srun "
        "--label (-l) prefixes each line with its task, and --output=job-%%j-%%t.out keeps one file per task (srun(1) "
        "filename pattern %%t)." % code)


def test_the_first_task_end_after_other_slurm_lines(kb):
    # a Slurm line that is no task end is passed over; the task-end line after it is read
    f = _finding("srun: error: Unable to create step for job 12: Invalid generic resource (gres) specification\n"
                 "srun: error: q1: task 0: Segmentation fault\n", kb)
    assert f and f["id"] == "cascade.signal" and "ended by SIGSEGV" in f["notes"][-1]


def test_a_task_end_the_run_went_on_after_is_not_read(kb):
    text = ("srun: error: q1: task 0: Exited with exit code 1\n" +
            "".join("step %d loss 0.%d\n" % (i, 9 - i) for i in range(5)))
    assert _finding(text, kb) is None
    # the same line at the end is read
    assert _finding("".join("step %d loss 0.%d\n" % (i, 9 - i) for i in range(5)) +
                    "srun: error: q1: task 0: Exited with exit code 1\n", kb)["id"] == "cascade.child_failed"
