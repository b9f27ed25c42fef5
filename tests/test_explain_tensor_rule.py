"""An exception torch raised whose message no table holds: its words name the tensor rule the call broke
(excmeaning._TENSOR_RULE), How sure: low; a plain Python error of the user's keeps code.exception. The
messages are torch's own formats (cited per case); the tracebacks around them are Python's."""

import pytest

from gpudoctor import explain

TB = """Traceback (most recent call last):
  File "/work/train.py", line 14, in <module>
    {call}
  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1751, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
{exc}: {msg}
"""
USER_ONLY = """Traceback (most recent call last):
  File "/work/train.py", line 14, in <module>
    {call}
{exc}: {msg}
"""


def root(kb, text):
    res = explain.explain_text(text, kb)
    f = res["findings"][0] if res["findings"] else None
    return f and f["id"], f


@pytest.mark.parametrize("msg,want", [
    # aten/src/ATen/native/TensorShape.cpp (view)
    ("view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
     "contiguous subspaces). Use .reshape(...) instead.", "usercode.shape_mismatch"),
    # aten/src/ATen/native/LossNLL.cpp (cross_entropy with class probabilities)
    ("Expected floating point type for target with class probabilities, got Long", "usercode.dtype_mismatch"),
    # aten/src/ATen/native/transformers/attention.cpp (scaled_dot_product_attention's mask)
    ("Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: long int "
     "and  query.dtype: float instead.", "usercode.dtype_mismatch"),
    # aten/src/ATen/TensorUtils.cpp checkSameGPU
    ("Expected tensor for argument #1 'indices' to have the same device as tensor for argument #2 'weight'; "
     "but device 1 does not equal 0 (while checking arguments for embedding)", "usercode.tensors_on_two_devices"),
])
def test_torchs_words_name_the_rule(kb, msg, want):
    rid, f = root(kb, TB.format(call="out = model(x)", exc="RuntimeError", msg=msg))
    assert rid == want
    assert f["confidence"] == "structural" and f["notes"][0].startswith("How sure: low")
    assert any("/work/train.py:14" in n for n in f["notes"])


def test_a_loop_that_raises_floatingpointerror_is_nan_inf(kb):
    rid, _ = root(kb, USER_ONLY.format(call="raise FloatingPointError(f'loss is {loss} at step {step}')",
                                       exc="FloatingPointError", msg="loss is inf at step 0, stopping"))
    assert rid == "usercode.nan_inf"


@pytest.mark.parametrize("exc,msg", [
    ("KeyError", "'input_ids'"),                               # a dict of the user's: no tensor rule
    ("RuntimeError", "the dataset shards were written with another schema"),  # no tensor words
    ("ValueError", "expected 3 dims in the config file"),     # tensor-like words but neither torch nor tensors
])
def test_other_errors_keep_code_exception(kb, exc, msg):
    rid, _ = root(kb, USER_ONLY.format(call="step(batch)", exc=exc, msg=msg))
    assert rid == "code.exception"
