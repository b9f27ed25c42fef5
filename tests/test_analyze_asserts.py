"""analyze.py's three helpers of session 14, branch by branch (mutation round 9 left their survivors: a hit outside any
traceback, a Windows path, a `where` with a second colon, an entry that keeps some hits and drops others, several
error lines per entry; docs/mutation.md).

The objects are the scan's own shapes (scan.Scan's tracebacks are pytb's dicts; a hit has line, text, severity and
pattern.site as tools/gen_megatron_messages.py writes it for a bare `assert`), built directly: what is judged here is
the helper's decision on them, which an end-to-end text reaches only for one branch at a time
(tests/test_explain_left14.py has the real Megatron texts).
"""

from types import SimpleNamespace as NS

import pytest

from gpudoctor.explain import analyze
from gpudoctor.explain.pytb import MAX_BACK_LINES

FILE = "megatron/core/parallel_state.py"
SRC = "assert world_size % tensor_model_parallel_size == 0"


def _hit(line, text="    " + SRC, where=FILE + ":512", level="assert", severity=None):
    site = {"where": where, "level": level} if where is not None else {"level": level}
    return NS(line=line, text=text, severity=severity, pattern=NS(site=site))


def _tb(line=20, header=10, path="/usr/lib/python3/site-packages/" + FILE, src=SRC, exc="AssertionError", msg="",
        frames=True):
    return {"line": line, "header_line": header, "frames": [("train.py", 3), (path, 512)] if frames else [],
            "src": [("x = 1", None), (src, None)], "exc": exc, "msg": msg}


def _scan(*tbs):
    return NS(tracebacks=list(tbs))


def test_the_assert_that_failed_is_its_own():
    assert analyze._own_assert(_scan(_tb()), _hit(15))


@pytest.mark.parametrize("tb, hit, why", [
    (_tb(exc="TypeError"), _hit(15), "another exception: the condition raised, the check did not fail"),
    (_tb(msg="sizes differ"), _hit(15), "an assert with a message is not the bare site"),
    (_tb(path="/home/u/" + FILE.replace("megatron", "mymegatron")), _hit(15), "another file whose name ends alike"),
    (_tb(path="/home/u/train.py"), _hit(15), "the user's own file"),
    (_tb(src=""), _hit(15), "no source line printed"),
    (_tb(), _hit(15, where=None), "a site that names no file"),
    (_tb(), _hit(15, text="    assert rank < world_size"), "another condition"),
    (_tb(), _hit(20), "the hit on the exception line itself, not above it"),
    (_tb(), _hit(25), "after the traceback"),
    (_tb(), _hit(9), "above the traceback's header"),
    (_tb(frames=False), _hit(15), "a traceback without frames is no evidence"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_the_same_words_elsewhere_are_not_that_assert(tb, hit, why):
    assert not analyze._own_assert(_scan(tb), hit), why


def test_a_hit_outside_every_traceback_is_not_the_assert():
    assert not analyze._own_assert(_scan(), _hit(15))
    assert not analyze._own_assert(_scan(_tb(line=100, header=90)), _hit(15))


def test_without_a_header_the_traceback_reaches_back_a_bounded_number_of_lines():
    tb = _tb(line=200)
    tb["header_line"] = None
    assert analyze._own_assert(_scan(tb), _hit(200 - MAX_BACK_LINES))
    assert not analyze._own_assert(_scan(tb), _hit(200 - MAX_BACK_LINES - 1))


def test_the_first_traceback_around_the_hit_decides():
    # a frameless traceback around the hit is skipped; the next one around it decides
    assert analyze._own_assert(_scan(_tb(frames=False), _tb()), _hit(15))
    assert not analyze._own_assert(_scan(_tb(exc="KeyError"), _tb()), _hit(15))


def test_windows_paths_and_colons_in_where():
    win = "C:\\envs\\py\\Lib\\site-packages\\" + FILE.replace("/", "\\")
    assert analyze._own_assert(_scan(_tb(path=win)), _hit(15, where=FILE.replace("/", "\\") + ":512"))
    # a where that is a whole Windows path with its drive colon: only the line number goes
    assert analyze._own_assert(_scan(_tb(path="C:/site-packages/" + FILE)),
                               _hit(15, where="C:/site-packages/" + FILE + ":512"))
    assert analyze._own_assert(_scan(_tb(path="/x/" + FILE)), _hit(15, where=FILE))  # no line number at all
    assert analyze._own_assert(_scan(_tb(path=FILE)), _hit(15))  # the path is the site's file itself


# ------------------------------------------------------------------ _drop_foreign_asserts


def _matched(hits, count=None, together=None):
    m = {"hits": hits, "lines": [h.line for h in hits], "count": len(hits) if count is None else count}
    if together:
        m["together"] = together
    return m


def test_an_entry_whose_only_hits_are_foreign_asserts_goes():
    matched = {"a.b": _matched([_hit(3)])}
    analyze._drop_foreign_asserts(_scan(), matched)
    assert matched == {}


def test_an_entry_keeps_its_other_hits_and_loses_the_foreign_assert():
    other = _hit(40, text="AssertionError: sizes differ", level="error")
    own = _hit(15)
    matched = {"a.b": _matched([_hit(3), other, own]), "c.d": _matched([other])}
    analyze._drop_foreign_asserts(_scan(_tb()), matched)
    m = matched["a.b"]
    assert [h.line for h in m["hits"]] == [15, 40] or [h.line for h in m["hits"]] == [40, 15]
    assert sorted(m["lines"]) == [15, 40] and m["count"] == 2
    assert matched["c.d"]["count"] == 1 and matched["c.d"]["lines"] == [40]  # nothing to drop: untouched


def test_an_entry_matched_more_often_than_shown_or_together_stays():
    many = {"a.b": _matched([_hit(3)], count=5)}  # hits beyond those kept (MAX_SHOWN): not all are foreign
    analyze._drop_foreign_asserts(_scan(), many)
    assert many["a.b"]["hits"] == [] and many["a.b"]["count"] == 4 and many["a.b"]["lines"] == []
    grouped = {"a.b": _matched([_hit(3)], together=(10, [], None))}
    analyze._drop_foreign_asserts(_scan(), grouped)
    assert "a.b" in grouped and grouped["a.b"]["count"] == 0


def test_hits_without_a_pattern_are_kept():
    bare = NS(line=7, text="x", severity=None, pattern=None)
    matched = {"a.b": _matched([bare])}
    analyze._drop_foreign_asserts(_scan(), matched)
    assert matched["a.b"]["hits"] == [bare]


# ------------------------------------------------------------------ _later_error_lines


def _kb(**kinds):
    return NS(by_id={eid: {"kind": k, "family": fam} for eid, (k, fam) in kinds.items()})


def test_each_entry_gets_the_error_lines_of_the_others():
    kb = _kb(**{"a.x": ("error", "a"), "b.y": ("error", "b"), "c.z": ("warning", "c"), "d.w": ("error", "cascade"),
               "e.v": ("error", "e")})
    matched = {
        "a.x": {"ranks": {None, 1}, "firsts": {None: 5}, "hits": [NS(line=5, severity=None), NS(line=9, severity="warn")]},
        "b.y": {"ranks": {None}, "firsts": {None: 30}, "hits": [NS(line=30, severity=None), NS(line=31, severity=None)]},
        "c.z": {"ranks": {None}, "firsts": {None: 50}, "hits": [NS(line=50, severity=None)]},  # a warning entry
        "d.w": {"ranks": {None}, "firsts": {None: 60}, "hits": [NS(line=60, severity=None)]},  # the cascade's abort
        "e.v": {"ranks": {2}, "firsts": {2: 70}, "hits": [NS(line=70, severity=None)]},  # a rank's only
    }
    out = analyze._later_error_lines(matched, kb)
    assert sorted(out["a.x"]) == [30, 31]
    assert sorted(out["b.y"]) == [5]  # a.x's warn-level hit on line 9 is not an error line
    assert sorted(out["c.z"]) == sorted(out["d.w"]) == sorted(out["e.v"]) == [5, 30, 31]


def test_every_entry_is_judged_whatever_comes_before_it():
    # an entry with nothing to drop, then one that goes whole, then one that keeps a hit: each is judged
    other = _hit(40, text="AssertionError: sizes differ", level="error")
    matched = {"clean": _matched([other]), "gone": _matched([_hit(3)]), "trimmed": _matched([_hit(5), other])}
    analyze._drop_foreign_asserts(_scan(), matched)
    assert sorted(matched) == ["clean", "trimmed"]
    assert matched["trimmed"]["lines"] == [40] and matched["trimmed"]["count"] == 1
