"""gpudoctor/explain/render.py's split_export, against the survivors of a mutation run
(docs/mutation.md, "This round's new code"): a knowledge export is "VALUE" or "VALUE   (why)"
(three blanks, then the why in parentheses: gpudoctor/data/knowledge/*.toml), and only VALUE may
reach the `export NAME=VALUE` line a user pastes into a shell."""

import pytest

from gpudoctor.explain.render import split_export


@pytest.mark.parametrize("value,want", [
    ("1   (why)", ("1", "why")),
    # blanks after the closing parenthesis (a knowledge file's trailing blanks) still close it
    ("1   (why)  ", ("1", "why")),
    # more than three blanks before the why: none of them is the value's
    ("1    (why)", ("1", "why")),
    ("  1   ( why )", ("  1", "why")),
    # the first separator splits: a why may itself hold "   (" (an aside in the note)
    ("^lo,docker0   (or the NIC   (eno1))", ("^lo,docker0", "or the NIC   (eno1)")),
    # no closing parenthesis, or no value before the note: the value is kept whole
    ("1   (why", ("1   (why", None)),
    ("1   (why) x", ("1   (why) x", None)),
    ("    (why)", ("    (why)", None)),
    ("eth0", ("eth0", None)),
])
def test_split_export(value, want):
    assert split_export(value) == want
