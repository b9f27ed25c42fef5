"""The text report's STOPPED EARLY line says why the reading stopped: the deadline, or a signal
(SIGINT / SIGTERM: scan.stop_reason gives the signal's name). A Ctrl-C was reported as 'the
deadline (--timeout 300.0 s) passed after 1.01 s'."""

import io

from gpudoctor.explain.render import render_text


def _text(stopped):
    res = {"source": "log", "lines": 10, "verdict": "no_error", "findings": [], "notes": [],
           "stopped_early": stopped}
    out = io.StringIO()
    render_text(res, out)
    return out.getvalue()


def test_a_signal_is_named_and_no_deadline_is_claimed():
    for sig in ("SIGINT", "SIGTERM"):
        text = _text({"reason": sig, "line": 5, "file": "a.log", "after_s": 1.01, "timeout_s": 300.0, "bytes_read": 99})
        assert "STOPPED EARLY: interrupted (%s) after 1.01 s, at line 5 of a.log" % sig in text, text
        assert "deadline" not in text


def test_the_deadline_is_named_with_its_timeout():
    text = _text({"reason": "timeout", "line": 5, "after_s": 2.0, "timeout_s": 2.0, "bytes_read": 99})
    assert "the deadline (--timeout 2.0 s) passed after 2.0 s, at line 5;" in text and "larger --timeout" in text
