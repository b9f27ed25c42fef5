"""Cases for the mutants of gpudoctor/explain/symptoms.py (docs/mutation.md, fourth round).

Phrases, expand, _needles, way_regex, anchor, ways_of and patterns run when the knowledge loads:
MACROS at import, the rest in load_knowledge, whose result is cached per process. mutmut forks
each mutant from a process that already did both, so test_explain_symptoms' answers never see a
mistake there; these cases call each function and compare its whole answer, written out from the
module's rules (the factored regex, the needles every match holds, the anchor's choice, the load
errors' messages)."""

import re

import pytest
from explainhelp import root_of

from gpudoctor.explain import KnowledgeError
from gpudoctor.explain import symptoms as S


def test_a_phrase_is_a_factored_regex_and_the_fewest_needles_every_match_holds():
    p = S.Phrases(("second", "other"), ("", "big"), ("node", "host"), ("is idle", "stays idle"))
    assert p.parts == [("second", "other"), ("", "big"), ("node", "host"), ("is idle", "stays idle")]
    assert p.regex == r"\b(?:second|other) (?:(?:big) )?(?:node|host) (?:is idle|stays idle)"
    assert re.search(p.regex, "the other big node stays idle") and re.search(p.regex, "second host is idle")
    assert not re.search(p.regex, "the othernode is idle")
    # the run after the optional part (4 needles) is fewer than the 8 whole sequences, all of 5+ characters
    assert p.needles == [b"hostisidle", b"hoststaysidle", b"nodeisidle", b"nodestaysidle"]
    # the whole sequences first when as few; a phrase of one part is its words
    assert S.Phrases(("x",), ("yy", "zz"), ("www",)).needles == [b"xyywww", b"xzzwww"]
    assert S.Phrases(("a b", "cc")).regex == r"\b(?:a b|cc)" and S.Phrases(("a b", "cc")).needles == [b"ab", b"cc"]
    # a run of one part alone is never the needles of a longer phrase ('worker' is in every DataLoader warning)
    assert S.Phrases(("worker",), ("node",), ("is idle",)).needles == [b"workernodeisidle"]
    # an optional part in the middle and single parts at the end: only the whole sequences (4 of them)
    assert S.Phrases(("ab",), ("", "c"), ("de", "fgh")).needles == [b"abcde", b"abcfgh", b"abde", b"abfgh"]
    assert S.Phrases(("a.b",), ("c",)).regex == r"\b(?:a\.b) (?:c)"
    with pytest.raises(ValueError, match="the last part of a phrase may not be optional"):
        S.Phrases(("a",), ("", "b"))


def test_a_phrase_of_too_many_sequences_takes_a_shorter_run():
    words = [tuple("%s%d" % (w, i) for i in range(6)) for w in ("alpha", "bravo", "charl", "delta", "echos")]
    p = S.Phrases(*words)  # 6**5 = 7,776 whole sequences (over 4,000); runs of two parts are 36 needles
    assert p.needles == sorted(("alpha%d" % i + "bravo%d" % j).encode() for i in range(6) for j in range(6))


def test_phrases_joined_and_groups_of_literal_phrases():
    u = S._alt("foo bar", "baz") | S._alt("qux")
    assert u.regex == r"(?:\b(?:foo bar|baz)|\b(?:qux))" and u.needles == [b"baz", b"foobar", b"qux"]
    assert u.parts is None
    assert (S._alt("same gpu") | S._alt("same gpu")).needles == [b"samegpu"]


def test_expand_replaces_macros_inside_macros_and_refuses_an_unknown_one():
    assert S.expand("<same_gpu>") == S.MACROS["same_gpu"].regex
    assert S.expand("<gpu0>x") == S.MACROS["gpu0"] + "x"
    two = S.expand("<two_nodes>")  # <two_nodes> holds <node>
    assert "<" not in two.replace("(?P<", "") and S.MACROS["node"] in two
    assert S.expand("(?P<name>x)") == "(?P<name>x)"  # a named group is no macro
    assert S.expand("plain words") == "plain words"
    with pytest.raises(KnowledgeError) as exc:
        S.expand("a <nope> b")
    assert str(exc.value) == "unknown macro <nope> in 'a <nope> b'"
    # macros nested deeper than four levels are left as they are
    deep = {"m1": "<m2>", "m2": "<m3>", "m3": "<m4>", "m4": "<m5>", "m5": "end"}
    try:
        S.MACROS.update(deep)
        assert S.expand("<m1>") == "<m5>" and S.expand("<m2>") == "end"
    finally:
        for k in deep:
            del S.MACROS[k]


def test_the_needles_of_a_concept():
    assert S._needles("foo|BarBaz") == [b"barbaz", b"foo"]
    assert S._needles("(?:a|b)cde") == [b"cde"]
    assert S._needles(".") is None  # nothing every match must hold
    # a concept that is one macro of phrases has the macro's needles (its words joined), not the regex's
    assert S._needles(S.expand("<same_gpu>"), " <same_gpu> ") == S.MACROS["same_gpu"].needles
    assert S._needles("gdr|gpudirect", "<gpu0>") == [b"gdr", b"gpudirect"]  # a macro of a plain regex
    with pytest.raises(KnowledgeError) as exc:
        S._needles("(unclosed")
    assert str(exc.value).startswith("concept '(unclosed' does not compile: ")


def test_a_way_is_every_concept_within_span_characters_of_the_line():
    assert S.way_regex(["a", "b|c"]) == "^(?=.{0,600}?(?:a))(?=.{0,600}?(?:b|c)).{1,600}"
    rx = re.compile(S.way_regex(["nccl", "sockets"]), re.I)
    assert rx.search("sockets are what NCCL uses") and not rx.search("NCCL " + "x" * 600 + " sockets")


@pytest.mark.parametrize("concepts, want", [
    (["rank", "gpudirect|gdr", "deepspeed"], (1, [b"gdr", b"gpudirect"])),  # a rare three-letter word counts
    (["deepspeed", "slurm"], (0, [b"deepspeed"])),  # both names logs print: the longer
    (["slurm", "sockets"], (1, [b"sockets"])),  # a phrase before a name, even a shorter one
    (["ab"], (None, None)), (["rank|sockets"], (None, None)), (["abc"], (None, None)),
    (["tcp", "rank"], (0, [b"tcp"])),
    (["abcd", "abcdef|xyzw"], (0, [b"abcd"])),  # the longest shortest needle
    (["abcd", "abcde|xyzwv"], (1, [b"abcde", b"xyzwv"])),
])
def test_the_anchor_of_a_way(concepts, want):
    assert S.anchor(concepts) == want


def test_ways_of_an_entry_and_the_load_errors():
    got = S.ways_of({"id": "x.y", "words": [["<same_gpu>", "sockets"], ["gpudirect"]]})
    assert got == [(0, [S.MACROS["same_gpu"].regex, "sockets"], ["samecard", "samecudadevice", "samedevice",
                                                                 "samegpu"]),
                   (1, ["gpudirect"], ["gpudirect"])]
    for words, msg in [
        (None, "x.y: words must be a list of ways (each a list of concept regexes)"),
        ([], "x.y: words must be a list of ways (each a list of concept regexes)"),
        ("sockets", "x.y: words must be a list of ways (each a list of concept regexes)"),
        ([["sockets"], []], "x.y: words[1] must be a list of concept regexes"),
        ([["sockets"], "gdr"], "x.y: words[1] must be a list of concept regexes"),
        ([["sockets", 3]], "x.y: words[0] must be a list of concept regexes"),
        ([["sockets", ""]], "x.y: words[0] must be a list of concept regexes"),
        ([["rank", "ab"]], "x.y: words[0] has no concept with needles of 4+ characters to prefilter on (write one "
                           "as a group of literal phrases)"),
    ]:
        with pytest.raises(KnowledgeError) as exc:
            S.ways_of({"id": "x.y", "words": words})
        assert str(exc.value) == msg, words
    with pytest.raises(KnowledgeError) as exc:
        S.ways_of({"id": "x.y", "words": [["sockets", "a{2,1}"]]})
    assert str(exc.value).startswith("x.y: words[0]: 'a{2,1}' does not compile: ")
    with pytest.raises(KnowledgeError, match="^None: words must be"):
        S.ways_of({})


def test_patterns_are_one_per_way_of_each_entry_with_words():
    got = S.patterns([{"id": "a.b"}, {"id": "c.d", "words": [["sockets", "<same_gpu>"], ["gpudirect"]]}])
    assert [(p.entry, p.role, p.source, p.rank, p.site, p.needles_b) for p in got] == [
        ("_words.c.d", "match", S.way_regex(["sockets", S.MACROS["same_gpu"].regex]), 0,
         {"symptom": "c.d", "way": 0, "concepts": 2}, [b"sockets"]),  # the first of two as long
        ("_words.c.d", "match", "^(?=.{0,600}?(?:gpudirect)).{1,600}", 0, {"symptom": "c.d", "way": 1, "concepts": 1},
         [b"gpudirect"])]
    assert S.patterns([{"id": "a.b"}]) == []


# ------------------------------------------------------------------ the answer (judge, _finding, _note)

def _answer(kb, text):
    from gpudoctor.explain import explain_text

    res = explain_text(text, kb=kb, source="paste.txt")
    return res, root_of(res)


def _scan(kb, text):
    import io

    from gpudoctor.explain.scan import Scan, scan_stream

    sc = Scan()
    scan_stream(io.BytesIO(text.encode()), kb, sc, "paste.txt")
    return sc


def test_clip_and_doc():
    assert S._clip("a  b\tc", 10) == "a b c"
    assert S._clip("x" * 10, 10) == "x" * 10 and S._clip("x" * 11, 10) == "x" * 7 + "..."
    assert S._doc({"references": [{"title": "T", "url": "u"}, {"title": "U"}]}) == "T"
    assert S._doc({}) == "the docs" and S._doc({"references": []}) == "the docs"


def test_words_alone_are_a_low_family_answer_with_the_docs_debug_line(kb, monkeypatch):
    e = kb.by_id["nccl.falls_back_to_sockets"]
    res, root = _answer(kb, "NCCL falls back to sockets")
    assert root["id"] == e["id"] and root["confidence"] == "family" and root["from_words"] is True
    assert root["notes"][0] == (
        "How sure: low. Read from your words (line 1: NCCL falls back to sockets), not from an error line. The docs "
        "(%s) list %d causes for this and the text does not say which: each cause's confirm line tells them apart. "
        "For a surer answer, paste the error or what this shows: %s" % (e["references"][0]["title"], len(e["causes"]),
                                                                       e["debug"][0]))
    assert root["matches"] == [{"line": 1, "text": "NCCL falls back to sockets", "severity": None, "file": "paste.txt"}]
    assert root["first_line"] == 1 and root["match_count"] == 1 and res["verdict"] == "likely_cause"
    monkeypatch.setitem(e, "debug", [])
    res, root = _answer(kb, "NCCL falls back to sockets")
    assert root["notes"][0].endswith("paste the error or what this shows: the launch line and the first lines it "
                                     "printed")


def test_one_cause_and_a_line_that_names_it_are_medium(kb):
    line = "inside slurm CUDA_VISIBLE_DEVICES is always 0 " + "and " * 30 + "more"
    e = kb.by_id["slurm.visible_devices_renumbered"]
    assert len(e["causes"]) == 1
    res, root = _answer(kb, line)
    assert root["id"] == e["id"] and root["confidence"] == "cause"
    assert root["notes"][0] == ("How sure: medium. Read from your words (line 1: %s), not from an error line; the docs "
                                "(%s) give this one cause for it." % (line[:117] + "...", e["references"][0]["title"]))
    res, root = _answer(kb, "DeepSpeed ignores CUDA_VISIBLE_DEVICES and uses all GPUs\n"
                            "$ CUDA_VISIBLE_DEVICES=2,3 deepspeed --num_gpus 2 train.py --deepspeed " + "x" * 150 + "\n")
    assert root["confidence"] == "cause" and root["notes"][0] == (
        "How sure: medium. Read from your words (line 1: DeepSpeed ignores CUDA_VISIBLE_DEVICES and uses all GPUs); "
        "the text's own line 2 ($ CUDA_VISIBLE_DEVICES=2,3 deepspeed --num_gpus 2 train.py --deepspeed %s...) points "
        "at the first cause below." % ("x" * 46))


def test_beside_an_error_line_the_words_are_a_note(kb):
    e = kb.by_id["torch.ranks_share_gpu"]
    res, root = _answer(kb, "both ranks end up on GPU 0, then it crashes:\n"
                            "host:123:456 [1] init.cc:1270 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on "
                            "CUDA device 1a000\n")
    assert root["id"] == "nccl.duplicate_gpu"
    notes = [n for n in res["context"] if n["severity"] == "words"]
    assert notes == [{"id": e["id"], "severity": "words",
                      "note": "Your words describe (beside the answer above): %s (%s)" % (e["title"],
                                                                                        e["references"][0]["url"]),
                      "fix": e["causes"][0]["fix"][0], "first_line": 1,
                      "text": "both ranks end up on GPU 0, then it crashes:", "match_count": 1,
                      "first_file": "paste.txt"}]


def test_a_note_without_a_fix():
    hit = type("Hit", (), {"line": 4, "text": "t"})()
    e = {"id": "a.b", "title": "T", "references": [{"url": "u1"}, {"url": "u2"}], "causes": []}
    want = {"id": "a.b", "severity": "words", "note": "w: T (u1)", "fix": "", "first_line": 4, "text": "t",
            "match_count": 1}
    assert S._note(e, hit, "w") == want
    assert S._note(dict(e, causes=[{"fix": []}, {"fix": ["other"]}]), hit, "w") == want
    assert S._note(dict(e, causes=[{"fix": ["f1", "f2"]}, {"fix": ["other"]}]), hit, "w") == dict(want, fix="f1")


def test_only_the_hang_triages_uncertain_answer_gives_way(kb):
    text = "NCCL falls back to sockets\n"
    for confidence, gives_way in (("family", True), ("cause", False)):
        root = {"id": "nccl.hang", "from_info_lines": True, "confidence": confidence, "role": "root"}
        result = {"findings": [root], "context": [], "verdict": "root_cause", "matched": True, "root": "nccl.hang",
                  "triage": ["x"], "errors": []}
        got = S.judge(result, _scan(kb, text), kb)
        if gives_way:
            assert got is result["findings"][0] and root["role"] == "related" and result["findings"][1] is root
            assert result["root"] == "nccl.falls_back_to_sockets" and result["triage"] == [] and result["context"] == []
        else:
            assert got is None and result["findings"] == [root] and root["role"] == "root"
            assert [(n["id"], n["note"].split(":")[0]) for n in result["context"]] == [
                ("nccl.falls_back_to_sockets", "Your words describe (beside the answer above)")]


def _hit(line, text="my job is broken", concepts=2, severity=None):
    from types import SimpleNamespace

    return SimpleNamespace(line=line, text=text, severity=severity, pattern=SimpleNamespace(site={"concepts": concepts}))


def test_program_lines_are_error_lines_and_lines_other_patterns_matched():
    from types import SimpleNamespace as NS

    assert S._program_lines(NS(error_lines=[3], match_lines={"_words.x": [5], "nccl.x": [7, 8], "b": [9]})) == {3, 7, 8, 9}
    assert S._program_lines(NS(error_lines=None, match_lines=None)) == set() and S._program_lines(NS()) == set()


def test_found_keeps_the_users_lines_and_ranks_them():
    from types import SimpleNamespace as NS

    scan = NS(matches={"nccl.x": [_hit(1)],  # not a words pattern
                       "_words.b": [_hit(4, concepts=1), _hit(5, concepts=3)],
                       "_words.a": [_hit(6, concepts=2)],
                       "_words.c": [_hit(2, severity="INFO"), _hit(3), _hit(7, "x NCCL INFO y")],
                       "_words.d": [_hit(6, "my job is still broken", concepts=2)]},
              error_lines=[3], match_lines={})
    got = S.found(scan)
    # the first user's line of each, the most concepts of its lines, then the line, then the id; a logger's line
    # (a severity), an error line and an NCCL line are no user's
    assert [(e, h.line, n) for e, h, n in got] == [("b", 4, 3), ("a", 6, 2), ("d", 6, 2)]
    kb = NS(by_id={"a": {"rank": 0}, "d": {"rank": 5}})
    assert [e for e, _, _ in S.found(scan, kb)] == ["d", "b", "a"]
    assert S.found(NS()) == [] and S.found(NS(matches={})) == []


def test_an_answer_from_words_beside_an_unknown_error_and_more_symptoms(kb):
    lines = ["accelerate runs on CPU", "NCCL picks the wrong network interface", "GPUs not visible in docker",
             "/dev/shm is only 64M in the container", "mpirun puts all processes on the same host",
             "every process thinks it is rank 0 when I use mpirun", "training on two machines is slower than on one"]
    sc = _scan(kb, "\n".join(lines) + "\n")
    got, seen = [], set()
    for e, h, _ in S.found(sc, kb):  # one symptom a line: the most specific
        if h.line not in seen:
            seen.add(h.line)
            got.append((e, h.line))
    assert len(got) >= 5
    result = {"findings": [], "context": [], "verdict": "unknown_error", "matched": False, "root": None,
              "triage": ["x"], "errors": [{"line": 9}, {"line": 10}]}
    f = S.judge(result, sc, kb)
    assert f is result["findings"][0] and f["id"] == got[0][0] and f["first_line"] == got[0][1]
    assert f["notes"][-1] == ("The text also reports an error nothing in gpudoctor's knowledge explains (line 9): "
                              "look at it too.")
    assert (result["verdict"], result["matched"], result["root"], result["triage"]) == ("root_cause", True, f["id"], [])
    assert [(n["id"], n["first_line"], n["note"]) for n in result["context"]] == [
        (e, line, "Your words also describe: %s (%s)" % (kb.by_id[e]["title"], kb.by_id[e]["references"][0]["url"]))
        for e, line in got[1:1 + S.MAX_NOTES]]
    result = {"findings": [], "context": [], "verdict": "unknown", "matched": False, "root": None, "triage": [],
              "errors": [{"line": 9}]}
    assert not S.judge(result, _scan(kb, lines[0] + "\n"), kb)["notes"][-1].startswith("The text also reports")


def test_the_needle_sets_a_phrase_chooses_between():
    # a one-part run is never a candidate of a longer phrase; a run of 5+ characters with fewer needles wins
    assert S.Phrases(("aaaaa", "bbbbb"), ("ccccc",)).needles == [b"aaaaaccccc", b"bbbbbccccc"]
    assert S.Phrases(("abc",), ("de",), ("fghij", "klmno")).needles == [b"abcde"]  # 5 characters are enough
    # under 5 characters a set is worth less than any of 5 or more, however few its needles
    assert S.Phrases(("a",), ("b",), ("cdefg", "hijkl")).needles == [b"abcdefg", b"abhijkl"]
    with pytest.raises(ValueError) as exc:
        S.Phrases(("a",), ("", "b"))
    assert str(exc.value) == "the last part of a phrase may not be optional"


def test_a_concept_of_one_phrase_macro_anchors_on_the_phrases_needles():
    phrases = S.MACROS["no_gdr"].needles  # 'without gpudirect', 'no gdrdma' ...: not the regex's 'gdr', 'gpudirect'
    assert S._needles(S.expand("<no_gdr>")) != phrases
    assert S._needles(S.expand("<no_gdr>"), "<no_gdr>") == phrases
    assert S.anchor([S.expand("<no_gdr>")], ["<no_gdr>"]) == (0, phrases)
    assert S.ways_of({"id": "x", "words": [["<no_gdr>"]]}) == [(0, [S.expand("<no_gdr>")],
                                                                [n.decode() for n in phrases])]
