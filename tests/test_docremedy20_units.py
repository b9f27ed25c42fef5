"""docremedy.py (docs20) asserted function by function (mutation round 15, docs/mutation.md): the index the table
is read into, the words a line is cut into, which section a line matches and how long, the cause made of a section,
which causes a documented remedy goes below, when a section speaks to the root, when the text names the project, the
failure lines read, and apply's paths (no answer: the project's family; a root: its place among the causes).

test_explain_docremedy20.py runs real texts (public threads) through explain; these call the functions on the
generated table's own rows (generated/doc_remedies.json) and on small scans of the shapes the scanner makes."""

from gpudoctor.explain import docremedy as D
from gpudoctor.explain import load_knowledge
from gpudoctor.explain.knowledge import generated_table
from gpudoctor.explain.text import clip


class _Hit:
    def __init__(self, line, text, severity=None):
        self.line, self.text, self.severity = line, text, severity


class _Scan:
    def __init__(self, errors=(), tracebacks=()):
        self.errors, self.tracebacks = list(errors), list(tracebacks)


def _real_scan(text, kb):
    import io

    from gpudoctor.explain.scan import scan_stream

    return scan_stream(io.BytesIO(text.encode()), kb)


def _row(project):
    return next(r for r in D._table()["rows"] if r["project"] == project)


ACC = "cannot apply desired operation due to shape mismatches. all shapes across devices must be valid"


def test_the_index_is_every_fragment_by_its_first_four_words():
    saved = dict(D._STATE)
    D._STATE.clear()
    try:
        st = D._table()
        rows = generated_table("doc_remedies")["sections"]
        want = {}
        for i, row in enumerate(rows):
            for fr in row["fragments"]:
                words = [w.strip(".,;:'\"()[]`") for w in fr.split()]
                words = [w for w in words if w]
                if len(words) >= 4:
                    want.setdefault(" ".join(words[:4]), []).append((words, i))
        assert st["rows"] == rows and st["index"] == want
        assert D._table() is st  # read once
        assert want["cannot apply desired operation"] == [(ACC.replace(".", "").split(), 0)]
    finally:
        D._STATE.clear()
        D._STATE.update(saved)


def test_words_are_stripped_lowered_and_bounded():
    assert D._words("Error: (Foo) `bar`, 'baz'; ... [x]") == ["error", "foo", "bar", "baz", "x"]
    assert D._words("a" * 100) == ["a" * 80, "a" * 20]
    assert "b" not in D._words("a " * 2000 + "b")  # the first 4,000 characters
    assert len(D._words("w " * 1000)) == 300


def test_sections_of_whole_long_and_short_matches():
    acc = _row("accelerate")
    whole = D.sections_of("DistributedOperationException: Cannot apply desired operation due to shape mismatches. All "
                          "shapes across devices must be valid.")
    assert whole == [(acc, 15)]
    # LONG (8) words in a row from the fragment's start are a match; 7 are not
    assert D.sections_of("x: cannot apply desired operation due to shape mismatches. other") == [(acc, 8)]
    assert D.sections_of("x: cannot apply desired operation due to shape other") == []
    assert D.sections_of("cannot apply desired") == [] and D.sections_of("") == []
    # two sections on a line: the longer match first
    two = D.sections_of("Cannot apply desired operation due to shape mismatches. All shapes | ValueError: Attempting "
                        "to unscale FP16 gradients.")
    assert [(r["project"], n) for r, n in two] == [("accelerate", 10), ("peft", 5)]


def test_cause_of_a_section():
    row = {"project": "datasets", "heading": "H" * 130, "url": "https://x.example/p#h",
           "fix": ["one.", "two " * 150, "three.", "four."]}
    c = D.cause(row)
    head = clip("H" * 130, 120)
    assert c == {"text": "datasets' documentation quotes this message in '%s' (https://x.example/p#h)" % head,
                 "checks": [], "confirm": [], "fix": [
                     "datasets' documentation ('%s'): one." % clip("H" * 130, 80),
                     "datasets' documentation ('%s'): %s" % (clip("H" * 130, 80), clip("two " * 150, 400)),
                     "datasets' documentation ('%s'): three." % clip("H" * 130, 80),
                     "read https://x.example/p#h for the documented cases and fixes"],
                 "exports": {}, "evidence": [], "static_rank": 0, "computed": None,
                 "doc_section": "https://x.example/p#h"}
    assert len(clip("H" * 130, 120)) <= 120 and clip("H" * 130, 120) != clip("H" * 130, 80)
    assert D.cause(dict(row, project="peft"))["text"].startswith("peft's documentation quotes")


def test_proven_causes():
    root = {"confidence": "medium"}
    assert D._proven({"evidence": [{"line": 1}]}, root)
    assert D._proven({"evidence": [], "computed": {"x": 1}}, root)
    assert D._proven({"documented": True}, root)
    # a generated site's own cause: static_rank 0 with an evidence list (empty), not on a structural answer
    assert D._proven({"static_rank": 0, "evidence": []}, root)
    assert not D._proven({"static_rank": 0, "evidence": []}, {"confidence": "structural"})
    assert not D._proven({"static_rank": 0}, root)  # no evidence key: a knowledge entry's cause
    assert not D._proven({"static_rank": 1, "evidence": []}, root)
    assert D._proven({"static_rank": 0, "evidence": []}, {}) is True


def test_related_by_family_area_or_by_the_root_s_line_and_the_project_named():
    row = {"family": "deepspeed.library_error", "project": "deepspeed"}
    assert D._related({"family": "deepspeed.ops", "id": "x.y"}, row, 500)
    assert D._related({"id": "deepspeed.ops"}, row, 500)
    assert D._related({"family": "cuda.x", "id": "deepspeed.ops"}, row, 500)
    far = {"id": "cuda.api_error", "family": "cuda.api_error", "matches": [{"line": 100}, {"line": "x"}]}
    assert not D._related(far, row, 100 + 13)
    assert D._related(far, row, 100 + 12) and D._related(far, row, 100 - 12)  # NEAR, no scan
    assert not D._related(far, row, 100 - 13)
    named = _Scan([_Hit(100, "deepspeed: build failed")])
    assert D._related(far, row, 105, named)
    assert not D._related(far, row, 105, _Scan([_Hit(100, "nvcc failed")]))


def test_shows_project_reads_matches_tracebacks_and_error_lines():
    root = {"matches": [{"text": "from megatron.core import x"}]}
    assert D._shows_project(_Scan(), root, "megatron-bridge")  # the package's spelling
    assert not D._shows_project(_Scan(), {"matches": [{"text": "xdeepspeed"}]}, "deepspeed")
    assert not D._shows_project(_Scan(), {"matches": [{"text": "deepspeed-mii failed"}]}, "deepspeed")
    assert not D._shows_project(_Scan(), {"matches": [{"text": "x" * 2000 + " deepspeed"}]}, "deepspeed")
    assert D._shows_project(_Scan(tracebacks=[{"exc": "deepspeed.ops.X", "frames": []}]), {}, "deepspeed")
    assert D._shows_project(_Scan(tracebacks=[{"exc": "E", "frames": [("/s/DeepSpeed/x.py", 1, "f")]}]), {},
                            "deepspeed")
    assert D._shows_project(_Scan([_Hit(1, "peft: bad")]), {"matches": []}, "peft")
    assert not D._shows_project(_Scan([_Hit(1, "x")] * 64 + [_Hit(2, "peft: bad")]), {}, "peft")
    assert not D._shows_project(object(), {}, "peft")


def test_names_project_spellings_and_bounds():
    assert D.names_project(_Scan([_Hit(1, "Megatron_Bridge failed")]), "megatron-bridge")
    assert D.names_project(_Scan([_Hit(1, "megatron-bridge failed")]), "megatron-bridge")
    assert D.names_project(_Scan([_Hit(1, "lightning_fabric: x")]), "lightning")
    assert not D.names_project(_Scan([_Hit(1, "xpeft y")]), "peft")
    assert not D.names_project(_Scan([_Hit(1, "peftx y")]), "peft")
    assert not D.names_project(_Scan([_Hit(1, "x")] * 64 + [_Hit(2, "peft")]), "peft")
    frames = [("/a.py", 1, "f")] * 64 + [("/site-packages/peft/x.py", 1, "f")]
    assert not D.names_project(_Scan(tracebacks=[{"exc": "E", "frames": frames}]), "peft")
    assert D.names_project(_Scan(tracebacks=[{"exc": "peft.X", "frames": None}]), "peft")
    assert not D.names_project(_Scan([_Hit(1, None)], [{"exc": None}]), "peft")


def test_failure_texts_are_error_lines_and_traceback_messages_in_line_order():
    hit = _Hit(9, "E")
    scan = _Scan([_Hit(5, "[rank0]: RuntimeError: boom  "), _Hit(3, "INFO x", "info"), _Hit(4, "WARN x", "warn"),
                  _Hit(2, "x", "error")],
                 [{"line": 7, "hit": hit, "exc": "ValueError", "msg": "bad", "more": "more words"},
                  {"line": 1, "hit": None, "exc": "E"}, {"line": 8, "hit": hit}])
    assert D._failure_texts(scan) == [(2, scan.errors[3], "x"), (5, scan.errors[0], "RuntimeError: boom"),
                                      (7, hit, "ValueError: bad more words"), (8, hit, ":  ")]
    assert len(D._failure_texts(_Scan([_Hit(i, "e") for i in range(70)]))) == 64


def _result(root_id, family, line, causes, verdict="root_cause"):
    return {"verdict": verdict, "findings": [{"id": root_id, "family": family, "confidence": "medium",
                                              "matches": [{"line": line}], "causes": causes}]}


MSG = ("accelerate.utils.operations.DistributedOperationException: Cannot apply desired operation due to shape "
       "mismatches. All shapes across devices must be valid.")
G = {"text": "g", "fix": [], "evidence": [], "static_rank": 1, "computed": None}


def test_apply_with_a_root():
    kb = load_knowledge()
    url = _row("accelerate")["url"]
    for verdict in ("root_cause", "echo_only"):
        res = _result("accelerate.x", "accelerate.x", 3, [dict(G), dict(G)], verdict)
        D.apply(res, _Scan([_Hit(3, MSG)]), kb)
        assert [c.get("doc_section") for c in res["findings"][0]["causes"]] == [None, url, None], verdict
    # no cause yet: the documented one is the first
    res = _result("accelerate.x", "accelerate.x", 3, [])
    D.apply(res, _Scan([_Hit(3, MSG)]), kb)
    assert [c.get("doc_section") for c in res["findings"][0]["causes"]] == [url]
    # proven causes first, then the documented one
    p = dict(G, evidence=[{"line": 3}])
    res = _result("accelerate.x", "accelerate.x", 3, [dict(p), dict(p), dict(G)])
    D.apply(res, _Scan([_Hit(3, MSG)]), kb)
    assert [c.get("doc_section") for c in res["findings"][0]["causes"]] == [None, None, url, None]
    # once only: a root that has a documented cause, or whose fix already names the page
    for causes in ([dict(G, doc_section="u")], [dict(G, fix=["see " + url])]):
        res = _result("accelerate.x", "accelerate.x", 3, causes)
        D.apply(res, _Scan([_Hit(3, MSG)]), kb)
        assert len(res["findings"][0]["causes"]) == 1
    # a second documented line after an unrelated first one is still read
    res = _result("cuda.x", "cuda.x", 200, [dict(G)])
    D.apply(res, _Scan([_Hit(3, MSG), _Hit(199, MSG)]), kb)
    assert [c.get("doc_section") for c in res["findings"][0]["causes"]] == [None, url]


def test_apply_without_an_answer_gives_the_project_s_family():
    kb = load_knowledge()
    text = "step 1\nstep 2\n" + MSG + "\n"
    res = {"verdict": "unknown_error", "findings": [], "errors": [{"line": 3, "text": MSG}]}
    D.apply(res, _real_scan(text, kb), kb)
    f = res["findings"][0]
    assert (res["verdict"], res["matched"], res["root"], res["triage"]) == ("root_cause", True, f["id"], [])
    assert f["id"] == "accelerate.library_error" and f["causes"][0]["doc_section"] == _row("accelerate")["url"]
    assert f["notes"][-1] == ("The text's error line 3 is the message the page quotes; the page's remedy is the first "
                              "cause.")
    assert "its message is one accelerate's documentation quotes (15 words), in 'Mismatched tensor shapes'" in \
        f["notes"][0]
    res = {"verdict": "unknown_error", "findings": []}
    D.apply(res, _real_scan(text, kb), kb)
    assert not any("is the message the page quotes" in n for n in res["findings"][0]["notes"])
    # a healthy or failed-to-read answer is never read
    for verdict in ("no_error", "no_input", None):
        res = {"verdict": verdict, "findings": []}
        assert D.apply(res, _Scan([_Hit(3, MSG)]), kb) == {"verdict": verdict, "findings": []}


def test_apply_cases_and_short_fragments():
    kb = load_knowledge()
    # accelerate's 'DeepSpeed Config File' section is about deepspeed_config_file only (its 'cases')
    row = next(r for r in D._table()["rows"] if r.get("cases") == ["deepspeed_config_file"])
    frag = row["fragments"][0]
    res = {"verdict": "unknown_error", "findings": []}
    D.apply(res, _real_scan("ValueError: " + frag + "\n", kb), kb)
    assert not res["findings"]
    res = {"verdict": "unknown_error", "findings": []}
    D.apply(res, _real_scan("ValueError: " + frag + " (DEEPSPEED_CONFIG_FILE)\n", kb), kb)
    assert res["findings"] and res["findings"][0]["causes"][0]["doc_section"] == row["url"]
    # peft's five-word fragment (torch's words too) needs peft named
    line = "ValueError: Attempting to unscale FP16 gradients."
    res = {"verdict": "unknown_error", "findings": []}
    D.apply(res, _real_scan(line + "\n", kb), kb)
    assert not res["findings"]
    res = {"verdict": "unknown_error", "findings": []}
    D.apply(res, _real_scan(line + "\nERROR peft: x\n", kb), kb)
    assert res["findings"][0]["id"] == "peft.library_error"


def test_apply_the_place_among_proven_and_unproven_causes():
    kb = load_knowledge()
    url = _row("accelerate")["url"]
    p = dict(G, evidence=[{"line": 3}])
    site = dict(G, static_rank=0)  # a generated site's own cause (an evidence list, static rank 0)
    for causes, want in (([dict(G), dict(p), dict(G)], 1), ([dict(p), dict(G), dict(G)], 1),
                         ([dict(site), dict(G)], 1)):
        res = _result("accelerate.x", "accelerate.x", 3, causes)
        D.apply(res, _Scan([_Hit(3, MSG)]), kb)
        assert [c.get("doc_section") for c in res["findings"][0]["causes"]].index(url) == want, causes


def test_apply_a_second_section_of_the_line_after_one_skipped():
    kb = load_knowledge()
    # the line holds accelerate's fragment (not this root's project, accelerate not named) and peft's (named)
    line = ("peft: Cannot apply desired operation due to shape mismatches. All shapes | ValueError: Attempting to "
            "unscale FP16 gradients.")
    res = _result("peft.library_error", "peft.library_error", 3, [dict(G)])
    D.apply(res, _Scan([_Hit(3, line)]), kb)
    assert [c.get("doc_section") for c in res["findings"][0]["causes"]] == [None, _row("peft")["url"]]


def test_apply_eight_words_need_no_project_name_and_the_why():
    kb = load_knowledge()
    text = "RuntimeError: cannot apply desired operation due to shape mismatches. other\n"
    res = {"verdict": "unknown_error", "findings": []}
    D.apply(res, _real_scan(text, kb), kb)
    f = res["findings"][0]
    assert f["id"] == "accelerate.library_error"
    assert f["notes"][0] == ("How sure: low. No known message matched; the family is read from the log's shape (its "
                             "message is one accelerate's documentation quotes (8 words), in 'Mismatched tensor "
                             "shapes'). Confirm it with the commands below before acting.")
