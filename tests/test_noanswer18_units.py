"""noanswer18's explicit.py readers one at a time (mutation18, docs/mutation.md "Round 13"): each answer said whole
(why, note, the DCGM code's own cause first), a verbs status outside enum ibv_wc_status, a raise statement as the last
frame of a cut traceback, the lines a cut traceback may end in, an exception's line quoted or glued to a word, the 16
exception lines read, lines the run went past, and seen() for each kind alone. Lines in the printing programs' own
forms (explicit.py cites each: DCGM's dcgm_errors.h codes, libibverbs' ibv_wc status / vendor_err, systemd's and the
programs' start failures, GNU make, CMake, CPython's traceback frames); verl-project/verl#575's cut traceback is the
seen set's (bench/data/explain_heldout_2026-11-27aa.jsonl)."""

import io
import json
import os

import pytest

from gpudoctor import explain
from gpudoctor.explain import explicit, scan
from explainhelp import ANSWERED

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOW = "How sure: low. No known message matched; the family is read from the log's shape (%s). Confirm it with the " \
      "commands below before acting."
PROGRESS = "".join("epoch 1 step %d loss 2.1\n" % i for i in range(10))
CLASS = "AttributeError: 'DeepSpeedZeroOptimizer_Stage3' object has no attribute 'train'"
CUT_END = "The traceback ends at a frame (%s): its last line, the exception that names what failed, is not in the " \
          "text. Paste the whole error (the line after the last frame), or rerun and keep stderr."


def _root(text, kb):
    r = explain.explain_text(text, kb)
    assert r["verdict"] in ANSWERED, (r["verdict"], text)
    return r["findings"][0]


def _scan(text, kb):
    return scan.scan_stream(io.BytesIO(text.encode("utf-8")), kb)


def test_a_dcgm_code_said_whole(kb):
    f = _root("node condition {Type:AcceleratedHardwareReady Status:False Reason:DCGMHealthCode122}\n", kb)
    assert f["id"] == "dcgm.error"
    assert f["notes"] == [
        LOW % "DCGM's error code 122 (DCGM_FR_IMEX_UNHEALTHY, dcgm_errors.h)",
        "DCGM's code 122 is DCGM_FR_IMEX_UNHEALTHY: 'IMEX %s status is %s (%s)'. DCGM's next step for it: Check IMEX "
        "installation, configuration, domain and daemon status, and network connectivity."]
    c = f["causes"][0]
    assert c == {"text": "DCGM reported DCGM_FR_IMEX_UNHEALTHY (code 122): 'IMEX %s status is %s (%s)'.",
                 "checks": [], "confirm": [], "fix": ["Check IMEX installation, configuration, domain and daemon "
                                                      "status, and network connectivity."],
                 "exports": {}, "evidence": [], "static_rank": 0, "computed": None}
    # the run went on past it: not what stopped anything
    r = explain.explain_text("node condition {Type:AcceleratedHardwareReady Status:False Reason:DCGMHealthCode122}\n"
                             + PROGRESS, kb)
    assert not r["findings"] or r["findings"][0]["id"] != "dcgm.error"


def test_a_verbs_status_said_whole_and_one_past_the_enum(kb):
    f = _root("mlx5: completion with status 12 and vendor err 0x81\n", kb)
    assert f["id"] == "rdma.completion_error"
    assert f["notes"] == [
        LOW % "a verbs work completion with status 12 (transport retry counter exceeded) and the adapter's vendor "
              "error 0x81",
        "libibverbs' struct ibv_wc: status 12 is transport retry counter exceeded (enum ibv_wc_status), vendor err "
        "0x81 the adapter's own syndrome. A flushed request (5) follows an earlier error on the same queue pair: the "
        "first completion error in time, on either side, is the one to read; a retry counter exceeded (12, 13) is "
        "the path or the peer not answering (link, switch, PCIe ACS / IOMMU between the GPU and the adapter)."]
    # enum ibv_wc_status ends at 23 (IBV_WC_TM_RNDV_INCOMPLETE): a later status is named by its number
    assert _root("mlx5: completion with status 24 and vendor err 0x81\n", kb)["notes"][0] == \
        LOW % "a verbs work completion with status 24 (status 24) and the adapter's vendor error 0x81"
    assert "status 23 (TM rendezvous incomplete)" in \
        _root("mlx5: completion with status 23 and vendor err 0x81\n", kb)["notes"][0]


def test_a_service_start_failure_said_whole(kb):
    f = _root("Nov 27 09:00:01 node nv-hostengine: nv-hostengine cannot be started: port 5555 in use\n", kb)
    assert f["id"] == "dcgm.hostengine"
    assert f["notes"] == [
        LOW % "DCGM's host engine (nv-hostengine) could not start (the line names it)",
        "The line says DCGM's host engine (nv-hostengine) did not start; the words before it on the line (or the "
        "lines just before) say what it found missing. Its own log and `journalctl -u <its unit>` hold the rest."]
    assert "not running" in f["causes"][0]["text"]  # the host engine not running first (review18)


def test_a_build_tools_report_said_whole(kb):
    # (noanswer18 992919c: make's report is the echo of the command it ran that failed, build.step_failed)
    r = explain.explain_text("make[2]: *** [CMakeFiles/foo.dir/build.make:76: foo.o] Error 1\n", kb)
    assert r["verdict"] == "echo_only"
    f = r["findings"][0]
    assert f["id"] == "build.step_failed"
    assert f["notes"] == [
        LOW % "make's own report of a failed build step",
        "make reports that a step failed; the step's own error (the compiler's, the linker's, the configure "
        "check's) is printed above this line: that first error names the cause."]
    assert _root("CMake Error at CMakeLists.txt:12 (find_package):\n  Could not find a package configuration file\n",
                 kb)["notes"][0] == LOW % "CMake's own report of a failed build step"


def _named(cls, exc, attr):
    return [LOW % ("%s, a class deepspeed defines, named by %s alone (no traceback)" % (cls, exc)),
            "%s is deepspeed's class (its wheel defines it): the error was met inside deepspeed or in a call to it.%s "
            "Only the exception's last line is here: the traceback above it names the file that raised it; paste the "
            "whole error to tell deepspeed's code from the caller's." % (
                cls, " An attribute its %s lacks: the caller (another library or your code) was written for another "
                "release of deepspeed - check the versions installed together (pip show deepspeed)." % cls
                if attr else "")]


def test_an_exception_line_naming_a_librarys_class_said_whole(kb):
    f = _root(CLASS + "\n", kb)
    assert f["id"] == "deepspeed.library_error" and f["notes"] == _named("DeepSpeedZeroOptimizer_Stage3",
                                                                         "AttributeError", True)
    # quoted after other words; its closing quote is not part of the message
    assert _root("pytorch throw: `%s`\n" % CLASS, kb)["notes"] == _named("DeepSpeedZeroOptimizer_Stage3",
                                                                         "AttributeError", True)
    # the class named by a message that is not a missing attribute
    assert _root("TypeError: DeepSpeedZeroOptimizer_Stage3.step() missing 1 required positional argument: "
                 "'closure'\n", kb)["notes"] == _named("DeepSpeedZeroOptimizer_Stage3", "TypeError", False)


@pytest.mark.parametrize("text", [
    "x" + CLASS + "\n",  # glued to a word: no exception line
    "".join("ValueError: value %d out of range\n" % i for i in range(16)) + CLASS + "\n",  # the 17th exception line
    CLASS + "\n" + PROGRESS,  # the run went on
])
def test_an_exception_line_not_read_for_its_class(kb, text):
    r = explain.explain_text(text, kb)
    assert not any("DeepSpeedZeroOptimizer_Stage3 is deepspeed's class" in " ".join(f["notes"]) for f in r["findings"])


CUT_USER = ('Traceback (most recent call last):\n  File "/home/u/train.py", line 40, in <module>\n    main()\n'
            '  File "/home/u/train.py", line 31, in main\n'
            '    raise ValueError("batch_size must be divisible by the number of GPUs")\n')


def test_a_cut_traceback_ending_in_the_users_raise_said_whole(kb):
    f = _root(CUT_USER, kb)
    assert f["id"] == "code.exception"
    assert f["notes"] == [LOW % "the raise statement of your train.py:31, in main, the last frame of a traceback cut "
                                "before its exception line", CUT_END % "train.py:31, in main"]


def test_a_cut_traceback_ending_in_a_librarys_frame_said_whole(kb):
    with open(os.path.join(REPO, "bench", "data", "explain_heldout_2026-11-27aa.jsonl"), encoding="utf-8") as fh:
        text = next(c["text"] for c in map(json.loads, filter(str.strip, fh))
                    if c["id"] == "aa-verl575-wakeup-oom-empty-cache")
    f = _root(text, kb)
    assert f["notes"] == [LOW % "the innermost frame of a traceback cut before its exception line is vllm's "
                                "(utils.py:2196, in run_method)", CUT_END % "utils.py:2196, in run_method"]


def test_the_lines_a_cut_traceback_may_end_in(kb):
    tb, hit = explicit.cut_traceback(_scan(CUT_USER, kb))
    assert tb["frames"][-1][:3] == ("/home/u/train.py", 31, "main") and hit.text.strip().startswith("File ")
    # carets and a code fence after the frame's source line
    assert explicit.cut_traceback(_scan(CUT_USER + "    ^^^^^^^^^^\n```\n", kb))
    # three other lines after it: the traceback was not cut there
    assert explicit.cut_traceback(_scan(CUT_USER + "a\nb\nc\n", kb)) is None
    # seven lines after the frame (its source line and six carets): too far
    assert explicit.cut_traceback(_scan(CUT_USER + "    ^^^\n" * 6, kb)) is None
    assert explicit.cut_traceback(_scan(CUT_USER + "    ^^^\n" * 5, kb))
    # logging's stack_info: a running program's frames
    assert explicit.cut_traceback(_scan("Stack (most recent call last):\n" + CUT_USER.split("\n", 1)[1], kb)) is None
    # a whole traceback is no cut one
    assert explicit.cut_traceback(_scan(CUT_USER + "ValueError: batch_size must be divisible\n", kb)) is None


@pytest.mark.parametrize("text", [
    "node condition {Type:AcceleratedHardwareReady Status:False Reason:DCGMHealthCode122}\n",
    "mlx5: completion with status 12 and vendor err 0x81\n",
    "Nov 27 09:00:01 node nv-hostengine: nv-hostengine cannot be started: port 5555 in use\n",
    "make[2]: *** [CMakeFiles/foo.dir/build.make:76: foo.o] Error 1\n",
    CUT_USER,
])
def test_seen_for_each_kind_alone(kb, text):
    assert explicit.seen(_scan(text, kb)) is True


@pytest.mark.parametrize("text", [
    "node condition {Type:AcceleratedHardwareReady Status:True Reason:DCGMHealthCode0}\n",
    "mlx5: completion with status 0 and vendor err 0x0\n",
    "all good\n",
])
def test_seen_not_for_a_success(kb, text):
    assert explicit.seen(_scan(text, kb)) is False


@pytest.mark.parametrize("code,eid,name,text", [
    (1, "dcgm.error", "DCGM_FR_UNKNOWN", "Unknown error."),  # no family of its own and no next step ('')
    (32, "dcgm.diag", "DCGM_FR_CANNOT_GET_FIELD_TAG", "Unable to get field information for field id %hu"),
])
def test_a_dcgm_code_without_a_next_step(kb, code, eid, name, text):
    f = _root("Message:DCGM detected issues in health check system with error code %d\n" % code, kb)
    assert f["id"] == eid
    assert f["notes"] == [LOW % ("DCGM's error code %d (%s, dcgm_errors.h)" % (code, name)),
                          "DCGM's code %d is %s: '%s'." % (code, name, text)]
    assert not any(c["text"].startswith("DCGM reported") for c in f["causes"])


@pytest.mark.parametrize("first", [
    "ValueError: value out of range\n",  # an exception line naming no class of the table
    "x" + CLASS + "\n",  # glued to a word
    "I1127 10:00:00.000000 1 x.py:1] " + CLASS + "\n",  # an INFO record (glog's I header)
])
def test_an_exception_line_after_one_not_read_is_read(kb, first):
    f = _root(first + CLASS + "\n", kb)
    assert f["notes"] == _named("DeepSpeedZeroOptimizer_Stage3", "AttributeError", True)


def test_an_info_records_exception_line_alone_is_not_read(kb):
    r = explain.explain_text("I1127 10:00:00.000000 1 x.py:1] " + CLASS + "\n", kb)
    assert not any(f["id"] == "deepspeed.library_error" for f in r["findings"])


def test_a_cut_traceback_with_relative_paths(kb):
    f = _root(CUT_USER.replace("/home/u/train.py", "train.py"), kb)
    assert f["notes"][-1] == CUT_END % "train.py:31, in main"


def test_a_start_failure_after_an_earlier_start_or_before_another_units_start(kb):
    fm = "Nov 27 10:00:01 node systemd[1]: Failed to start NVIDIA fabric manager service.\n"
    assert _root("Nov 27 09:00:01 node systemd[1]: Started NVIDIA fabric manager service.\n" + fm,
                 kb)["id"] == "fabric.manager_start"
    assert _root(fm + "Nov 27 10:00:11 node systemd[1]: Started NVIDIA DCGM service.\n", kb)["id"] == \
        "fabric.manager_start"
