"""guards17's tools/guardrules.advise, the paths mutation17 left (docs/mutation.md "Round 13"): an enclosing else chain
is skipped and the guard further out still read; an except handler that is no ImportError hands over to the test
outside it; `assert x is not None and y.z is not None` reads the attribute after skipping the local. Paths in
knowgen.guard_path's form ([(how, test)], innermost first); the tests are source text as the wheels spell them."""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import guardrules  # noqa: E402


def test_an_enclosing_else_chain_is_skipped_and_the_guard_outside_it_read():
    # the raise under `if not self.is_ready(x):` (no rule reads a method call), in the else of `if isinstance(mode,
    # str):`, inside `if not isinstance(config, dict):`: the else is the branch taken, the outer test what failed
    path = [("if", "not self.is_ready(x)"), ("else", "isinstance(mode, str)"), ("if", "not isinstance(config, dict)")]
    got = guardrules.advise(path, None, "")
    assert got == (["instance"], None, "`config` is not a dict (`isinstance(config, dict)` is false)",
                   ["pass `config` as a dict"]), got


def test_an_except_that_is_no_import_error_hands_over_to_the_test_outside():
    path = [("except", ("ValueError",)), ("if", "not isinstance(config, dict)")]
    got = guardrules.advise(path, None, "")
    assert got and got[0] == ["instance"] and got[3] == ["pass `config` as a dict"], got
    # an ImportError handler whose message names the package: the install advice, the outer test not read
    got = guardrules.advise([("except", ("ImportError",)), ("if", "not isinstance(config, dict)")], None,
                            "wandb is not installed: pip install wandb")
    assert got and got[:2] == (["install"], "code.python_env") and "pip install wandb" in got[3][0], got


def test_an_assert_on_a_local_is_skipped_and_the_attribute_after_it_read():
    got = guardrules.advise([("assert", "tokenizer is not None and model.config is not None")], None, "")
    assert got == (["none"], None, "`model.config` is not set yet (None) when this is called",
                   ["set `model.config` before this call: call what sets it first (the message names it), or pass "
                    "it where the object is made"]), got
