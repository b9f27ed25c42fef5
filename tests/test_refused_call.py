"""pyanswer._refused_call's whole answer (mutation16, docs/mutation.md "Round 11"): how sure, what it quotes, the fix,
for numpy's np.split run here (CPython 3.11.7, numpy 2.4.6: tests/test_explain_provenance.py's text) and Triton's
launcher refusing a CPU tensor (P22, bench/data/explain_heldout_2026-11-27p22.jsonl), and the variants that are not a
refused call."""

import os
import sys

from gpudoctor import explain

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_explain_provenance import RUN_HERE_NUMPY_SPLIT, _case  # noqa: E402
from explainhelp import ANSWERED  # noqa: E402

NUMPY_AT = "/tmp/libarg15/venv/lib/python3.11/site-packages/numpy/lib/_shape_base_impl.py:872"
TAIL = (". The message names the argument or the shape it wanted; change the call (its arguments, their shapes or "
        "order), not the library.")


def _root(text, kb):
    r = explain.explain_text(text, kb)
    assert r["verdict"] in ANSWERED, r["verdict"]
    return r["findings"][0]


def test_numpys_refusal_is_the_callers_code_low(kb):
    f = _root(RUN_HERE_NUMPY_SPLIT, kb)
    assert f["id"] == "code.exception"
    assert f["notes"][0] == ("How sure: low. No known message matched; the family is read from the log's shape "
                             "(ValueError raised by numpy's own check in split, which your /tmp/f16/split.py:2 called). "
                             "Confirm it with the commands below before acting.")
    assert f["notes"][1] == ("numpy's split (at %s in split) refused what your line passed it (/tmp/f16/split.py:2): "
                             "ValueError: array split does not result in an equal division%s" % (NUMPY_AT, TAIL))
    assert f["causes"][0]["fix"][0] == ("open /tmp/f16/split.py (line 2) and change what it passes to numpy.split as the "
                                        "message asks")


def test_tritons_refusal_is_its_usage_entry_medium(kb):
    f = _root(_case("2026-11-27p22", "p22-triton_cpu_tensor"), kb)
    assert f["id"] == "triton.usage"
    assert f["notes"][0].startswith("How sure: medium. No known message matched; the family is read from the text's "
                                    "shape (ValueError raised by triton's own check in triton, which your "
                                    "/tmp/job-p671dk2b/job15/train.py:17 called)")
    # the function the user's line called is a lambda (triton/runtime/jit.py): the library's name stands for it
    assert f["notes"][1].startswith("triton's triton (at /opt/torch/.venv/lib/python3.12/site-packages/triton/backends/"
                                    "nvidia/driver.py:713 in __call__) refused what your line passed it "
                                    "(/tmp/job-p671dk2b/job15/train.py:17): ValueError: Pointer argument (at 1) cannot "
                                    "be accessed from Triton (cpu tensor?)" + TAIL)
    assert f["causes"][0]["fix"][0] == ("open /tmp/job-p671dk2b/job15/train.py (line 17) and change what it passes to "
                                        "triton.triton as the message asks")


def test_the_message_ends_once_and_a_dotted_class_counts_by_its_name(kb):
    # a message that ends with a full stop is quoted without it; a trailing X is kept
    text = RUN_HERE_NUMPY_SPLIT.replace("equal division", "equal division.")
    assert _root(text, kb)["notes"][1].endswith("equal division" + TAIL)
    text = RUN_HERE_NUMPY_SPLIT.replace("equal division", "equal division for axis X")
    assert _root(text, kb)["notes"][1].endswith("for axis X" + TAIL)
    # an exception class printed with its module ('<module>.ValueError', as traceback prints a class outside builtins)
    text = RUN_HERE_NUMPY_SPLIT.replace("ValueError: array", "numpy.exceptions.ValueError: array")
    f = _root(text, kb)
    assert f["id"] == "code.exception" and "numpy.exceptions.ValueError raised by numpy's own check" in f["notes"][0]


def test_an_assertion_with_a_message_is_a_refused_call_and_a_bare_value_error_too(kb):
    text = RUN_HERE_NUMPY_SPLIT.replace("ValueError: array split", "AssertionError: array split")
    f = _root(text, kb)
    assert f["id"] == "code.exception" and "AssertionError raised by numpy's own check" in f["notes"][0]
    # a ValueError without a message is still an argument check (only a bare assert checks the library's state)
    text = RUN_HERE_NUMPY_SPLIT.replace("ValueError: array split does not result in an equal division", "ValueError")
    f = _root(text, kb)
    assert f["id"] == "code.exception" and f["notes"][1].endswith("split.py:2): ValueError" + TAIL)


def test_a_frame_of_another_kind_between_the_call_and_the_library_is_no_refused_call(kb):
    # the user's line called the standard library, which called numpy: not a call the user made to numpy
    text = RUN_HERE_NUMPY_SPLIT.replace(
        '  File "/tmp/libarg15/',
        '  File "/root/.pyenv/versions/3.11.7/lib/python3.11/functools.py", line 909, in wrapper\n'
        '    return dispatch(args[0].__class__)(*args, **kw)\n  File "/tmp/libarg15/', 1)
    assert text != RUN_HERE_NUMPY_SPLIT
    assert _root(text, kb)["id"] == "code.library_error"


def test_a_type_error_naming_the_argument_is_a_refused_call(kb):
    # (review16: a TypeError naming no argument is left to the library; one that names it is the call's)
    text = RUN_HERE_NUMPY_SPLIT.replace("ValueError: array split does not result in an equal division",
                                        "TypeError: split() got an unexpected keyword argument 'parts'")
    f = _root(text, kb)
    assert f["id"] == "code.exception" and "TypeError raised by numpy's own check" in f["notes"][0]
    text = RUN_HERE_NUMPY_SPLIT.replace("ValueError: array split does not result in an equal division",
                                        "TypeError: Descriptors cannot be created directly.")
    assert _root(text, kb)["id"] == "code.library_error"
