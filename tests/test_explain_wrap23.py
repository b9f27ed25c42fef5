"""explain's text report follows check's policy (gpudoctor/report/text.py, userwalk23): its prose wraps once, at the
terminal's width (40..100) where stdout is a terminal and at 100 elsewhere; a fix or confirm line (a command to paste)
is never wrapped, so it copies whole (the terminal alone folds it). Through the CLI on a real pty and a pipe."""

import os
import subprocess
import sys

from test_explain_review_2026_11_26 import WHOLE  # the lines the report keeps whole (a log line, a file name)
from test_userwalk23 import ROOT, _at_a_terminal, _env

# NCCL_GRAPH_FILE / NCCL_TOPO_FILE set by the environment (NVIDIA/nccl#1240, fixtures/logs/MANIFEST.tsv): its
# confirm line 'env | grep NCCL_GRAPH_FILE; grep -H NCCL_ /etc/nccl.conf ~/.nccl.conf 2>/dev/null' is 91 columns
# wide, and a later cause's confirm and fix lines are longer than 100
LOG = os.path.join("fixtures", "logs", "dev", "nccl.topo_file__nccl-1240-graph-file-set-by-environment.log")
CONFIRM = "     confirm: env | grep NCCL_GRAPH_FILE; grep -H NCCL_ /etc/nccl.conf ~/.nccl.conf 2>/dev/null"
LONG = ("     confirm: look for 'NCCL_TOPO_FILE set by environment to .../aws-ofi-nccl/xml/<platform>-topo.xml' "
        "(NCCL_DEBUG=INFO) and the plugin's version ('NET/OFI Initializing aws-ofi-nccl <version>')")


def _piped():
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "explain", LOG], capture_output=True, text=True,
                       env=_env(), cwd=ROOT, timeout=120)
    return p.returncode, p.stdout.splitlines()


def _command(line):
    return line.startswith(("     confirm: ", "     fix: ", "    if it matters: "))


def test_a_pipe_gets_100_columns_of_prose_and_every_command_line_whole():
    rc, lines = _piped()
    assert rc == 0, lines
    # a confirm line longer than 100 columns was split between words (its first line pasted alone ran without the
    # rest); now one line, as the knowledge has it
    assert CONFIRM in lines and LONG in lines
    assert any(_command(x) and len(x) > 100 for x in lines)
    # the prose still wraps at 100 (its continuation lines indented), never the command lines
    assert all(len(x) <= 100 for x in lines if not WHOLE.match(x)), lines
    assert any(x.startswith("      ") and not _command(x) for x in lines)


def test_at_an_80_column_terminal_prose_wraps_at_80_and_command_lines_stay_whole():
    """At 80 columns explain's text was wrapped at 100 whatever the terminal (which folded its lines again)."""
    rc, lines = _at_a_terminal(["explain", LOG], 80)
    assert rc == 0, lines
    assert CONFIRM in lines and LONG in lines  # wider than the terminal: it folds them, they copy whole
    prose = [x for x in lines if not WHOLE.match(x)]
    assert all(len(x) <= 80 for x in prose), [x for x in prose if len(x) > 80]
    assert any(len(x) > 70 for x in prose)  # wrapped at 80, not at some narrower width
    # the same words as the piped report, in the same order: only where lines break differs
    _rc, piped = _piped()
    assert " ".join(" ".join(lines).split()) == " ".join(" ".join(piped).split())
    assert lines != piped


def test_a_terminal_at_least_100_columns_wide_prints_what_a_pipe_gets():
    rc, wide = _at_a_terminal(["explain", LOG], 120)
    prc, piped = _piped()
    assert rc == prc == 0 and wide == piped
