"""Cases for the mutants of gpudoctor/explain/versions.py's known bugs without an error line
(docs/mutation.md, fourth round). known_bug_entries and _symptom_entry build knowledge entries when
the knowledge loads, cached per process: mutmut forks each mutant after that load, so the answers of
test_explain_known_hangs never see a mistake there. These build the entries again and compare them
whole, written out from the module's rules (NCCL's release-notes page per release, the torch release
whose wheel pins a fixed NCCL, the range and why it starts where it does)."""

import copy
import json
import os

from gpudoctor.explain import versions as V
from gpudoctor.explain.knowledge import open_generated

GEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gpudoctor", "data", "knowledge",
                   "generated")


def _rows():
    with open_generated("nccl_releases") as f:
        return json.load(f)["known_bugs"]


def _row(bug_id):
    return copy.deepcopy(next(b for b in _rows() if b["id"] == bug_id))


CONFIRM = "python -c 'import torch; print(torch.cuda.nccl.version())'   (the NCCL torch loads)"


def test_a_hang_with_a_known_start_a_workaround_and_a_torch_that_pins_the_fix():
    b = _row("nccl.bug_2203_a2a_connect_hang")
    t = V.first_torch_with("2.20.3")
    assert (t["torch"], t["nccl"], t["nccl_package"]) == ("2.3.0", "2.20.5", "nvidia-nccl-cu12")
    assert V._symptom_entry(b, t) == {
        "id": "nccl.bug_2203_a2a_connect_hang", "family": "nccl.known_bug", "rank": 64, "structural": True,
        "title": "Known NCCL bug, fixed in 2.20.3: Fix hang during A2A connection",
        "explain": "NCCL's release notes of 2.20.3 list \"Fix hang during A2A connection\". It hangs with no error "
                   "line of its own; what a log shows of it: an all-to-all that hangs while NCCL connects its peers "
                   "(its first all-to-all, or at communicator init). NCCL 2.19.0 to the release before 2.20.3 have "
                   "it: NCCL_CUMEM_ENABLE's default became 1 in 2.19, NCCL's environment variables docs; "
                   "NVIDIA/nccl#1134: alltoall_perf hangs with 2.19.1, 2.19.3 and 2.19.4, not with 2.18.6 (the "
                   "range: generated/nccl_releases.json).",
        "affects": {"nccl": [["2.19.0", "2.20.3"]]},
        "known_bug": {"release_fix": "Fix hang during A2A connection.", "fixed_in": ["2.20.3"], "symptom": "hang"},
        "signals": [{"re": "all_to_all|alltoall|all-to-all", "weight": 0}],
        "causes": [{"text": "The NCCL this job ran has the bug that 2.20.3 fixed (\"Fix hang during A2A connection\"): "
                            "upgrade NCCL to 2.20.3 or later.",
                    "confirm": [CONFIRM, "rerun with the fixed NCCL: the hang should be gone"],
                    "fix": ["pip install -U 'nvidia-nccl-cu12>=2.20.3' or a torch release that bundles it (torch 2.3.0 "
                            "and later pin NCCL 2.20.5 or newer: pip install -U torch); or LD_PRELOAD a libnccl.so.2 "
                            "of 2.20.3 or later",
                            "until then: export NCCL_CUMEM_ENABLE=0 (NVIDIA/nccl#1134: the hang went away with it)"]}],
        "references": [{"title": "NCCL 2.20.3 release notes (fixed issues)",
                        "url": "https://docs.nvidia.com/deeplearning/nccl/archives/nccl_2203/release-notes/"
                               "rel_2-20-3.html"},
                       {"title": "NVIDIA/nccl release commit b6475625fbca (NCCL 2.20.3)",
                        "url": "https://github.com/NVIDIA/nccl/commit/b6475625fbca"}]}


def test_a_slowdown_and_a_wrong_result_without_a_start_nor_a_torch():
    b = _row("nccl.bug_2203_a2a_connect_hang")
    b.update(symptom="slow", fixed_in="9.9.9")
    del b["workaround"], b["from_why"]
    e = V._symptom_entry(b, None)
    assert e["explain"] == (
        "NCCL's release notes of 9.9.9 list \"Fix hang during A2A connection\". It slows the job with no error line of "
        "its own; what a log shows of it: an all-to-all that hangs while NCCL connects its peers (its first "
        "all-to-all, or at communicator init). The notes do not say when it appeared, so every release before 9.9.9 "
        "is taken as affected (the range: generated/nccl_releases.json).")
    assert e["causes"][0]["fix"] == ["pip install -U 'nvidia-nccl-cu12>=9.9.9'; or LD_PRELOAD a libnccl.so.2 of 9.9.9 "
                                     "or later"]
    assert e["causes"][0]["confirm"][1] == "rerun with the fixed NCCL: the slowdown should be gone"
    assert e["known_bug"]["symptom"] == "slow" and e["title"] == "Known NCCL bug, fixed in 9.9.9: Fix hang during A2A connection"
    assert e["references"][0]["url"].endswith("/nccl_999/release-notes/rel_9-9-9.html")
    b.update(symptom="wrong")
    e = V._symptom_entry(b, {"torch": "9.0", "nccl": "9.9.10"})  # a pin without its package's name: cu12's
    assert "It gives wrong results with no error line of its own;" in e["explain"]
    assert e["causes"][0]["confirm"][1] == "rerun with the fixed NCCL: the wrong results should be gone"
    assert e["causes"][0]["fix"][0] == ("pip install -U 'nvidia-nccl-cu12>=9.9.9' or a torch release that bundles it "
                                        "(torch 9.0 and later pin NCCL 9.9.10 or newer: pip install -U torch); or "
                                        "LD_PRELOAD a libnccl.so.2 of 9.9.9 or later")
    e = V._symptom_entry(b, {"torch": "9.0", "nccl": "9.9.10", "nccl_package": "nvidia-nccl-cu13"})
    assert e["causes"][0]["fix"][0].startswith("pip install -U 'nvidia-nccl-cu13>=9.9.9' or a torch release")


def test_every_known_bug_row_is_an_entry_in_its_order():
    rows = _rows()
    got = V.known_bug_entries()
    assert rows and [e["id"] for e in got] == [b["id"] for b in rows]
    for b, e in zip(rows, got):
        if b.get("symptom"):
            assert e == V._symptom_entry(b, V.first_torch_with(b["fixed_in"])), b["id"]
        else:
            assert "structural" not in e and e["known_bug"] == {"release_fix": b["release_fix"],
                                                                "fixed_in": [b["fixed_in"]]}, b["id"]
    assert sum(1 for b in rows if b.get("symptom")) >= 25


def test_an_error_line_bug_is_an_entry_of_its_patterns_or_lines_together(monkeypatch):
    e = next(x for x in V.known_bug_entries() if x["id"] == "nccl.bug_298_bootstrap_crash")
    assert V.first_torch_with("2.9.8")["torch"] == "2.0.0"
    assert e == {
        "id": "nccl.bug_298_bootstrap_crash", "family": "nccl.known_bug", "rank": 70,
        "title": "Known NCCL bug, fixed in 2.9.8: Fix crash in bootstrap error case",
        "explain": "NCCL's release notes of 2.9.8 list \"Fix crash in bootstrap error case.\". What a log shows of it: a "
                   "bootstrap error (bootstrap.cc WARN), then a segmentation fault instead of the error. NCCL 2.0.0 to "
                   "the release before 2.9.8 have it (from the release order; generated/nccl_releases.json).",
        "affects": {"nccl": [["2.0.0", "2.9.8"]]},
        "known_bug": {"release_fix": "Fix crash in bootstrap error case.", "fixed_in": ["2.9.8"]},
        "causes": [{"text": "This NCCL release has the bug that 2.9.8 fixed: upgrade NCCL to 2.9.8 or later.",
                    "confirm": [CONFIRM],
                    "fix": ["pip install -U 'nvidia-nccl-cu12>=2.9.8' (torch 2.0.0 and later pin it: pip install -U "
                            "torch); or LD_PRELOAD a libnccl.so.2 of 2.9.8 or later"]}],
        "references": [{"title": "NCCL 2.9.8 release notes (fixed issues)",
                        "url": "https://docs.nvidia.com/deeplearning/nccl/archives/nccl_298/release-notes/rel_2-9-8.html"},
                       {"title": "NVIDIA/nccl release commit ca8485b0d01c (NCCL 2.9.8)",
                        "url": "https://github.com/NVIDIA/nccl/commit/ca8485b0d01c"}],
        "together": [{"all": ["bootstrap\\.cc:\\d{1,5} NCCL WARN",
                              "Segmentation fault|SIGSEGV|signal 11\\b|exitcode\\s{0,4}:\\s{0,4}-11\\b"],
                      "within": 1000000, "rank": 70}]}
    # a row of patterns, a fix line of several sentences (' * '), no torch that pins the fix
    row = {"id": "nccl.bug_x", "release_fix": "Fix A. * Fix B.", "fixed_in": "99.0.0", "commit": "abc", "rank": 61,
           "affects": ["2.0.0", "99.0.0"], "shows": "it", "patterns": ["NCCL WARN x"]}
    monkeypatch.setattr(V, "_generated", lambda name: {"known_bugs": [row]})
    (e,) = V.known_bug_entries()
    assert e["title"] == "Known NCCL bug, fixed in 99.0.0: Fix A" and e["patterns"] == ["NCCL WARN x"]
    assert "together" not in e and e["causes"][0]["fix"] == ["pip install -U 'nvidia-nccl-cu12>=99.0.0'; or LD_PRELOAD "
                                                             "a libnccl.so.2 of 99.0.0 or later"]


def test_what_shows_a_hang(monkeypatch):
    import io

    from gpudoctor.explain import load_knowledge
    from gpudoctor.explain.scan import Scan, scan_stream

    sc = Scan()
    scan_stream(io.BytesIO(b"nothing to see\n"), load_knowledge(), sc, "paste.txt")

    def result(fid):
        return {"findings": [{"id": fid, "matches": [{"line": 3, "text": "the line"}]}]}

    assert V._shows(result("torch.watchdog_timeout"), sc, "hang") == (3, "the line")
    assert V._shows(result("nccl.timeout"), sc, "hang") == (3, "the line")
    assert V._shows(result("nccl.other"), sc, "hang") is None
    assert V._shows(result("nccl.other"), sc, "slow") is None
    assert V._shows(result("nccl.other"), sc, "wrong") == ()
    def scan(text):
        sc = Scan()
        scan_stream(io.BytesIO(text.encode()), load_knowledge(), sc, "paste.txt")
        return sc

    # no finding says it: the user's own complaint, a hang for a hang and a slowdown for a slowdown
    none = {"findings": []}
    assert V._shows(none, scan("my training hangs at the first step\n"), "hang") == (1, "my training hangs at the "
                                                                                      "first step")
    assert V._shows(none, scan("my training hangs at the first step\n"), "slow") is None
    assert V._shows(none, scan("my training is very slow on 2 nodes\n"), "hang") is None
    assert V._shows(none, scan("my training is very slow on 2 nodes\n"), "slow") == (1, "my training is very slow "
                                                                                      "on 2 nodes")
    # a hang finding without a usable line (no matches, a line that is no number, no text): the complaint
    for f in ({"id": "nccl.timeout"}, {"id": "nccl.timeout", "matches": [{"line": "x", "text": "t"}]},
              {"id": "nccl.timeout", "matches": [{"line": 3, "text": ""}]}):
        assert V._shows({"findings": [f]}, scan("my training hangs\n"), "hang") == (1, "my training hangs"), f
    assert V._clip("a " * 100, 20) == "a a a a a a a [...]" and V._clip("short", 20) == "short"


def _known(text):
    from gpudoctor.explain import explain_text, load_knowledge

    res = explain_text(text, kb=load_knowledge(), source="paste.txt")
    return res, [f for f in res["findings"] if f.get("family") == "nccl.known_bug"]


def test_the_known_bugs_notes_word_for_word():
    from test_explain_known_hangs import BANNER, NCCL_1134, WATCHDOG

    res, (f,) = _known(NCCL_1134)
    assert res["findings"][0] is f and f["role"] == "root" and f["first_line"] == 1 and f["confidence"] == "cause"
    assert "from_info_lines" not in f and [m["line"] for m in f["matches"]] == [1, 2]
    line2 = ("In a cluster of 16 H100 nodes, I have tested alltoall_perf with nccl version 2.19.1 2.19.3 2.19.4, and "
             "found that it will hang at [...]")
    assert f["notes"][:2] == [
        "How sure: medium. NCCL 2.19.1 ran here (line 2), in the range this bug affects (2.19.0 <= NCCL < 2.20.3), and "
        "the text shows its symptom: the job hangs (line 2: %s), with line 1: NCCL alltoall_perf hangs in a cluster of "
        "16 8*H100 gpus nodes. The version and the symptom together make it a candidate, not a certainty: if the job "
        "still hangs with NCCL 2.20.3 or later, the other causes below are next." % line2,
        "Other known bugs of NCCL 2.19.1 with this symptom: Fix a potential hang in alltoall-like communication "
        "patterns at a scale of over 80 ranks (fixed in 2.27.3)."]
    res, (f,) = _known(BANNER.format(v="2.19.3") + WATCHDOG.format(op="ALLTOALL_BASE"))
    assert f["first_line"] == 1 and f["notes"][0] == (
        "How sure: medium. NCCL 2.19.3 ran here (line 1), in the range this bug affects (2.19.0 <= NCCL < 2.20.3), and "
        "the text shows its symptom: the job hangs (line 2: [rank3]:[E ProcessGroupNCCL.cpp:523] [Rank 3] Watchdog "
        "caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLTOALL_BASE [...]), and that line names the "
        "bug's condition. The version and the symptom together make it a candidate, not a certainty: if the job still "
        "hangs with NCCL 2.20.3 or later, the other causes below are next.")
    assert not any(n.startswith("Other known bugs") for n in f["notes"])
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity "
           "of 79.11 GiB of which 1.94 GiB is free.\n")
    res, (f,) = _known(BANNER.format(v="2.19.3") + oom + WATCHDOG.format(op="ALLTOALL_BASE"))
    assert res["findings"][1] is f and f["role"] == "related" and f["notes"][0] == (
        "A second candidate: the root above names its cause; this known bug of NCCL 2.19.3 has the same symptom.")
    assert f["notes"][1].startswith("How sure: medium. NCCL 2.19.3 ran here (line 1)")
