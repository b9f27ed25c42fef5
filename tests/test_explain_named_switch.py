"""A documented setting the error line itself names at a value other than its default, or tells to set back to its
default, is the first cause with the unset (fix22, issue 18 "name the fix"): envcause._named_switch over
gpudoctor/data/runtime_switches.json (tools/gen_runtime_switches.py: JAX's jax/_src/config.py flags, each also read
from JAX_<NAME>).

Real texts: the seen set P26's jax_rank_promotion_env (JAX_NUMPY_RANK_PROMOTION=raise in the job: "... with the config
option jax_numpy_rank_promotion='raise'", jax/_src/numpy/util.py) and P24's jax_platforms_tpu (JAX_PLATFORMS=tpu on a
GPU node: "(set JAX_PLATFORMS='' to automatically choose an available backend)", jax/_src/xla_bridge.py), read from
bench/data/.
"""

import pytest

import gpudoctor.checks  # noqa: F401
from gpudoctor import explain
from gpudoctor.explain import envcause

from seen_case import seen_case as _case


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


@pytest.mark.parametrize("name, cid, fix", [
    ("2026-11-27p26", "p26-jax_rank_promotion_env", "unset JAX_NUMPY_RANK_PROMOTION, or set it to allow, its documented "
                                                    "default (or jax.config.update('jax_numpy_rank_promotion', 'allow')"),
    ("2026-11-27p24", "p24-jax_platforms_tpu", "unset JAX_PLATFORMS (its documented default is unset)"),
])
def test_the_setting_the_error_names_is_the_first_cause(kb, name, cid, fix):
    res = explain.explain_text(_case(name, cid), kb)
    first = res["findings"][0]["causes"][0]
    assert first["fix"][0].startswith(fix), first
    assert "is not at its documented default (line " in first["text"]


def _root(line):
    return {"id": "jax.usage", "family": "jax.usage", "matches": [{"line": 3, "text": line}]}


@pytest.mark.parametrize("line", [
    # advice to set a switch to another value than its default (a debugging switch): not the cause
    "For simplicity, JAX has removed its internal frames. Set JAX_TRACEBACK_FILTERING='off' to include these.",
    # a value the message says the setting has, which is its default
    "ValueError: ... with the config option jax_numpy_rank_promotion='allow'.",
    # a name no table documents
    "ValueError: with the option my_flag='raise'",
])
def test_what_is_not_a_named_setting(line):
    assert envcause._named_switch(_root(line)) == []


def test_a_root_of_another_subsystem_is_not_filled():
    root = dict(_root("ValueError: with the config option jax_numpy_rank_promotion='raise'"), id="nccl.error",
                family="nccl.error")
    assert envcause._named_switch(root) == []
