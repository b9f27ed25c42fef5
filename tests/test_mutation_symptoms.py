"""Cases for the mutants of gpudoctor/explain/symptoms.py (docs/mutation.md, fourth round).

Phrases, expand, _needles, way_regex, anchor, ways_of and patterns run when the knowledge loads:
MACROS at import, the rest in load_knowledge, whose result is cached per process. mutmut forks
each mutant from a process that already did both, so test_explain_symptoms' answers never see a
mistake there; these cases call each function and compare its whole answer, written out from the
module's rules (the factored regex, the needles every match holds, the anchor's choice, the load
errors' messages)."""

import re

import pytest

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
