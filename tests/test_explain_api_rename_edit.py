"""A keyword a library renamed gets the edit of the call, the value kept (fix22, issue 18 "name the fix"):
apihistory.compute over generated/api_history.json (the deprecation message that names the replacement).

Real text: the seen set P29's hf_trainingargs_evaluation_strategy_removed (transformers 5.x: TrainingArguments(...,
evaluation_strategy=...) refused), read from bench/data/.
"""

import gpudoctor.checks  # noqa: F401
from gpudoctor import explain
from gpudoctor.explain import apihistory

from seen_case import seen_case as _case


def test_a_renamed_keyword_gets_the_edit():
    text = _case("2026-11-27p29", "p29-hf_trainingargs_evaluation_strategy_removed")
    fix, _why = apihistory.compute(text.splitlines())
    assert "use eval_strategy instead" in fix
    assert " - the edit: eval_strategy=<the value given as evaluation_strategy>, or pin" in fix


def test_a_removed_name_with_no_keyword_replacement_gets_no_edit():
    # a module attribute (not a keyword): the replacement is a name to use, not an argument to rename
    fix = explain.explain_text("AttributeError: module 'numpy' has no attribute 'float'\n", explain.load_knowledge())
    lines = [x for f in fix["findings"] for c in f.get("causes") or [] for x in c.get("fix") or []]
    assert not any(" - the edit: " in x for x in lines)
