"""srcprov._site_fragments / site_rows over a small knowledge of three entries (mutation round 17, part 2).

_site_fragments caches its index by the identity of the entries' mapping, so a test over the shipped knowledge reads
the index built once per process (under mutmut, once before any mutant runs): these cases pass their own mapping, a
fresh one each time, so the index is built by the code under test. The sites have the generated tables' shape
(generated/py_messages.json: where 'path.py:line', level, the message's literal text)."""

from gpudoctor.explain import srcprov

A = {"where": "ray/_private/node.py:123", "level": "raise",
     "text": "The current node timed out during startup. This could happen because raylet failed %s"}
B = {"where": "x/y.py:1", "level": "error", "text": "The current node is gone away now {why}"}
C = {"where": "x/z.py:9", "level": "exit", "text": "The gone away handler failed badly here now"}
D = {"where": "x/w.py:2", "level": "assert", "text": "Six words exactly in this line: %r"}  # MIN_MATCH words, indexed
SKIPPED = [
    {"where": "a/b.c:1", "level": "raise", "text": "The current node timed out during startup in C code"},  # no .py
    {"where": "a/b.py:1", "level": "warn", "text": "The current node timed out during startup, warned"},  # a warning
    {"where": "a/b.py:1", "level": "assert", "text": "too few words %s here and there"},  # 3 words before %s
    {"where": "a/b.py:1", "level": "raise", "text": "only five words here now"},
]


def _by():
    # (a skipped site before A: the walk goes on to the entry's next site)
    return {"ray.start": {"_sites": [SKIPPED[0], A] + SKIPPED[1:]}, "x.one": {"family": "x.fam", "_sites": [B]},
            "x.two": {"family": "x.fam", "_sites": [C, D]}, "empty": {}}


def test_the_index_and_the_words_of_one_family():
    index, own = srcprov._site_fragments(_by())
    wa = "the current node timed out during startup this could happen because raylet failed".split()
    assert index == {"the current node timed": [(wa, "ray.start", A)],
                     "the current node is": [("the current node is gone away now".split(), "x.one", B)],
                     "the gone away handler": [("the gone away handler failed badly here now".split(), "x.two", C)],
                     "six words exactly in": [("six words exactly in this line".split(), "x.two", D)]}
    # 'the', 'current', 'node', 'failed', 'this' are in both families; 'is' is under 3 characters; x.fam's words are one family
    assert own == frozenset("timed out during startup could happen because raylet gone away handler badly here "
                            "now six words exactly line".split())


def test_the_index_is_kept_for_the_same_mapping():
    by = _by()
    first = srcprov._site_fragments(by)
    assert srcprov._site_fragments(by) is first


def test_site_rows_on_a_cut_line():
    by = _by()
    assert srcprov.site_rows("worker  RuntimeError: The current node timed out during startup ... raylet failed",
                             by) == [("ray.start", A)]
    assert srcprov.site_rows("The current node timed out during...", by) == [("ray.start", A)]  # 6 words, own ones
    # the whole literal (its own matcher reads it), a line that goes on, five words, another family's start
    assert srcprov.site_rows("The current node timed out during startup. This could happen because raylet failed",
                             by) == []
    assert srcprov.site_rows("The current node timed out during startup of my service", by) == []
    assert srcprov.site_rows("The current node timed out...", by) == []
    assert srcprov.site_rows("The current node is gone away...", by) == [("x.one", B)]
    # the dots on the last word that matched, the next word another; the ellipsis character as a word of its own
    assert srcprov.site_rows("The current node timed out during... the rest", by) == [("ray.start", A)]
    assert srcprov.site_rows("The current node timed out during \u2026 the rest", by) == [("ray.start", A)]
    # the whole literal and more words after it: no cut
    assert srcprov.site_rows("The current node timed out during startup. This could happen because raylet failed "
                             "and then more", by) == []


# E shares A's first six words (in another order, another key); F is another family's message with A's first seven
E = {"where": "y/e.py:3", "level": "raise", "text": "Node current timed out during the restart of y"}
F = {"where": "z/f.py:4", "level": "raise", "text": "The current node timed out during startup of z: {x}"}
A2 = {"where": "ray/_private/other.py:5", "level": "raise",
      "text": "The current node timed out during startup. This could happen because raylet failed and {why}"}


def test_six_words_none_of_them_one_family_s_is_no_row():
    by = {"ray.start": {"_sites": [A]}, "y.e": {"_sites": [E]}}
    assert srcprov.site_rows("The current node timed out during...", by) == []
    assert srcprov.site_rows("The current node timed out during startup...", by) == [("ray.start", A)]  # 7 words


def test_two_families_the_line_starts_is_no_row():
    by = {"ray.start": {"_sites": [A]}, "z.f": {"_sites": [F]}}
    assert srcprov.site_rows("The current node timed out during startup ...", by) == []


def test_the_whole_literal_of_one_site_and_the_cut_of_another():
    # A's whole text then '...': A's own matcher reads A; A2, which goes on past it, is the cut one
    by = {"ray.start": {"_sites": [A]}, "ray.other": {"_sites": [A2]}}
    assert srcprov.site_rows("The current node timed out during startup. This could happen because raylet failed "
                             "...", by) == [("ray.other", A2)]
