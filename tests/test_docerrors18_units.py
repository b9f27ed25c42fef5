"""docerrors18's readers one at a time (mutation18, docs/mutation.md "Round 13"): trailers.py (fold, the table read
afresh: plain lines, 24-character prefixes, lines with a field, the corpus, headers; is_line's bounds, a cut or
longer line, a line that only shares the prefix; in_sentence; is_header) and errordocs.py (the table read afresh;
lookup by full name, by name under another module of the package, by the class's URL in the message, by the
innermost frame's package; cause() said whole; finding() over the chain; apply()'s conditions and where the cause
goes). The trailer lines are generated/trailers.json's (JAX, equinox, Hydra, torch's c10/cuda and _dynamo); the
classes are generated/error_docs.json's (flax.errors, jax.errors)."""

import pytest

from gpudoctor.explain import errordocs, trailers
from gpudoctor.explain.knowledge import generated_table

CUDA = "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might " \
       "be incorrect."
HYDRA = "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace."
EQX_HEAD = "Above is the stack outside of JIT. Below is the stack inside of JIT:"


@pytest.fixture
def fresh(monkeypatch):
    # both modules keep the table they read in _STATE for the process: read it again here
    monkeypatch.setattr(trailers, "_STATE", {})
    monkeypatch.setattr(errordocs, "_STATE", {})


def test_fold():
    assert trailers.fold("  API call,so the Stack-trace!  ") == "api call so the stack trace"
    assert trailers.fold(None) == ""
    assert trailers.fold("a" * 1300) == "a" * 1200  # twice MAX_LINE read


def test_the_trailer_table_read_afresh(fresh):
    st = trailers._load()
    assert trailers.fold(HYDRA) in st["lines"]
    assert trailers.fold(HYDRA)[:24] in st["prefixes"] and all(len(p) == 24 for p in st["prefixes"])
    assert st["headers"] == {trailers.fold(EQX_HEAD)}
    assert "hydra full error 1" in st["corpus"] and " | " in st["corpus"]
    # a line with a field ('Search for `%s' in https://...'): a pattern, not a plain line
    assert not any("search for" in p for p in st["lines"])
    assert any(rx.match(trailers.fold("Search for `cudaErrorNoDevice' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
                                      "group__CUDART__TYPES.html for more information."))
               for rx in st["fields"])
    assert trailers._load() is st  # read once


def test_is_line(fresh):
    assert trailers.is_line(HYDRA) and trailers.is_line(CUDA)
    assert trailers.is_line("CUDA kernel errors might be asynchronously reported at some other API call,so the "
                            "stacktrace below might be incorrect.")  # torch's older spacing
    assert trailers.is_line(CUDA[:40])  # cut in the paste
    assert trailers.is_line(HYDRA + " (see the docs)")  # more after it
    assert not trailers.is_line("CUDA kernel errors might be the cause of this failure in my program")  # the prefix
    assert trailers.is_line("Search for `cudaErrorNoDevice' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
                            "group__CUDART__TYPES.html for more information.")
    assert not trailers.is_line("")
    assert not trailers.is_line(HYDRA + " " * 600)  # over MAX_LINE characters
    assert not trailers.is_line("to print its")  # under 12 characters folded
    assert trailers.is_line("to print its value, etc.")  # equinox's own short line
    assert not trailers.is_line("RuntimeError: CUDA error: device-side assert triggered")


def test_in_sentence_and_is_header(fresh):
    assert trailers.in_sentence("For debugging consider passing CUDA_LAUNCH_BLOCKING=1")
    assert trailers.in_sentence("Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/cuda-runtime-"
                                "api/group__CUDART__TYPES.html for more information.")
    assert not trailers.in_sentence("FULL_ERROR=1")  # in the corpus, but under 16 characters folded
    assert not trailers.in_sentence("set the batch size to 8")
    assert trailers.is_header(EQX_HEAD) and trailers.is_header(EQX_HEAD.upper())
    assert not trailers.is_header("") and not trailers.is_header(HYDRA)


ROWS = {r["class"]: r for r in generated_table("error_docs")["classes"]}
MODIFY = ROWS["flax.errors.ModifyScopeVariableError"]
CONC = ROWS["jax.errors.ConcretizationTypeError"]


def test_the_error_docs_table_read_afresh(fresh):
    st = errordocs._table()
    assert st["full"]["flax.errors.ModifyScopeVariableError"] == MODIFY
    assert st["short"]["ConcretizationTypeError"] == [CONC]
    assert errordocs._table() is st


def test_lookup(fresh):
    assert errordocs.lookup({"exc": "flax.errors.ModifyScopeVariableError"}) == MODIFY
    assert errordocs.lookup({"exc": "jax._src.errors.ConcretizationTypeError"}) == CONC  # jax <= 0.4's module
    assert errordocs.lookup({"exc": "mylib.ConcretizationTypeError"}) is None  # another package's class
    # the bare name: by the class's own doc URL in the message or after it, or by the innermost frame's package
    assert errordocs.lookup({"exc": "ConcretizationTypeError", "msg": "Abstract tracer value encountered",
                             "more": "See " + CONC["url"]}) == CONC
    assert errordocs.lookup({"exc": "ConcretizationTypeError", "msg": "Abstract tracer value encountered",
                             "frames": [("/w/train.py", 3, "<module>"),
                                        ("/venv/lib/python3.11/site-packages/jax/_src/core.py", 1, "f")]}) == CONC
    assert errordocs.lookup({"exc": "ConcretizationTypeError", "msg": "x",
                             "frames": [("/venv/lib/python3.11/site-packages/jax/_src/core.py", 1, "f"),
                                        ("/w/train.py", 3, "main")]}) is None  # the user's frame innermost
    assert errordocs.lookup({"exc": "ConcretizationTypeError", "msg": "x"}) is None
    assert errordocs.lookup({"exc": "ValueError"}) is None and errordocs.lookup(None) is None


def test_cause_said_whole():
    row = dict(MODIFY, cause="c" * 400, fix=["f1", "f2", "f3", "f4"])
    c = errordocs.cause(row)
    assert c == {"text": "flax documents ModifyScopeVariableError: %s (%s)" % (errordocs._clip("c" * 400, 300),
                                                                                MODIFY["url"]),
                 "checks": [], "confirm": [], "fix": ["flax's documentation of ModifyScopeVariableError: f1",
                                                      "flax's documentation of ModifyScopeVariableError: f2",
                                                      "flax's documentation of ModifyScopeVariableError: f3",
                                                      "read %s for the cases it lists and their fixes" % MODIFY["url"]],
                 "exports": {}, "evidence": [], "static_rank": 0, "computed": None,
                 "documented": "flax.errors.ModifyScopeVariableError"}
    c = errordocs.cause(dict(MODIFY, url="", cause=None, fix=["f1"]))
    assert c["text"] == "flax documents ModifyScopeVariableError: " and c["fix"] == [
        "flax's documentation of ModifyScopeVariableError: f1"]


class _KB:
    def __init__(self, by_id):
        self.by_id = by_id


def _make(e, hit, why, scan, sure="low"):
    return {"id": e["id"], "why": why, "sure": sure, "hit": hit, "causes": [{"text": "the family's own"}]}


def test_finding_over_the_chain():
    kb = _KB({"jax.usage": {"id": "jax.usage"}, "jax.tracer": {"id": "jax.tracer"}})
    plain = {"exc": "ValueError", "msg": "x", "hit": "h0"}
    doc = {"exc": "flax.errors.ModifyScopeVariableError", "msg": "y", "hit": "h1"}
    f = errordocs.finding(None, kb, plain, [doc], _make)
    assert (f["id"], f["why"], f["sure"], f["hit"]) == (
        "jax.usage", "flax.errors.ModifyScopeVariableError, an error class flax documents", "medium", "h1")
    assert f["causes"][0]["documented"] == "flax.errors.ModifyScopeVariableError" and len(f["causes"]) == 2
    assert errordocs.finding(None, _KB({}), doc, [], _make) is None  # the family not in the knowledge
    assert errordocs.finding(None, kb, plain, [], _make) is None


class _Scan:
    def __init__(self, tracebacks):
        self.tracebacks = tracebacks


def _result(line, verdict="root_cause", confidence="cause", first=None):
    causes = [dict(first)] if first else []
    causes.append({"text": "the family's", "static_rank": 5, "evidence": []})
    return {"verdict": verdict, "findings": [{"confidence": confidence, "matches": [{"line": line}, {"line": "x"}],
                                              "causes": causes}]}


def _texts(r):
    return [c["text"][:20] for c in r["findings"][0]["causes"]]


def test_apply():
    tb = {"exc": "jax.errors.ConcretizationTypeError", "line": 10}
    r = errordocs.apply(_result(22), _Scan([tb]))
    assert _texts(r)[0] == "jax documents Concre"  # 12 lines after the exception's line: the documented cause first
    assert _texts(errordocs.apply(_result(23), _Scan([tb]))) == ["the family's"]  # 13: too far
    assert _texts(errordocs.apply(_result(9), _Scan([tb]))) == ["the family's"]  # before it
    assert _texts(errordocs.apply(_result(10, verdict="echo_only"), _Scan([tb])))[0] == "jax documents Concre"
    assert _texts(errordocs.apply(_result(10, verdict="no_error"), _Scan([tb]))) == ["the family's"]
    assert _texts(errordocs.apply(_result(10), _Scan([]))) == ["the family's"]
    assert errordocs.apply({"verdict": "root_cause", "findings": []}, _Scan([tb])) == {"verdict": "root_cause",
                                                                                       "findings": []}
    # below a cause this message has (a generated site's: static_rank 0 with its evidence), above the family's
    site = {"text": "the site's own", "static_rank": 0, "evidence": []}
    assert _texts(errordocs.apply(_result(10, first=site), _Scan([tb]))) == ["the site's own", "jax documents Concre",
                                                                             "the family's"]
    # ... unless the answer is read from the text's shape
    assert _texts(errordocs.apply(_result(10, confidence="structural", first=site), _Scan([tb])))[0] == \
        "jax documents Concre"
    assert _texts(errordocs.apply(_result(10, first=dict(site, evidence=None)), _Scan([tb])))[0] == \
        "jax documents Concre"
    # already documented (the answer came from errordocs): unchanged
    doc = {"text": "documented", "static_rank": 0, "evidence": [], "documented": "x"}
    assert _texts(errordocs.apply(_result(10, first=doc), _Scan([tb]))) == ["documented", "the family's"]
    # a traceback of no documented class, then one: the second is read
    other = {"exc": "ValueError", "line": 10}
    assert _texts(errordocs.apply(_result(10), _Scan([other, tb])))[0] == "jax documents Concre"


def test_apply_without_a_traceback_reads_the_class_a_matched_line_names():
    def res(*texts):
        return {"verdict": "root_cause", "findings": [{"confidence": "cause", "causes": [
            {"text": "the family's", "static_rank": 5, "evidence": []}],
            "matches": [{"line": i + 1, "text": t} for i, t in enumerate(texts)]}]}

    line = "[rank0]: jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is " \
           "expected"
    assert _texts(errordocs.apply(res(line), _Scan([])))[0] == "jax documents Concre"
    assert _texts(errordocs.apply(res("See https://docs.jax.dev/en/latest/101/errors.html#jax.errors."
                                      "ConcretizationTypeError"), _Scan([])))[0] == "jax documents Concre"
    # only the first four matched lines are read; a class no table documents is nothing
    assert _texts(errordocs.apply(res("a", "b", "c", "d", line), _Scan([]))) == ["the family's"]
    assert _texts(errordocs.apply(res("mylib.errors.ConcretizationTypeError: x"), _Scan([]))) == ["the family's"]


def test_the_bounds_of_a_trailer_line(fresh):
    assert trailers.is_line("CUDA kernel errors might")  # exactly the 24 characters of a prefix
    assert not trailers.is_line("Error 1 here")  # 12 characters folded, no trailer's
    assert not trailers.is_line("Error 1")  # under 12
    line = HYDRA + " " + "x" * (599 - len(HYDRA))
    assert len(line) == 600 and trailers.is_line(line)  # 600 characters: still read
    assert trailers.in_sentence("HYDRA_FULL_ERROR")  # exactly 16 characters folded
    # a sentence over two lines of one trailer (equinox's numbered advice)
    assert trailers.in_sentence("Setting the environment variable `EQX_ON_ERROR=breakpoint` is usually the most useful "
                                "way to debug such errors.")


def test_lookup_by_frame_needs_a_bare_name_and_the_packages_frame(fresh):
    jax_frame = [("/w/train.py", 3, "<module>"), ("/venv/lib/python3.11/site-packages/jax/_src/core.py", 1, "f")]
    assert errordocs.lookup({"exc": "mylib.ConcretizationTypeError", "msg": "x", "frames": jax_frame}) is None
    flax_frame = [("/w/train.py", 3, "<module>"), ("/venv/lib/python3.11/site-packages/flax/core/scope.py", 1, "f")]
    assert errordocs.lookup({"exc": "ConcretizationTypeError", "msg": "x", "frames": flax_frame}) is None


def test_cause_clips_a_fix_at_300():
    c = errordocs.cause(dict(MODIFY, fix=["f" * 400]))
    assert c["fix"][0] == "flax's documentation of ModifyScopeVariableError: " + errordocs._clip("f" * 400, 300)


def test_apply_reads_a_later_traceback_near_the_line():
    far = {"exc": "jax.errors.ConcretizationTypeError", "line": 100}
    near = {"exc": "flax.errors.ModifyScopeVariableError", "line": 10}
    assert _texts(errordocs.apply(_result(12), _Scan([far, near])))[0] == "flax documents Modif"
