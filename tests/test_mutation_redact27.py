"""Mutation round 22 (docs/mutation.md): security 85.'s colored reading in explain's redact() (8293ffcd).

Round 22's run of redact() with its tests left three mutants alive: the color codes replaced by other text (the
shown line then held text the log never had) and the two ways of getting the count of REDACTED words wrong, which
decides between the line with its codes and the line read without them. A log that already holds the word REDACTED
(a line another tool redacted, or a split 'REDAC<code>TED') is the case that tells."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from gpudoctor.explain.redact import redact  # noqa: E402

BEARER = "Authorization: Bearer \x1b[2mabcdefghij0123456789\x1b[0m"


@pytest.mark.parametrize("line, shown", [
    ("httpx: " + BEARER, "httpx: Authorization: Bearer REDACTED"),
    # read without its codes, the line is shown without them: none is replaced by other text
    ("\x1b[1;34mhttpx:\x1b[0m " + BEARER + " \x1b[31m(retry 2)\x1b[0m",
     "httpx: Authorization: Bearer REDACTED (retry 2)"),
    ("login with token: \x1b[1m9f8e7d6c5b4a39281706f5e4d3c2b1a0\x1b[0m failed", "login with token: REDACTED failed"),
    # a line another tool redacted before: the colored bearer token after it is still found
    ("REDACTED; httpx: " + BEARER, "REDACTED; httpx: Authorization: Bearer REDACTED"),
])
def test_a_colored_secret_is_shown_redacted_and_the_rest_as_the_log_said(line, shown):
    assert redact(line) == shown


def test_a_mark_split_by_a_color_code_is_no_secret_and_keeps_its_codes():
    line = "REDACTED REDAC\x1b[0mTED token"
    assert redact(line) == line
