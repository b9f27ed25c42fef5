"""(removed18) A name numpy, jax, scipy, pandas, huggingface_hub, torchvision ... removed, asked for by the user's code or
by ANOTHER library's older release: tools/gen_api_history.py --set sci reads the released wheels with ast, and the
tables those libraries keep of their removed names (numpy's __former_attrs__ / __expired_attributes__, jax's
_deprecations: attr_tables, evaluated by _Static without importing anything), into generated/api_history_sci.json
(its record cut to a few modules: tools/data/api_history_sci_slice.txt). explain names the release the name left in,
its replacement, and whose call it was (the traceback's frames).

Every text in REAL was made here by running the real wheels in a venv under /tmp (python 3.11; the versions are
named above each); none is from the held-out sets.
"""

import json
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_api_history  # noqa: E402
from explainhelp import assert_root, explain_paste  # noqa: E402

from gpudoctor.explain import apihistory  # noqa: E402
from gpudoctor.explain.knowledge import generated_path, open_table  # noqa: E402

COMMITTED = generated_path("api_history_sci")  # .json or .json.gz
SLICE = os.path.join(REPO, "tools", "data", "api_history_sci_slice.txt")

REAL = {
    # numpy 2.0.2 + gym 0.26.2 (its last release): CartPole's env.step through gym's passive env checker, which
    # still asks for np.bool8 (deprecated in numpy 1.24, removed in 2.0)
    "gym_numpy2": ("""Traceback (most recent call last):
  File "/tmp/removed18run/cartpole.py", line 4, in <module>
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
                                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/removed18venv/lib/python3.11/site-packages/gym/wrappers/time_limit.py", line 50, in step
    observation, reward, terminated, truncated, info = self.env.step(action)
                                                       ^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/removed18venv/lib/python3.11/site-packages/gym/wrappers/order_enforcing.py", line 37, in step
    return self.env.step(action)
           ^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/removed18venv/lib/python3.11/site-packages/gym/wrappers/env_checker.py", line 37, in step
    return env_step_passive_checker(self.env, action)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/removed18venv/lib/python3.11/site-packages/gym/utils/passive_env_checker.py", line 233, in env_step_passive_checker
    if not isinstance(terminated, (bool, np.bool8)):
                                         ^^^^^^^^
  File "/tmp/removed18venv/lib/python3.11/site-packages/numpy/__init__.py", line 410, in __getattr__
    raise AttributeError("module {!r} has no attribute "
AttributeError: module 'numpy' has no attribute 'bool8'. Did you mean: 'bool'?
""", ("numpy.bool8 left numpy in 2.0.0 (use np.bool_)", "gym still calls it", "'numpy<2.0.0'", "upgrade gym")),
    # numpy 2.0.2, the script's own np.float_ (numpy 2's __getattr__ prints the table's note)
    "own_float_numpy2": ("""Traceback (most recent call last):
  File "/tmp/removed18run/own.py", line 2, in <module>
    x = np.zeros(3, dtype=np.float_)
                          ^^^^^^^^^
  File "/tmp/removed18venv/lib/python3.11/site-packages/numpy/__init__.py", line 397, in __getattr__
    raise AttributeError(
AttributeError: `np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead.. Did you mean: 'float16'?
""", ("numpy.float_ left numpy in 2.0.0", "use np.float64 instead of numpy.float_ in the code")),
    # numpy 1.26.4, the script's own np.float (removed in 1.24: __former_attrs__)
    "own_float_numpy126": ("""Traceback (most recent call last):
  File "/tmp/removed18run/own124.py", line 2, in <module>
    labels = np.array([0, 1, 2]).astype(np.float)
                                        ^^^^^^^^
  File "/tmp/removed18venv124/lib/python3.11/site-packages/numpy/__init__.py", line 324, in __getattr__
    raise AttributeError(__former_attrs__[attr])
AttributeError: module 'numpy' has no attribute 'float'.
`np.float` was a deprecated alias for the builtin `float`. To avoid this error in existing code, use `float` by itself. Doing this will not modify any behavior and is safe. If you specifically wanted the numpy scalar type, use `np.float64` here.
The aliases was originally deprecated in NumPy 1.20; for more details and guidance see the original release note at:
    https://numpy.org/devdocs/release/1.20.0-notes.html#deprecations. Did you mean: 'cfloat'?
""", ("numpy.float left numpy in 1.24.0", "use float instead of numpy.float in the code")),
    # huggingface_hub 0.26.0 + diffusers 0.21.4: diffusers' import of cached_download (removed in 0.26)
    "diffusers_hub026": ("""Traceback (most recent call last):
  File "/tmp/removed18run/hub.py", line 1, in <module>
    from diffusers import StableDiffusionPipeline
  File "/tmp/removed18venv/lib/python3.11/site-packages/diffusers/__init__.py", line 5, in <module>
    from .utils import (
  File "/tmp/removed18venv/lib/python3.11/site-packages/diffusers/utils/__init__.py", line 36, in <module>
    from .dynamic_modules_utils import get_class_from_dynamic_module
  File "/tmp/removed18venv/lib/python3.11/site-packages/diffusers/utils/dynamic_modules_utils.py", line 28, in <module>
    from huggingface_hub import HfFolder, cached_download, hf_hub_download, model_info
ImportError: cannot import name 'cached_download' from 'huggingface_hub' (/tmp/removed18venv/lib/python3.11/site-packages/huggingface_hub/__init__.py)
""", ("huggingface_hub.cached_download left huggingface_hub", "diffusers still calls it", "upgrade diffusers")),
    # jax 0.6.2 + jaxlib 0.6.2 (JAX_PLATFORMS=cpu): the script's own jax.tree_map, whose _deprecations entry is
    # (message, None) since 0.6.0: jax/_src/deprecations.py raises the message
    "own_tree_map_jax062": ("""Traceback (most recent call last):
  File "/tmp/removed18run/tree.py", line 4, in <module>
    params = jax.tree_map(lambda p: p * 0.5, params)
             ^^^^^^^^^^^^
  File "/tmp/removed18venvjax/lib/python3.11/site-packages/jax/_src/deprecations.py", line 54, in getattr
    raise AttributeError(message)
AttributeError: jax.tree_map was removed in JAX v0.6.0: use jax.tree.map (jax v0.4.25 or newer) or jax.tree_util.tree_map (any JAX version).
""", ("jax.tree_map left jax in 0.6.0", "use jax.tree.map instead of jax.tree_map in the code", "'jax<0.6.0'")),
    # pandas 2.2.3 + numpy 2.0.2: the script's own import of pandas.util.testing (a module pandas 2.0 removed; the
    # table's module spans date it)
    "own_pandas_util_testing": ("""Traceback (most recent call last):
  File "/tmp/removed18run/pdtest.py", line 2, in <module>
    import pandas.util.testing as tm
ModuleNotFoundError: No module named 'pandas.util.testing'
""", ("pandas.util.testing left pandas in 2.0.0", "'pandas<2.0.0'")),
}


@pytest.mark.parametrize("key", sorted(REAL))
def test_real_texts(cli, tmp_path, key):
    text, want = REAL[key]
    _, doc = explain_paste(cli, tmp_path, text, "--json")
    root = assert_root(doc, entry="code.lib_api_version")
    fix = root["causes"][0]["fix"][0]
    for w in want:
        assert w in fix, (w, fix)
    assert "generated/api_history_sci.json" in fix


def test_the_caller_is_the_frame_that_asked():
    frames = [("/w/train.py", 3, "<module>"),
              ("/v/lib/python3.12/site-packages/numba_cuda/numba/cuda/np/arrayobj.py", 6860, "<module>"),
              ("/v/lib/python3.12/site-packages/numpy/__init__.py", 769, "__getattr__")]
    assert apihistory.caller_frame(frames, "numpy") == "numba-cuda"
    assert apihistory.caller_frame(frames[:1] + frames[2:], "numpy") == "user"
    assert apihistory.caller_frame([], "numpy") is None
    line = "AttributeError: module 'numpy' has no attribute 'row_stack'"
    fix, why = apihistory.compute([line], frames=frames)
    assert "numpy.row_stack left numpy in 2.5.0 (use np.vstack)" in fix and "numba-cuda still calls it" in fix
    assert "'numpy<2.5.0'" in fix and why.startswith("generated/api_history_sci.json")
    fix, _ = apihistory.compute([line], frames=frames[:1] + frames[2:])
    assert "use np.vstack instead of numpy.row_stack" in fix and "still calls" not in fix


def test_a_removed_submodule_another_library_imports():
    # basicsr's degradations.py importing torchvision.transforms.functional_tensor (torchvision 0.17 removed it)
    frames = [("/w/inference_realesrgan.py", 5, "<module>"),
              ("/v/lib/python3.11/site-packages/basicsr/data/degradations.py", 8, "<module>")]
    fix, _ = apihistory.compute(["ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'"],
                                frames=frames)
    assert "functional_tensor left torchvision after 0.15.1 (by 0.17.0)" in fix and "basicsr still imports it" in fix
    # the package itself missing is not a removed submodule
    assert apihistory.compute(["ModuleNotFoundError: No module named 'torchvision'"], frames=frames) is None


def test_static_reader_evaluates_the_tables():
    numpy_init = '''
if __NUMPY_SETUP__:
    pass
else:
    __deprecated_attrs__ = {}
    _msg = ("`np.{n}` is a deprecated alias for `{an}`.  (Deprecated NumPy 1.24)")
    _type_info = [("bool8", bool_, "np.bool_"), ("int0", intp, "np.intp")]
    __deprecated_attrs__.update({n: (alias, _msg.format(n=n, an=an)) for n, alias, an in _type_info})
    _msg = ("module 'numpy' has no attribute '{n}'.\\n`np.{n}` was a deprecated alias for the builtin `{n}`. "
            "{extended_msg}")
    __former_attrs__ = {n: _msg.format(n=n, extended_msg=e) for n, e in [("float", ""), ("int", "")]}
'''
    jax_init = '''
_deprecations = {
  "tree_map": ("jax.tree_map was removed in JAX v0.6.0: use jax.tree.map (jax v0.4.25 or newer).", None),
  "linear_util": ("jax.linear_util is deprecated: use jax.extend.linear_util.", _deprecated_linear_util),
  "DimSize": ("jax.core.DimSize is deprecated. Use DimSize = int | Any.", _x),
}
'''
    got = {(m, n): (state, new) for m, n, state, new, _ in
           gen_api_history.attr_tables([("numpy/__init__.py", numpy_init)], "numpy") +
           gen_api_history.attr_tables([("jax/__init__.py", jax_init)], "jax")}
    assert got[("numpy", "bool8")] == ("present", "np.bool_")
    assert got[("numpy", "float")] == ("gone", "float")
    assert got[("jax", "tree_map")] == ("gone", "jax.tree.map")
    assert got[("jax", "linear_util")] == ("present", "jax.extend.linear_util")
    assert got[("jax", "DimSize")] == ("present", "")  # 'Use DimSize = ...' defines, names nothing to use
    # a table in a private module answers for the public package above it; inside a private package, for none
    assert gen_api_history._table_module("numpy/_expired_attrs_2_0.py", "numpy") == "numpy"
    assert gen_api_history._table_module("jax/_src/numpy/lax_numpy.py", "jax") is None


def test_regenerates_from_its_record(tmp_path):
    out = tmp_path / "api_history_sci.json"
    gen_api_history.main(["--slice", SLICE, "--set", "sci", "-o", str(out)])
    got = json.loads(out.read_text())["packages"]
    with open_table(COMMITTED) as f:
        full = json.load(f)
    assert full["header"]["generator"] == "tools/gen_api_history.py"
    full = full["packages"]
    for pkg, mod in (("numpy", "numpy"), ("jax", "jax")):
        assert got[pkg]["releases"] == full[pkg]["releases"], pkg
        assert got[pkg]["names"][mod] == full[pkg]["names"][mod], mod
    for pkg, name, new in (("numpy", "row_stack", "np.vstack"), ("numpy", "float_", "np.float64"),
                           ("jax", "tree_map", "jax.tree.map")):
        assert got[pkg]["replaced"][name] == full[pkg]["replaced"][name] and full[pkg]["replaced"][name][0] == new
    numpy = full["numpy"]
    # what the wheels say (numpy's release notes agree): np.float left in 1.24.0, np.row_stack in 2.5.0
    for name, rel in (("float", "1.24.0"), ("row_stack", "2.5.0")):
        assert numpy["releases"][apihistory.spans(numpy["names"]["numpy"])[name][1]] == rel
