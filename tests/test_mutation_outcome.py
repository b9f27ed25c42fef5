"""Cases for the mutants of gpudoctor/explain/outcome.py (docs/mutation.md, sixth round): went_on() over a scan's
inputs (an input whose end was not read, error lines that were not kept, the ranks of the failure lines and of the
progress after them, the latest of several inputs), the lines a finding stands on and whether that is all of them,
the input a line belongs to, and what counts as advancing progress. The scans are built in the shape scan.py leaves
(sources with first_line, outcomes from read_tail: (line, kind, key, value, rank, text) events)."""

from types import SimpleNamespace

import pytest

from gpudoctor.explain import outcome as O

WARN = "[rank1]:[W1126 14:18:30.553 ProcessGroupGloo.cpp:524] Warning: Unable to resolve hostname to a (local) address"


def _p(line, key, value, rank=None, text=None):
    return (line, "progress", key, value, rank, text or "step %s" % value)


def test_advancing_progress():
    assert not O._advancing([]) and not O._advancing([_p(5, "step", 1)])
    assert O._advancing([_p(5, None, None), _p(6, None, None)])  # two loss lines without a counter
    assert not O._advancing([_p(5, "step", 1), _p(6, "step", 1)])  # one state printed twice
    assert O._advancing([_p(5, "step", 1), _p(6, None, None), _p(7, "step", 2)])
    assert not O._advancing([_p(5, "step", 2), _p(6, "step", 1)])
    assert O._advancing([_p(5, "step", 2), _p(6, "step", 1), _p(7, "epoc", 0), _p(8, "epoc", 1)])


def test_the_input_a_line_belongs_to():
    scan = SimpleNamespace(sources=[{"first_line": 1}, {"first_line": 10}])
    assert [O._source_index(scan, n) for n in (5, 9, 10, 12)] == [0, 0, 1, 1]
    assert O._source_index(SimpleNamespace(sources=[{"first_line": 5}]), 3) == 0
    assert O._source_index(SimpleNamespace(sources=[{}, {}]), 1) == 1  # first_line 1 when not said


def test_the_lines_a_finding_stands_on():
    scan = SimpleNamespace(match_lines={"a": [5]}, counts={"a": 3})
    assert O._finding_lines(scan, {"id": "a", "matches": [{"line": 3}, {"line": None}], "match_count": 1}) == \
        ({3, 5}, True)
    assert O._finding_lines(scan, {"id": "a", "matches": [{"line": 3}], "match_count": 3}) == ({3, 5}, False)
    # scan kept every line it counted
    assert O._finding_lines(SimpleNamespace(match_lines={"a": [5]}, counts={"a": 1}), {"id": "a", "match_count": 5}) \
        == ({5}, True)
    assert O._finding_lines(SimpleNamespace(match_lines={"a": [5]}, counts={"a": 9}), {"id": "a", "match_count": 9}) \
        == ({5}, False)
    assert O._finding_lines(SimpleNamespace(match_lines={}, counts={"a": 2}), {"id": "a"}) == (set(), True)


def _scan(events, sources=({"first_line": 1},), outcomes=True, errors=(), error_lines=(), error_count=None, **kw):
    scan = SimpleNamespace(sources=list(sources), errors=list(errors), error_lines=list(error_lines),
                           error_count=len(error_lines) if error_count is None else error_count,
                           match_lines={}, counts={}, **kw)
    if outcomes:
        scan.outcomes = [{"events": e, "whole": True} for e in events]  # (read to its end)
    return scan


def _f(line, text, fid="gloo.hostname"):
    return {"id": fid, "matches": [{"line": line, "text": text}], "match_count": 1}


STEPS = [_p(5, "step", 1, "1", "[rank1]: step 1"), _p(6, "step", 2, "1", "[rank1]: step 2")]


def test_the_job_went_on_after_a_ranks_warning():
    assert O.went_on(_scan([STEPS]), [_f(3, WARN)]) == (6, "[rank1]: step 2", "progress")
    # progress of another rank (or of none) is not this rank going on
    other = [_p(5, "step", 1), _p(6, "step", 2)]
    assert O.went_on(_scan([other]), [_f(3, WARN)]) is None
    assert O.went_on(_scan([other]), [_f(3, "Warning: no rank")]) == (6, "step 2", "progress")


def test_what_keeps_the_failure_the_root():
    # no outcome read, or not for every input
    assert O.went_on(_scan([STEPS], outcomes=False), [_f(3, WARN)]) is None
    assert O.went_on(_scan([STEPS], sources=({"first_line": 1}, {"first_line": 50})), [_f(3, WARN)]) is None
    # error lines that were not kept
    assert O.went_on(_scan([STEPS], error_lines=[2], error_count=3), [_f(3, WARN)]) is None
    # a launcher's report that the job failed, in a finding or an error line
    assert O.went_on(_scan([STEPS]), [_f(3, "srun: error: node1: task 0: Exited with exit code 1")]) is None
    err = SimpleNamespace(line=2, text="returned non-zero exit status 1", origin=None)
    assert O.went_on(_scan([STEPS], errors=[err], error_lines=[2]), [_f(3, WARN)]) is None
    # nothing failed
    assert O.went_on(_scan([STEPS]), []) is None


def test_an_error_line_keeps_its_rank():
    # the last failure lines' ranks (within 2 lines of the last) must be the progress's
    err = SimpleNamespace(line=4, text="[rank1]: connect failed, retrying", origin=None)
    assert O.went_on(_scan([STEPS], errors=[err], error_lines=[4]), [_f(1, WARN)]) == (6, "[rank1]: step 2",
                                                                                        "progress")
    err0 = SimpleNamespace(line=4, text="[rank1]: x", origin=("0", None, None))  # scan's origin first
    assert O.went_on(_scan([STEPS], errors=[err0], error_lines=[4]), [_f(1, WARN)]) is None
    assert O.went_on(_scan([STEPS], errors=[err0], error_lines=[4]), [_f(3, WARN)]) == (6, "[rank1]: step 2",
                                                                                         "progress")


def test_the_latest_input_that_went_on():
    src = ({"first_line": 1}, {"first_line": 100})
    later = [_p(105, "step", 1, "1"), _p(109, "step", 2, "1", "[rank1]: step 9")]
    assert O.went_on(_scan([STEPS, later], sources=src), [_f(3, WARN), _f(102, WARN, "gloo.other")]) == \
        (109, "[rank1]: step 9", "progress")
    # the same inputs with their events swapped: input 1 (first_line 100) holds STEPS, all before its line 102
    assert O.went_on(_scan([later, STEPS], sources=src), [_f(102, WARN)]) is None


def _e(line, kind, rank=None, text="x", key=None, value=None):
    return (line, kind, key, value, rank, text)


def test_past_one_inputs_failure_lines():
    out = {"events": [_e(5, "progress", "1", "step 1", "step", 1), _e(6, "progress", "1", "step 2", "step", 2)]}
    assert O._past(out, [(3, "1")]) == (6, "step 2", "progress")
    assert O._past(out, [(3, "0")]) is None  # another rank's progress
    assert O._past(out, [(4, "0"), (2, "1")]) == (6, "step 2", "progress")  # ranks of the lines within 2 of the last
    assert O._past(out, [(4, "0"), (1, "1")]) is None
    assert O._past(out, [(6, "1")]) is None  # nothing after the last failure
    # one progress line is not enough, an end or done line is
    assert O._past({"events": out["events"][:1]}, [(3, "1")]) is None
    assert O._past({"events": [_e(5, "done", None, "saved")]}, [(3, None)]) == (5, "saved", "done")
    assert O._past({"events": [_e(5, "end", "7", "Training completed.")]}, [(3, "1")]) == (5, "Training completed.",
                                                                                         "end")
    # a launcher's report anywhere, or a failure after the progress
    assert O._past({"events": out["events"] + [_e(1, "terminal")]}, [(3, "1")]) is None
    assert O._past({"events": out["events"] + [_e(7, "fatal", "1")]}, [(3, "1")]) is None
    # a failure line of the tail that no finding holds moves the last failure; progress after it still counts
    moved = {"events": [_e(4, "fatal", "1", "NCCL WARN x")] + out["events"]}
    assert O._past(moved, [(2, "1")]) == (6, "step 2", "progress")


def test_past_a_process_that_died():
    died = [_e(4, "fatal", "1", "RuntimeError: boom"), _e(5, "done", "1", "done")]
    assert O._past({"events": died}, [(4, "1")]) is None  # the wrapper's 'done', not the job's
    steps = [_e(5, "progress", "1", "step 1", "step", 1), _e(6, "progress", "1", "step 2", "step", 2)]
    assert O._past({"events": died[:1] + steps}, [(4, "1")]) is None
    assert O._past({"events": died + [_e(8, "end", None, "JobState=COMPLETED")]}, [(4, "1")]) == (
        8, "JobState=COMPLETED", "end")
    # not a death: the same lines go on
    warned = [_e(4, "fatal", "1", "connect failed, retrying")] + steps
    assert O._past({"events": warned}, [(4, "1")]) == (6, "step 2", "progress")


def test_a_finding_of_warning_lines_only():
    w = {"matches": [{"text": WARN}], "match_count": 1}
    assert O._warning_only(w)
    assert not O._warning_only({"matches": [], "match_count": 0})
    assert not O._warning_only(dict(w, match_count=2))  # lines not kept may be other lines
    assert O._warning_only({"matches": [{"text": WARN}]})
    assert not O._warning_only({"matches": [{"text": WARN}, {"text": "RuntimeError: x"}], "match_count": 2})
    assert not O._warning_only({"matches": [{"text": None}], "match_count": 1})
    # NCCL prints its errors as WARN: never a warning here, whatever the line's prefix
    assert not O._warning_only({"matches": [{"text": "[W1126 10:00:00.000 x.cpp:1] NCCL WARN Call to connect "
                                             "returned Connection refused"}], "match_count": 1})


# ------------------------------------------------------------------ past_warnings

def _w(fid, line, text=WARN, kind="warning", **kw):
    f = {"id": fid, "kind": kind, "matches": [{"line": line, "text": text}], "match_count": 1, "first_line": line}
    f.update(kw)
    return f


PAST = [_p(5, "step", 1, "1", "[rank1]: step 1"), _p(6, "step", 2, "1", "[rank1]: step 2"),
        _e(9, "fatal", "1", "[rank1]: ValueError: batch 2 has 0 samples")]


def _note(f, ev):
    return (f["id"], ev)


def _pw(findings, events=PAST, structural=lambda: None, **kw):
    return O.past_warnings(_scan([events], **kw), findings, structural, _note)


def test_a_warning_the_job_went_past_before_a_later_failure():
    warn, warn2, err = _w("gloo.hostname", 3), _w("gloo.other", 2), _w("code.exception", 9, "ValueError: x", "error")
    echo = _w("echo.x", 10, "x", "echo")
    got, notes = _pw([warn, warn2, err, echo])
    assert [f["id"] for f in got] == ["code.exception", "echo.x"] and notes == [
        ("gloo.hostname", (6, "[rank1]: step 2", "progress")), ("gloo.other", (6, "[rank1]: step 2", "progress"))]
    assert [f["role"] for f in got] == ["root", "cascade"]
    # the rank's own exception from structural() when no finding is after the progress; the earlier of the two
    exc = _w("code.exception", 8, "ValueError: x", "error")
    assert [f["id"] for f in _pw([_w("gloo.hostname", 3)], structural=lambda: exc)[0]] == ["code.exception"]
    got, _ = _pw([_w("gloo.hostname", 3), _w("later", 9, "x", "error")], structural=lambda: exc)
    assert [f["id"] for f in got] == ["code.exception", "later"] and [f["role"] for f in got] == ["root", "related"]
    got, _ = _pw([_w("gloo.hostname", 3), _w("later", 7, "x", "error")], structural=lambda: exc)
    assert [f["id"] for f in got] == ["later"]
    # an echo or a finding before the progress from structural() is no later failure
    assert _pw([_w("gloo.hostname", 3)], structural=lambda: dict(exc, kind="echo"))[1] == []
    assert _pw([_w("gloo.hostname", 3)], structural=lambda: dict(exc, first_line=4))[1] == []


def test_what_leaves_the_warning_the_root():
    warn, err = _w("gloo.hostname", 3), _w("code.exception", 9, "ValueError: x", "error")
    for findings, kw in [
            ([], {}), ([_w("echo.x", 3, WARN, "echo"), err], {}), ([err, warn], {}),
            ([warn, err], {"outcomes": False}), ([warn, err], {"sources": ({"first_line": 1}, {"first_line": 50})}),
            ([warn, err], {"events": PAST[:2]}),  # no failure after it
            ([warn, err], {"events": PAST[2:]}),  # no progress
            ([warn, err], {"events": [PAST[0], _e(6, "fatal", "1", "x"), _p(7, "step", 2, "1")]}),  # before step 2
            ([warn, err], {"events": [_p(5, "step", 1, "0"), _p(6, "step", 2, "0"), PAST[2]]}),  # another rank's
            ([warn, err], {"events": [_p(3, "step", 1, "1"), PAST[1], PAST[2]]}),  # at the warning's line
            ([warn, _w("code.exception", 5, "x", "error")], {}),  # no failure after the progress
    ]:
        events = kw.pop("events", PAST)
        assert _pw(findings, events, **kw) == (findings, []), (findings, events, kw)
    # a launcher's report after the progress is a failure too; a step of no rank counts
    term = [PAST[0], PAST[1], _e(9, "terminal", None, "srun: error: task 0: Exited with exit code 1")]
    assert _pw([warn, err], term)[0][0]["id"] == "code.exception"
    norank = [_p(5, "step", 1), _p(6, "step", 2), PAST[2]]
    assert _pw([warn, err], norank)[0][0]["id"] == "code.exception"


# ------------------------------------------------------------------ classify, read_tail, record

@pytest.mark.parametrize("raw,want", [
    # tqdm redraws its bar after '\r' (tqdm/std.py): the last state is the line's
    ("10%|#  | 1/10 [00:01<00:09]\r 20%|##  | 2/10 [00:02<00:08]", ("progress", "tqdm", 2.0)),
    ("step 3 loss 1\r", ("progress", "step", 3.0)),  # a line that only ends in '\r' is read whole
    ("Killed", ("fatal", None, None)),
    # transformers' "Saving model checkpoint to %s"; torch/_inductor/select_algorithm.py's autotune line
    ("Saving model checkpoint to /out/checkpoint-500", ("done", None, None)),
    ("SingleProcess AUTOTUNE benchmarking takes 1.2345 seconds and 0.0000 seconds precompiling for 20 choices",
     ("done", None, None)),
    ("global step 7", ("progress", "glob", 7.0)), ("loss: 0.5", ("progress", None, None)),
    ("training " + "a" * 86 + " done", ("done", None, None)),  # a script's own end line: 100 characters at most
    ("training " + "a" * 87 + " done", (None, None, None)),
])
def test_classify(raw, want):
    assert O.classify(raw) == want


def test_read_tail():
    data = b"step 1\n[rank3]: step 2 " + b"x" * 200 + b"\n\xff\xfe bad bytes\n"
    assert O.read_tail("<t>", 10, data) == {"path": "<t>", "first": 8, "last": 10, "events": [
        (8, "progress", "step", 1.0, None, "step 1"), (9, "progress", "step", 2.0, "3", "step 2 " + "x" * 153)], "heads": {}, "records": {}}
    # more than MAX_LINES lines: the last ones, numbered from the input's end
    many = b"".join(b"step %d\n" % i for i in range(O.MAX_LINES + 5))
    got = O.read_tail("<t>", 1000, many)
    assert got["first"] == 1000 - O.MAX_LINES + 1 and len(got["events"]) == O.MAX_LINES
    assert got["events"][0][:4] == (601, "progress", "step", 5.0)
    # a full tail: its first line may be the end of a longer one, left out
    full = b"step 9 " + b"y" * (O.TAIL - 20) + b"\nstep 10\nstep 11\n"
    got = O.read_tail("<t>", 50, full)
    assert got["first"] == 49 and [e[0] for e in got["events"]] == [49, 50]
    assert O.read_tail("<t>", 3, b"") == {"path": "<t>", "first": 4, "last": 3, "events": [], "heads": {},
                                          "records": {}}
    # (fp26) an INFO / DEBUG record that is no event: its header, rank and text; an event's line is not repeated there
    got = O.read_tail("<t>", 2, b"2026-11-28 09:06:34,128 INFO probe: rank 1 of 2: mesh\nINFO probe: step 3\n")
    assert got["records"] == {1: ("L probe: ", None, "INFO probe: rank 1 of 2: mesh")}  # (the time stamp: a prefix)


def test_record_keeps_the_first_inputs():
    scan = SimpleNamespace(stopped=False, stop_reason=lambda: None)
    for i in range(O.MAX_INPUTS + 2):
        O.record(scan, "in%d" % i, 1, b"step 1\n")
    assert len(scan.outcomes) == O.MAX_INPUTS and scan.outcomes[-1]["path"] == "in%d" % (O.MAX_INPUTS - 1)
    assert scan.outcomes[0] == {"path": "in0", "first": 1, "last": 1, "whole": True,
                                "events": [(1, "progress", "step", 1.0, None, "step 1")], "heads": {}, "records": {}}
    cut = SimpleNamespace(stopped=True, stop_reason=lambda: None)
    O.record(cut, "x", 1, b"")
    assert cut.outcomes[0]["whole"] is False


def test_from_the_after_runs_survivors():
    plain = [_p(5, "step", 1), _p(6, "step", 2)]
    # a launcher's report that the job failed, as a finding's line (the progress is of no rank, as srun's line)
    assert O.went_on(_scan([plain]), [_f(3, "Warning: no rank")]) == (6, "step 2", "progress")
    assert O.went_on(_scan([plain]), [_f(3, "srun: error: node1: task 0: Exited with exit code 1")]) is None
    # a finding's line that says the process died: its rank's later lines are not it going on
    assert O.went_on(_scan([STEPS]), [_f(4, "[rank1]: RuntimeError: boom")]) is None
    # a progress line at the failure's own line (a warning printed at the end of a tqdm bar) is not after it
    assert O._past({"events": [_p(5, "tqdm", 5), _p(6, "tqdm", 6)]}, [(5, None)]) is None
    # the last progress line before the failure is where the job went past the warning
    three = [_p(5, "step", 1, "1"), _p(6, "step", 2, "1"), _p(7, "step", 3, "1", "[rank1]: step 3"), PAST[2]]
    warn, err = _w("gloo.hostname", 3), _w("code.exception", 9, "ValueError: x", "error")
    assert _pw([warn, err], three)[1] == [("gloo.hostname", (7, "[rank1]: step 3", "progress"))]
    # only warning findings go: an error before the progress and an echo of warning lines stay
    before = _w("other.error", 4, "connect failed", "error")
    echo = _w("echo.w", 2, WARN, "echo")
    got, notes = _pw([warn, before, echo, err])
    assert [f["id"] for f in got] == ["code.exception", "other.error", "echo.w"] and len(notes) == 1
    # an echo after the progress is no later failure
    assert _pw([warn, _w("echo.late", 9, "x", "echo")]) == ([warn, _w("echo.late", 9, "x", "echo")], [])


def test_an_error_line_where_the_process_died():
    err = SimpleNamespace(line=4, text="[rank1]: RuntimeError: boom", origin=None)
    assert O.went_on(_scan([STEPS], errors=[err], error_lines=[4]), [_f(1, WARN)]) is None
