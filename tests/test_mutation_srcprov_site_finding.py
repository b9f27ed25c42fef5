"""srcprov.site_hits / site_message_finding (noans22's cut Python message), the parts mutation round 17 left unasserted
(docs/mutation.md, round 18): which lines are read (an error line, a line the scanner kept only as an 'Exception:'
match, once each; not a warning's, an INFO line's or a line another entry answered), a line the run went on past,
a traceback's text, and the finding's reason and note word for word. The messages are the libraries' own, as the
shipped knowledge holds them (generated/py_messages.json: Ray's ray/_private/node.py, torch's
torch/_inductor/async_compile.py), cut as AO's LWS thread quoted Ray's."""

import io
import re

import pytest

from gpudoctor import explain
from gpudoctor.explain import srcprov
from gpudoctor.explain.analyze import _structural_finding
from gpudoctor.explain.scan import scan_stream

RAY = "worker  Exception: The current node timed out during startup ... raylet failed to startup\n"
STEP = "step 10 loss 2.31\n"
TB = 'Traceback (most recent call last):\n  File "/home/u/x.py", line 1, in <module>\n    f()\n'
LOW = ("How sure: low. No known message matched; the family is read from the log's shape (%s). Confirm it with the "
       "commands below before acting.")


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


def _site(kb, path, start):
    got = [s for e in kb.by_id.values() for s in e.get("_sites") or ()
           if (s.get("where") or "").startswith(path + ":") and (s.get("text") or "").startswith(start)]
    assert len(got) == 1
    return got[0]


def _scan(text, kb):
    return scan_stream(io.BytesIO(text.encode()), kb)


def _hits(text, kb, known=()):
    return [(h.line, eid) for h, (eid, _site) in srcprov.site_hits(_scan(text, kb), kb, set(known))]


def _finding(text, kb):
    return srcprov.site_message_finding(_scan(text, kb), kb, _structural_finding, set())


def test_the_reason_and_the_note_word_for_word(kb):
    site = _site(kb, "ray/_private/node.py", "The current node timed out during startup")
    where = site["where"]
    assert re.fullmatch(r"ray/_private/node\.py:\d+", where)
    f = _finding(RAY, kb)
    assert f["id"] == "ray.start" and f["first_line"] == 1
    assert f["notes"][:2] == [
        LOW % ("the line starts ray's message (%s) and stops short of it" % where),
        "The line is cut: its words are the start of the message at %s ('%s'), which its matcher reads only whole. "
        "Paste the whole line (and the traceback above it) to confirm." % (where, site["text"])]
    # the whole text, one line through explain: the same answer
    r = explain.explain_text(RAY, kb)
    assert [(x["id"], x["notes"][:2]) for x in r["findings"]] == [("ray.start", f["notes"][:2])]


def test_the_note_quotes_200_characters_of_a_long_message(kb):
    site = _site(kb, "torch/_inductor/async_compile.py", "A compilation subprocess exited unexpectedly.")
    assert len(site["text"]) > 201
    f = _finding("RuntimeError: A compilation subprocess exited unexpectedly. This is likely due to a crash ...\n",
                 kb)
    assert f["id"] == "compile.inductor_build"
    assert f["notes"][1] == (
        "The line is cut: its words are the start of the message at %s ('%s'), which its matcher reads only whole. "
        "Paste the whole line (and the traceback above it) to confirm." % (site["where"], site["text"][:200]))
    assert LOW % ("the line starts torch's message (%s) and stops short of it" % site["where"]) == f["notes"][0]


def test_which_lines_are_read(kb):
    assert _hits(RAY, kb) == [(1, "ray.start")]  # an error line and an 'Exception:' match both: once
    # a warning's or an INFO line's words are context, not the failure
    assert _hits("WARNING " + RAY, kb) == [] and _hits("INFO " + RAY, kb) == []
    # a line another entry answered (known)
    assert _hits(RAY, kb, known=[1]) == []
    # read on past a line it skips: the warning first, then the error
    assert _hits("WARNING " + RAY + RAY, kb) == [(2, "ray.start")]
    assert _hits(RAY + RAY, kb, known=[1]) == [(2, "ray.start")]
    # five error lines before it fill the scanner's generic error list: the line is read as an 'Exception:' match
    many = "".join("error: thing %d broke\n" % i for i in range(5))
    assert _hits(many + RAY, kb) == [(6, "ray.start")]


def test_a_line_the_run_went_on_past_and_a_traceback(kb):
    assert _finding(RAY + STEP + STEP, kb) is None  # two progress lines after it
    assert _finding(RAY + STEP, kb)["first_line"] == 1  # one is not enough
    assert _finding(RAY + STEP + STEP + RAY, kb)["first_line"] == 4  # the later one stopped the run
    # a text with a traceback: its frames name the package (not this reader's)
    cut = RAY.replace("worker  ", "")
    assert _scan(TB + cut, kb).tracebacks and _finding(TB + cut, kb) is None
    assert _finding(cut, kb)["id"] == "ray.start"
