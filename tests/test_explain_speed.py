"""`gpudoctor explain "<one line>"` loads the knowledge without compiling it: the prefilter
regexes are built when a text first needs them (a short text is looked up in the needle set
instead), each pattern is compiled when a line first needs it. The answers must not change:
these tests hold the short-text lookup to the regexes' hits and every pattern to compiling.
"""

import glob
import os
import random

import pytest

from gpudoctor import explain
from gpudoctor.explain import knowledge
from gpudoctor.explain.knowledge import squash
from gpudoctor.explain.scan import kb_reach

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


def _regex_hits(kb, flat, a, end, b):
    found = []
    for pre in kb.prefilters:
        found.extend(pre.hits(flat, a, end, b))
    found.sort()
    return found


def test_a_short_texts_lookup_finds_what_the_prefilter_regexes_find(kb):
    # development texts (never the held-out ones) and needles glued, overlapping and cut short
    texts = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(ROOT, "fixtures", "logs", "dev", "*.log")))[:60]]
    needles = sorted(kb.by_hit)
    rnd = random.Random(7)
    for _ in range(200):
        parts = [rnd.choice(needles) for _ in range(rnd.randint(1, 10))]
        texts.append(b"".join(p[:rnd.randint(1, len(p))] if rnd.random() < 0.3 else p for p in parts))
    reach, hits = kb_reach(kb), 0
    for text in texts:
        flat = squash(text)
        for a, b in ((0, len(flat)), (len(flat) // 3, len(flat) // 2)):
            end = min(len(flat), b + reach)
            got = kb._small_hits(flat, a, end, b)
            assert got == _regex_hits(kb, flat, a, end, b), text[:200]
            hits += len(got)
    assert hits > 1000


def test_one_line_compiles_no_prefilter_and_few_patterns(monkeypatch):
    monkeypatch.setattr(knowledge, "_cache", {})
    kb = explain.load_knowledge()
    res = explain.explain_text(b"NCCL WARN Cuda failure 'invalid argument'", kb, assume_error=True)
    assert res["root"] and res["verdict"] == "root_cause"
    assert kb._prefilters is None  # looked up in the needle set
    compiled = sum(p._regex is not None for p in kb.patterns)
    assert compiled < len(kb.patterns) // 20, compiled
    # past SMALL_TEXT bytes in this process the regexes take over (a long log): same answer
    kb._small_left = 0
    again = explain.explain_text(b"NCCL WARN Cuda failure 'invalid argument'", kb, assume_error=True)
    assert kb._prefilters is not None and again == res


def test_every_built_in_pattern_compiles(kb):
    # (compiled lazily, so a bad one would fail on the first line that needs it; the generated
    # sites are compiled by tests/test_explain_generated.py)
    for p in kb.patterns:
        if p.site is None:
            assert p.regex.pattern == p.source


def test_a_given_files_bad_regex_is_refused_at_load(tmp_path):
    ok = "[[entry]]\nid='a.b'\ntitle='t'\nexplain='e'\nrank=1\npatterns=['%s']\n[[entry.causes]]\ntext='c'\n" \
         "fix=['f']\n[[entry.references]]\ntitle='r'\nurl='https://example.org/r'\n"
    for bad in (r"(?<=a+)bcde", r"abcd(", r"abcd\1"):  # the compiler's error, the parser's errors
        p = tmp_path / "bad.toml"
        p.write_text(ok % bad)
        with pytest.raises(explain.KnowledgeError):
            explain.load_knowledge([str(p)], known_checks=set())
