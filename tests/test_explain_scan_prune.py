"""The scanner does not search a text that cannot hold a match (issue 18: a log of many distinct
known messages): a line, a join with its continuation lines or with the next line that lacks a
pattern's needle or a literal every match holds (knowledge.required_of), and the shorter joins of
a pattern whose match survives more text when the longest join rules them out. The answers must
be exactly those of searching everything: compared here with scan.PRUNE off, on message lines
drawn from the generated sites (bench/explain_bench.py's `distinct` shape), whole, wrapped by a
terminal, quoted and indented. The time is measured by bench/explain_bench.py, not here.
"""

import io
import os
import random
import re
import sys
import textwrap

import pytest

from gpudoctor import explain
from gpudoctor.explain import scan
from gpudoctor.explain.knowledge import Pattern, required_of, squash

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bench"))

import explain_bench  # noqa: E402


@pytest.mark.parametrize("source, clauses", [
    (r"Allocation\ failed\.\ No\ suitable\ space\ size=0x(?:0x)?[0-9a-f]{1,16}\ within\ limit=0x",
     [(b"allocationfailed.nosuitablespacesize=0x",), (b"withinlimit=0x",)]),
    (r"dma-?buf[^\n]{0,80}(?:failed|error)", [(b"error", b"failed"), (b"buf",), (b"dma",)]),
    (r"(?:srun(?:\[\d{1,10}\])?: (?:error|fatal): [^\n]{0,120}?Empty\ list|Empty\ list)", [(b"emptylist",)]),
    (r"abcd?ef", [(b"abc",)]),  # an optional letter ends the run; runs shorter than 3 are left out
    (r"x{0,3}needle(?P<g>word)?tail", [(b"needle",), (b"tail",)]),  # an optional group requires nothing
    # a positive lookahead's text is not in the match but is in the text searched: required of it too (the
    # words' ways are lookaheads, symptoms.way_regex); a negative one's is not
    (r"foo(?=barbar)bazz", [(b"barbar",), (b"bazz",), (b"foo",)]),
    (r"foo(?!barbar)bazz", [(b"bazz",), (b"foo",)]),
    (r"^(?=.{0,600}?(?:deepspeed))(?=.{0,600}?(?:has no effect|ignores)).{1,600}",
     [(b"deepspeed",), (b"hasnoeffect", b"ignores")]),
    (r"fooo|\d+", []),  # an alternative without a literal: nothing is required
    (r"(?x) verbose  words", []),  # what the walk does not know gives no clause
    (r"back(ref)\1", []),
    (r"\x41bcd\.", [(b"abcd.",)]),
    (r"caf\u00e9 menu", []),  # \u escapes: given up
])
def test_required_of_reads_what_every_match_holds(source, clauses):
    assert list(required_of(source)) == [tuple(c) for c in clauses]


def test_every_clause_is_in_the_match_of_generated_sites():
    # the property the pruning rests on: a site's filled text that its regex matches holds its
    # needles and clauses (squashed as the prefilter squashes); a sample of every generated file
    rnd = random.Random(5)
    kb = explain.load_knowledge()
    # (sites without a format text, e.g. ones whose matcher is derived from a table, have nothing to fill)
    sites = [p for p in kb.patterns if p.site is not None and p.site.get("text")]
    checked = 0
    for p in rnd.sample(sites, 400):
        text = explain_bench._fill(rnd, p.site["text"])
        m = p.regex.search(text)
        if not m:
            continue
        flat = squash(m.group(0))
        assert any(n in flat for n in p.needles_b), (p.site["id"], p.needles_b, m.group(0))
        for clause in required_of(p.source):
            assert any(x in flat for x in clause), (p.site["id"], clause, m.group(0))
        checked += 1
    assert checked > 150  # (sites whose regex wants a prefix the filled text lacks are skipped)


def _dump(text, kb):
    s = scan.scan_stream(io.BytesIO(text.encode("utf-8")), kb)
    hits = sorted((eid, h.line, h.text, h.pattern.source, sorted((h.groups or {}).items()))
                  for eid, lst in s.matches.items() for h in lst)
    ev = sorted((str(k), [(h.line, h.text) for h in v]) for k, v in s.evidence.items())
    sig = sorted((p.entry + p.source, [(h.line, h.text) for h in v]) for p, v in s.signals.items())
    parts = sorted((str(k), [h.line for h in v]) for k, v in s.parts.items())
    return hits, ev, sig, parts, sorted(s.counts.items()), [h.text for h in s.errors], s.error_count, s.tried


def test_the_answers_are_those_of_searching_everything(monkeypatch):
    kb = explain.load_knowledge()
    lines = explain_bench.distinct_lines(120, seed=11)
    texts = [
        "\n".join(lines) + "\n",
        # a terminal's hard wrap (mid-word), a quoted and an indented paste, a rank prefix then its rest
        "\n".join(x[j:j + 80] for x in lines for j in range(0, max(len(x), 1), 80)) + "\n",
        "\n".join("> " + w for x in lines for w in textwrap.wrap(x, 50)) + "\n",
        "\n".join("    " + w for x in lines for w in textwrap.wrap(x, 37)) + "\n",
        "\n".join("[rank%d]:%s\n%s" % (k % 4, x[:70], x[70:]) for k, x in enumerate(lines)) + "\n",
        # non-ASCII text (nothing is ruled out there) and a line the next one continues
        "\n".join(x.replace("k", "\u212a", 1) for x in lines[:40]) + "\n",
    ]
    pruned = [_dump(t, kb) for t in texts]
    monkeypatch.setattr(scan, "PRUNE", False)
    for t, want in zip(texts, pruned):
        assert _dump(t, kb) == want


def test_a_non_ascii_text_is_searched_whatever_its_squashed_copy_says():
    # re.IGNORECASE matches the Kelvin sign to 'k'; a byte-wise lower() does not
    p = Pattern("t.kelvin", "match", "kernel launch failed", 10)
    assert re.compile(p.source, re.I).search("\u212aernel launch failed")
    sq = scan._Squashed("\u212aernel launch failed", lambda: [], lambda: "")
    assert sq.line_may_hold(p) and sq.joins() is None and sq.next_may_hold(p)
    ascii_sq = scan._Squashed("Kernel launch failed", lambda: [], lambda: "")
    assert ascii_sq.line_may_hold(p)
    assert not scan._Squashed("kernel launch ok", lambda: [], lambda: "").line_may_hold(p)
