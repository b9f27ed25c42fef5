"""Mutation round 22 (docs/mutation.md): security 86.'s inert word (fixline.inert_word), as bash reads it back.

Round 22's run found its \\u branch (a character above U+00FF that a terminal acts on: a right-to-left override, an
isolate, a zero-width space) untested: writing it as \\x (another character), in capitals or crashing lived. Each word here is pasted
into the real bash (printf %s WORD) and must come back as the value itself, and its form is asserted."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from gpudoctor.fixline import inert_word  # noqa: E402

CASES = [
    ("a\u202eb", "$'a\\u202eb'"),  # RIGHT-TO-LEFT OVERRIDE (the red team's OSC52 payload carries one)
    ("x\u2066y;z", "$'x\\u2066y\\x3bz'"),  # LEFT-TO-RIGHT ISOLATE beside a ;
    ("\u200b$(id)", "$'\\u200b\\x24(id)'"),  # ZERO WIDTH SPACE, then a command substitution
    ("\ufeffq`w`", "$'\\ufeffq\\x60w\\x60'"),
    ("ok\u00e9 \u0100", "$'ok\u00e9\\x20\u0100'"),  # printable letters past ASCII stay as they are
    ("del\x7f\x80", "$'del\\x7f\\x80'"),
]


@pytest.mark.parametrize("value, word", CASES)
def test_inert_word_form(value, word):
    assert inert_word(value) == word


def test_bash_reads_each_inert_word_back_as_the_value_and_runs_nothing(tmp_path):
    bash = shutil.which("bash")
    if not bash:
        pytest.skip("no bash here")
    for value, _ in CASES:
        p = subprocess.run([bash, "--norc", "-c", "printf %s " + inert_word(value)], capture_output=True,
                           cwd=str(tmp_path), env={"LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "")},
                           timeout=60)
        # a C1 control (U+0080-U+009F) is written \\xNN, which bash's $'...' reads as that one byte, not as the
        # character's UTF-8: literal all the same (nothing runs), only not the same bytes
        want = b"".join(bytes([ord(c)]) if 0x80 <= ord(c) < 0xa0 else c.encode("utf-8") for c in value)
        assert p.returncode == 0 and p.stdout == want, (value, p.stdout, p.stderr)
    assert os.listdir(str(tmp_path)) == []
