"""A renamed keyword's replacement is the one of the class the message names, not another site's of the same package
(apihist22): generated/api_history.json's ``replaced`` is keyed by the old name across a package's classes and
functions, so transformers' "tokenizer" row is its pipelines' ("Use `preprocessor` instead") while Trainer's own
deprecate_kwarg renames it to processing_class.

Real text: the seen set P33's hf_trainer_tokenizer_kwarg_v5 (transformers 5.x: Trainer(..., tokenizer=tok) refused),
read from bench/data/.
"""

import gpudoctor.checks  # noqa: F401
from gpudoctor.explain import apihistory

from seen_case import seen_case as _case


def test_trainer_tokenizer_gets_trainers_own_replacement():
    text = _case("2026-11-27p33", "p33-hf_trainer_tokenizer_kwarg_v5")
    fix, why = apihistory.compute(text.splitlines())
    assert "preprocessor" not in fix, fix
    assert "use processing_class instead" in fix and "the edit: processing_class=<the value given as tokenizer>" in fix
    assert "left transformers after 4.44.0 (by 4.47.0)" in fix, fix


def test_the_renamed_keyword_of_p29_keeps_its_row():
    text = _case("2026-11-27p29", "p29-hf_trainingargs_evaluation_strategy_removed")
    fix, _why = apihistory.compute(text.splitlines())
    assert "use eval_strategy instead" in fix


def _tb(replaced_a, args, replaced_b=None):
    rel = ["1.0.0", "1.1.0", "1.2.0", "1.3.0"]
    return {"packages": {
        "a": {"releases": rel, "replaced": replaced_a, "params": {"C": {"read": [0, 3], "args": args}}},
        "b": {"releases": rel, "replaced": replaced_b or {}, "params": {}}}}


MSG = "The `old` argument is deprecated. Use `other` instead."


def test_a_row_nothing_contradicts_is_kept():
    # C lost old in 1.2.0 and gained new_kw then, but no second message names new_kw: the row stays (a release adds
    # many keywords; the table dates only those that change)
    tb = _tb({"old": ["other", 0, 3, MSG]}, "new_kw=2- old=0-2")
    assert apihistory.replacement([], tb, "a", "old", "kwarg", "C")[0] == "other"
    assert apihistory.replacement([], tb, "a", "old", "kwarg")[0] == "other"
    assert apihistory.replacement([], tb, "a", "old", "kwarg", "D")[0] == "other"


def test_a_row_that_fits_the_class_is_kept():
    # the replacement is a keyword of C
    assert apihistory.replacement([], _tb({"old": ["new_kw", 0, 3, MSG]}, "new_kw=2- old=0-2"), "a", "old", "kwarg",
                                  "C")[0] == "new_kw"
    # the message names the class
    tb = _tb({"old": ["other", 0, 3, "C's `old` argument is deprecated. Use `other` instead."]}, "new_kw=2- old=0-2")
    assert apihistory.replacement([], tb, "a", "old", "kwarg", "C")[0] == "other"
    # nothing arrived in C when old left: no contradiction
    assert apihistory.replacement([], _tb({"old": ["other", 0, 3, MSG]}, "new_kw=1- old=0-2"), "a", "old", "kwarg",
                                  "C")[0] == "other"


def test_another_packages_row_among_the_class_arrivals_is_named():
    row_b = ["new_kw", 0, 1, "deprecate_kwarg('old', new_name='new_kw')"]
    tb = _tb({"old": ["other", 0, 3, MSG]}, "new_kw=2- x=2- old=0-2", {"old": row_b})
    new, src, dep = apihistory.replacement([], tb, "a", "old", "kwarg", "C")
    assert new == "new_kw" and dep is None and "C gained new_kw in 1.2.0" in src and "b's" in src
    # without the class the package's own row
    assert apihistory.replacement([], tb, "a", "old", "kwarg")[0] == "other"
    # another package's row whose replacement C did not gain then: the package's own row
    tb2 = _tb({"old": ["other", 0, 3, MSG]}, "new_kw=2- x=2- old=0-2", {"old": ["y_kw", 0, 1, row_b[3]]})
    assert apihistory.replacement([], tb2, "a", "old", "kwarg", "C")[0] == "other"
    # two packages naming two different arrivals: ambiguous, the package's own row
    tb["packages"]["z"] = {"releases": ["1.0.0"], "replaced": {"old": ["x", 0, 0, "`old` was renamed to `x`"]}}
    assert apihistory.replacement([], tb, "a", "old", "kwarg", "C")[0] == "other"
