"""review24: defects found reviewing session 24's changes (2026-11-28), each through the CLI or the unit it fixes."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "fixtures", "explain")


def _flat(out):
    return " ".join(out.split())


def test_a_log_span_leaves_the_proses_own_apostrophes_as_written(cli):
    # eb769573 (docs/security.md 68.) writes the log's own 'sample 3; skipping' as one $'...' word, right; but once a
    # prose string held such a span, every other word of it with an apostrophe or a backquote became a $'...' word
    # too ($'interpreter\x27s', $'library\x27s'), though the string had no trigger (58.'s rule)
    rc, out, err = cli("explain", os.path.join(FIX, "fp23", "pytest-q-one-assert-fails.log"))
    flat = _flat(out)
    assert "$'sample\\x203\\x3b\\x20skipping'" in flat, out  # the log's span stays inert
    assert "one of the interpreter's own classes" in flat and "a library's check" in flat, out
    assert "\\x27s'" not in out, out


def test_safe_prose_outside_a_span_follows_the_trigger_rule():
    from gpudoctor.explain import render

    token = render._LOG_WINDOWS.set(frozenset(("mple 3; skippi",)))
    try:
        shown = render.safe_prose("the interpreter's `KeyError` in sample 3; skipping it")
        # a trigger elsewhere in the string still makes every acting word inert, as before
        trig = render.safe_prose("at a.py x;touch M in sample 3; skipping it")
    finally:
        render._LOG_WINDOWS.reset(token)
    assert shown == "the interpreter's `KeyError` in $'sample\\x203\\x3b\\x20skipping' it"
    assert trig == "at a.py $'x\\x3btouch' M in $'sample\\x203\\x3b\\x20skipping' it"


def test_the_deeper_job_end_cause_reads_as_prose(cli):
    # b5abe100's cause text held "(`srun ... &`)": '&' glued to a backquote is a trigger (58.), and the whole cause
    # was printed as $'salloc\x27s', $'(\x60srun', $'\x60wait\x60' words
    rc, out, err = cli("explain", os.path.join(FIX, "noans24", "slurm-batch-script-without-wait.log"))
    flat = _flat(out)
    assert "(or salloc's command) returned while steps it started in the background (srun ... & lines)" in flat, out
    assert "$'" not in out, out


def test_generated_deeper_causes_prose_holds_no_trigger():
    # every deeper cause's prose (its 'cause', printed through safe_prose) reads as written
    from gpudoctor.explain.knowledge import generated_table
    from gpudoctor.explain.render import _TRIGGER

    rules = generated_table("deeper_causes")["rules"]
    assert rules
    for r in rules:
        assert not _TRIGGER.search(r["cause"]), r["cause"]
