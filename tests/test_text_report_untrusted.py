"""The text report prints values that nodes handed in: a control character never reaches
the terminal as itself (ESC ] 0 ; ... BEL retitles an xterm; a carriage return hides text)."""

import io

from conftest import node_facts

from gpudoctor.config import Config
from gpudoctor.registry import load_checks
from gpudoctor.report import text
from gpudoctor.runner import Node, run_checks


def test_escape_sequences_from_a_node_are_shown_escaped():
    doc = node_facts("h100-ubuntu2404-torch211")
    doc["host"]["kernel"] = "6.1\x1b]0;pwned\x07\r"
    doc["host"]["hostname"] = "gpu\x1b[2J01"
    report = run_checks([Node(host="gpu01", facts=doc)], list(load_checks()), Config())
    out = io.StringIO()
    text.render(report, out, color=False)
    shown = out.getvalue()
    assert "\x1b" not in shown and "\x07" not in shown and "\r" not in shown
    # still visible, as text: one inert shell word (fixline.Shown, docs/security.md items 27 and 86: every character a
    # shell acts on as \xNN, so no quote an earlier apostrophe left open makes it bare)
    assert "$'6.1\\x1b\\x5d0\\x3bpwned\\x07\\x0d'" in shown


def test_a_crashed_check_keeps_its_traceback_for_the_crash_file():
    from gpudoctor.registry import Check

    def boom(facts, config):
        raise KeyError("no such key")

    report = run_checks([Node(host="n1", facts=node_facts("devbox-debian12-nogpu"))],
                        [Check(id="zz.boom", title="a buggy check", func=boom)], Config())
    (res,) = report.results
    (msg,) = res.crashed
    assert "Traceback" in res.tracebacks[msg] and "boom" in res.tracebacks[msg]
    assert report.exit_code == 3
