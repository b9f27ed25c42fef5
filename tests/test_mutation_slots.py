"""Cases written from the mutants that survived tests/test_explain_slots.py (docs/mutation.md, fourth
round): gpudoctor/explain/slots.py's format reader and value finder, and tools/refix_sites.py.

test_explain_slots.py builds its round-trip lines with slots.conversions itself, so a mistake there
was read the same way on both sides; here each reader's answer is the whole value, written out by
hand from the module's rules (printf's conversions, C99 7.19.6.1; Slurm's %pX; the literal runs
looked up in order; at most MAX_STARTS places for the first). No file is written: refix_sites'
main is given the committed table (or a copy) and its writer is replaced."""

import datetime
import json
import os
import sys

import pytest

from gpudoctor.explain import slots
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated")


# ------------------------------------------------------------------ conversions / count

@pytest.mark.parametrize("fmt,slurm,want", [
    ("a %d b", False, [("lit", "a "), ("conv", "d"), ("lit", " b")]),
    # '%%' is a literal '%', joined with the literal runs around it
    ("100%% of %s", False, [("lit", "100% of "), ("conv", "s")]),
    ("%% done %%", False, [("lit", "% done %")]),
    # a conversion at the start or the end has no empty literal beside it
    ("%s failed on %d", False, [("conv", "s"), ("lit", " failed on "), ("conv", "d")]),
    # Slurm's %pJ is one string; printf reads %p and a literal 'J'
    ("job %pJ", False, [("lit", "job "), ("conv", "p"), ("lit", "J")]),
    ("job %pJ", True, [("lit", "job "), ("conv", "s")]),
    # '%%pS' in Slurm is a literal '%' and 'pS', never a %pS conversion
    ("rate %%pS", True, [("lit", "rate %pS")]),
    ("%-5.2lf%%", False, [("conv", "f"), ("lit", "%")]),
])
def test_conversions_of_a_format(fmt, slurm, want):
    assert slots.conversions(fmt, slurm) == want
    if not slurm:
        assert slots.conversions(fmt) == want  # printf's reading is the default


def test_count_is_the_number_of_conversions():
    assert slots.count("Task launch for %ps failed on node %s: %m", True) == 3
    assert slots.count("100%% of %d") == 1 and slots.count("no value") == 0


# glibc's own printf corner cases, stdio-common/tst-printf.c (https://sourceware.org/git/?p=glibc.git;a=blob;
# f=stdio-common/tst-printf.c; read at the bminor/glibc mirror's 04277e02d7f5, 2019): each format with the
# conversions printf reads in it (flags, '*' and digit widths/precisions, length modifiers: C99 7.19.6.1)
GLIBC_TST_PRINTF = [
    ("%.4x", "x"), ("%04x", "x"), ("%4.4x", "x"), ("%04.4x", "x"), ("%4.3x", "x"), ("%04.3x", "x"),
    ("%.*x", "x"), ("%0*x", "x"), ("%*.*x", "x"), ("%0*.*x", "x"), ("%10p", "p"),
    ("%ld", "d"), ("%lo", "o"), ("%lu", "u"), ("%010ld", "d"), ("%-010ld", "d"), ("%10ld", "d"), ("%-10ld", "d"),
    ("%010s", "s"), ("%-010s", "s"), ("%10s", "s"), ("%-10s", "s"), ("%.22s", "s"),
    ("%.60e", "e"), ("%.60g", "g"), (" %6.5f", "f"), ("x%5.4fx", "f"), ("%#03x", "x"), ("%.10000f", "f"),
    ("%.17e", "e"), ("%15.5e", "e"), ("|%12.4f|%12.4e|%12.4g|", "feg"), ("%30s", "s"), ("%.999999u", "u"),
    ("%07Lo", "o"), ("%hhu", "u"), ("%hu", "u"), ("%hhi", "i"), ("%hi", "i"),
    ("%.*g", "g"), ("%.*G", "G"), ("%7.*G", "G"), ("%04.*o", "o"), ("%09.*u", "u"), ("%04.*x", "x"),
    ("%04.*X", "X"), ("foo%hhn", "n"), ("%*s%*s%*s", "sss"),
]
# the same file's formats the first reader missed (its _CONV, like tools/knowgen.py's):
# a precision of a bare period ('%5.s': C99 7.19.6.1p4, "if only the period is specified, the
# precision is taken as zero"), C99's %a, and POSIX's numbered arguments ('%1$hhu', rfg3's '%1$*5$d').
# No generated site has one today; read since 2026-11-26 (slots._CONV and knowgen._CONV alike).
GLIBC_TST_PRINTF_UNREAD = [("%5.s", "s"), ("%5.f", "f"), ("%8.e", "e"), ("%8.E", "E"), ("%.g", "g"),
                           ("%.G", "G"), ("%a", "a"), ("%1$hhu", "u"), ("%1$*5$d", "d")]


@pytest.mark.parametrize("fmt,convs", GLIBC_TST_PRINTF)
def test_conversions_of_glibcs_printf_test_formats(fmt, convs):
    parts = slots.conversions(fmt)
    assert [v for kind, v in parts if kind == "conv"] == list(convs), parts
    assert not [v for kind, v in parts if kind == "lit" and "%" in v], parts  # no conversion left as text


@pytest.mark.parametrize("fmt,convs", GLIBC_TST_PRINTF_UNREAD)
def test_conversions_of_glibcs_printf_test_formats_bare_precision_hex_float_numbered(fmt, convs):
    # a bare '.' is precision zero (C99 7.19.6.1p4), %a/%A hexadecimal floats, %n$ numbered arguments
    assert [v for kind, v in slots.conversions(fmt) if kind == "conv"] == list(convs)


# ------------------------------------------------------------------ clean / _trim / _typed

@pytest.mark.parametrize("raw,want", [
    ("XgpuX", "XgpuX"),                  # only quotes are taken off both ends
    ("'gpu1'", "gpu1"), ("`gpu1`", "gpu1"),
    ("['a', 'b']", "a, b"),              # a Python list: its names
    ("a" * 160, "a" * 160),              # MAX_VALUE characters are kept
    ("a" * 161, None),                   # one more is not used
    ("gpu1.,", "gpu1"), ("gpu1.", "gpu1"), ("gpu1!?", "gpu1"),
    ("(gpu01)", "(gpu01)"), ("gpu01)", "gpu01"), ("gpu[01-04]]", "gpu[01-04]"), ("{a}}", None),
    ("gpuX", "gpuX"), ("gpu)X", "gpu)X"),
    ("a\tb\u2003c", "a b c"),
])
def test_clean_a_value(raw, want):
    assert slots.clean(raw) == want


@pytest.mark.parametrize("kind,value,want", [
    ("d", "-12", "-12"), ("d", "1x", None),
    ("x", "7f3a", "7f3a"), ("x", "zz", None), ("X", "7F3A", "7F3A"), ("X", "zz", None),
    ("p", "0x7f3a", "0x7f3a"), ("p", "(nil)", "(nil)"), ("o", "zz", None),
    ("f", "1.5e3", "1.5e3"), ("f", "abc", None), ("E", "abc", None), ("G", "abc", None), ("e", "abc", None),
    ("c", "a", "a"), ("c", "ab", None), ("C", "ab", "ab"),
    ("s", "anything at all", "anything at all"), ("m", "No such file", "No such file"),
])
def test_typed_values(kind, value, want):
    assert slots._typed(kind, value) == want


# ------------------------------------------------------------------ values

@pytest.mark.parametrize("fmt,line,kw,want", [
    # printf's reading by default: 'Task %ps failed' is %p and the literal 's failed'
    ("Task %ps failed", "Task StepId=1.0 failed", {}, {}),
    ("Task %ps failed", "Task StepId=1.0 failed", {"slurm": True}, {1: "StepId=1.0"}),
    # only the conversions up to `need`: later literals need not be on the line, later values are not read
    ("a %s b %s c", "a x b y c", {"need": 1}, {1: "x"}),
    ("a %s b %s c", "a x b", {"need": 1}, {1: "x"}),
    ("a %s b %s c %s d", "a x b y c", {"need": 2}, {1: "x", 2: "y"}),
    ("a %s b %s c", "a x b y c", {}, {1: "x", 2: "y"}),
    ("a %s b %s c", "a x b y c", {"need": 0}, {}),
    # blanks around the format are no separator
    (" %s: %d", "gpu1: 5", {}, {1: "gpu1", 2: "5"}),
    ("%s: %d ", "gpu1: 5.", {}, {1: "gpu1", 2: "5"}),
    # case is ignored
    ("Node failure on %s", "NODE FAILURE ON gpu1", {}, {1: "gpu1"}),
    # a closing '.' the paste left out
    ("Node failure on %s.", "Node failure on gpu1", {}, {1: "gpu1"}),
    ("Node failure on %s.", "Node failure on gpu1.", {}, {1: "gpu1"}),
    # a leading conversion is the one word before the first literal; none when nothing is before it
    ("%s failed", "a b gpu1 failed", {}, {1: "gpu1"}),
    ("%s failed", "failed", {}, {}),
    ("%s %d failed", "gpu1 5 failed", {}, {}),  # two leading conversions: where the first ends is unknown
    ("%s %d failed on %s", "x 5 failed on gpu1", {}, {3: "gpu1"}),
    # the word is typed without the sentence's punctuation (the raw word is returned; clean() trims it)
    ("%d ranks failed", "count 5: ranks failed", {}, {1: "5:"}),
    ("%X is bad", "id 7F3A: is bad", {}, {1: "7F3A:"}),
    ("bad id %X", "bad id 7F3A.", {}, {1: "7F3A"}),
    # two conversions with nothing between them give neither
    ("a %s%s b", "a xy b", {}, {}),
    ("a %s%s", "a xy", {}, {}),
    ("a %s%s %d b", "a xy 5 b", {}, {3: "5"}),
    # a word of the wrong type between two conversions: no values
    ("a %d %s b", "a x y b", {}, {}),
    ("failed on %s", "failed on", {}, {}),
    ("failed on %m", "failed on No such file or directory", {}, {1: "No such file or directory"}),
])
def test_values_of_a_line(fmt, line, kw, want):
    assert slots.values(fmt, line, **kw) == want


def test_the_first_literal_is_tried_at_eight_places_at_most():
    # each earlier 'x' puts words that are no number between it and ' y'
    assert slots.values("x %d y", "x a " * 7 + "x 5 y") == {1: "5"}  # the 8th place
    assert slots.values("x %d y", "x a " * 8 + "x 5 y") == {}  # the 9th is not tried
    assert slots.values("x %d y", "x a x 5 y x") == {1: "5"}  # the next place, not the last
    assert slots.values("xx %d y", "xxx 5 y") == {1: "5"}  # places one character apart


# ------------------------------------------------------------------ fill

def test_fill_without_means_and_with_part_of_the_line():
    site = {"text": "a %s b %s c", "fix": ["use {%1|w}"]}
    assert slots.fill(site, "a x b") == ("", ["use x"], {1: "x"})  # only up to the slot's conversion
    # a slot of the last conversion needs the whole line up to it: none is filled then
    assert slots.fill(dict(site, means="on {%-1|there}"), "a x b") == ("on there", ["use w"], {})
    assert slots.fill(dict(site, means="on {%-1|there}"), "a x b y c") == ("on y", ["use x"], {1: "x", 2: "y"})
    assert slots.fill({"text": "a %s", "means": "m"}, "a x") == ("m", [], {})


# ------------------------------------------------------------------ tools/refix_sites.py

@pytest.fixture()
def refix(monkeypatch):
    sys.path.insert(0, os.path.join(REPO, "tools"))
    try:
        import refix_sites
    finally:
        sys.path.remove(os.path.join(REPO, "tools"))
    written = []
    monkeypatch.setattr(refix_sites.knowgen, "emit", lambda name, doc: written.append((name, doc)))
    refix_sites.written = written
    return refix_sites


def _committed(name):
    with open_generated(name) as f:
        return json.load(f)


def _as_words(refix_sites, doc):
    """The doc with every slotted site's means/fix read as its words (what it said before slots),
    after a site without a fix; the slotted sites' committed texts."""
    want = {}
    for s in doc["sites"]:
        if s.get("fix") and "{%" in json.dumps([s["means"], s["fix"]]):
            want[s["id"]] = (s["means"], list(s["fix"]))
            s["means"], s["fix"] = refix_sites.words(s["means"]), [refix_sites.words(x) for x in s["fix"]]
    assert want and not doc["sites"][0].get("fix")
    return want


def test_refix_gives_a_site_its_rows_slots_back(refix):
    assert refix.words("sinfo -R -n {%1|<node>} and {%-1|the rest}") == "sinfo -R -n <node> and the rest"
    doc = _committed("gloo_messages")
    want = _as_words(refix, doc)
    doc["header"].update(date="2000-01-01", fixes="an older run")
    got = refix.refix("gloo_messages", doc)
    assert {s["id"]: (s["means"], s["fix"]) for s in got["sites"] if s["id"] in want} == want
    assert got["header"]["date"] == datetime.date.today().isoformat()
    assert got["header"]["fixes"] == "means/fix re-applied from gen_gloo_messages's MSG_FIX by tools/refix_sites.py"
    doc = _committed("torch_messages")
    doc["header"].pop("date", None), doc["header"].pop("fixes", None)
    doc = refix.refix("torch_messages", doc)
    assert doc["header"]["fixes"] == ("means/fix re-applied from gen_torch_messages's SITE_FIX/USER_FIX by "
                                      "tools/refix_sites.py")


def test_refix_names_three_of_the_sites_no_row_says(refix):
    doc = _committed("torch_messages")
    fixed = [s for s in doc["sites"] if s.get("fix")][:4]
    for s in fixed:
        s["means"] = "words no row says"
    with pytest.raises(ValueError) as exc:
        refix.refix("torch_messages", doc)
    assert str(exc.value) == ("no row of SITE_FIX/USER_FIX says the committed text of 4 sites (e.g. %s): run "
                              "gen_torch_messages on its source" % ", ".join(s["id"] for s in fixed[:3]))


def test_refix_main_checks_writes_and_refuses(refix, monkeypatch, capsys):
    doc = _committed("launcher_messages")
    _as_words(refix, doc)
    n = sum(1 for s in _committed("launcher_messages")["sites"] if "{%" in json.dumps([s.get("means"), s.get("fix")]))
    assert n == 7  # 5 with slots in a fix line only, 2 in the meaning only: both are counted
    docs = {"launcher_messages": doc}
    monkeypatch.setattr(refix.knowgen, "committed", lambda name: json.loads(json.dumps(docs.get(name) or
                                                                                     _committed(name))))
    # unchanged first, then one that would change: both are read
    assert refix.main(["--check", "munge_messages", "launcher_messages"]) == 1
    assert capsys.readouterr().out == "munge_messages: unchanged\nlauncher_messages: would change (%d sites with slots)\n" % n
    assert refix.written == []
    assert refix.main(["munge_messages", "launcher_messages"]) == 0
    assert capsys.readouterr().out == "munge_messages: unchanged\nlauncher_messages: %d sites with slots\n" % n
    assert [name for name, _ in refix.written] == ["launcher_messages"]
    assert refix.written[0][1]["header"]["fixes"].startswith("means/fix re-applied from gen_launcher_messages")
    assert refix.main(["--check", "munge_messages"]) == 0 and refix.main(["munge_messages"]) == 0
    capsys.readouterr()
    usage = ("usage: refix_sites.py NAME... [--check]; NAME one of %s\n" % ", ".join(sorted(refix.TABLES)))
    for argv in ([], ["--check"], ["nope"], ["launcher_messages", "nope"]):
        assert refix.main(argv) == 2
        assert capsys.readouterr().err == usage
    last = [s for s in doc["sites"] if s.get("fix")][-1]
    last["fix"] = ["a fix no row has"]
    assert refix.main(["--check", "launcher_messages"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("refix_sites.py: no row of MSG_FIX says the committed text of 1 sites (e.g. %s)"
                          % last["id"]) and err.endswith("\n"), err


# ------------------------------------------------------------------ _quoted_at (0df4799, red team 2026-11-26d)

@pytest.mark.parametrize("line,want", [
    ("pip install -U 'accelerate>={%1|v}'", {28: True}),
    ("sinfo -n {%1|n}", {9: False}),
    ("{%1|x} 'a'", {0: False}),
    ("'{%1|x}'", {1: True}),
    ('"{%1|a}" and {%2|b}', {1: True, 13: False}),
    ("it's {%1|x}", {5: True}),                  # a prose apostrophe opens a quote too: the careful reading
    ("a\\'{%1|x}", {3: False}),                  # a backslash outside quotes quotes the next character
    ("a\\'' {%1|x}", {5: True}),                 # ... and only that one
    ("'a\\' {%1|x}", {5: False}),                # inside '...' a backslash is a plain character
    ('"a\\" {%1|x}"', {5: True}),                # inside "..." it quotes the closing '"'
    ("`x {%1|y}`", {3: True}),
    ("'a' {%1|x}", {4: False}), ('"a" {%1|x}', {4: False}),
    ("'ab' {%1|x}", {5: False}),
    ('"a\'b" {%1|x}', {6: False}),               # a quote of the other kind inside quotes changes nothing
    ("aXb {%1|x}", {4: False}),
])
def test_where_a_fix_lines_quotes_hold_a_slot(line, want):
    assert slots._quoted_at(line) == want


def test_a_value_that_needs_quotes_is_not_put_inside_the_lines_own_quotes():
    site = {"text": "requires accelerate>=%s", "means": "needs '{%1|a version}'",
            "fix": ["pip install -U 'accelerate>={%1|the version}'", "then {%1|v}"]}
    means, fix, used = slots.fill(site, "requires accelerate>=0.26;touch")
    assert fix == ["pip install -U 'accelerate>=the version'", "then '0.26;touch'"] and used == {1: "0.26;touch"}
    assert means == "needs ''0.26;touch''"  # the meaning is prose: only a fix line's quotes count
    assert slots.fill(site, "requires accelerate>=0.26.0")[1] == ["pip install -U 'accelerate>=0.26.0'", "then 0.26.0"]


def test_positions_are_kept_where_lower_case_is_longer():
    # 'İ'.lower() is two characters: the search keeps it as it is so that offsets in the line stay right
    assert slots.values("%s failed", "\u0130 gpu1 failed") == {1: "gpu1"}
