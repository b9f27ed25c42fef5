"""review17: checks of this session's knowledge against the upstream programs it tells the user to run."""
import csv
import glob
import os
import re

import pytest
from gpudoctor.explain.knowledge import generated_files, open_generated, open_table

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KDIR = os.path.join(REPO, "gpudoctor", "data", "knowledge")


def _docker_gpus(value):
    """docker's --gpus parser (docker/cli opts/gpus.go GpuOpts.Set): one CSV record; each field 'all', a count or
    key=value with key driver / count / device / capabilities / options. Raises ValueError where docker errors."""
    fields = next(csv.reader([value]))
    req = {}
    for field in fields:
        key, eq, val = field.partition("=")
        if key in req:
            raise ValueError("gpu request key '%s' can be specified only once" % key)
        if not eq:
            if key != "all" and not key.isdigit():
                raise ValueError("invalid count (%s)" % key)
            req["count"] = key
            continue
        if key not in ("driver", "count", "device", "capabilities", "options"):
            raise ValueError("unexpected key '%s' in '%s'" % (key, field))
        req[key] = val.split(",")
    return req


def _gpus_values():
    out = []
    for path in sorted(glob.glob(os.path.join(KDIR, "*.toml"))) + generated_files():
        with open_table(path) as f:
            text = f.read()
        out += [(os.path.basename(path), v.replace('\\"', '"')) for v in re.findall(r"--gpus '([^'\n]{1,200})'", text)]
    return out


def test_the_parser_refuses_what_docker_refuses():
    assert _docker_gpus('all,"capabilities=compute,utility,video"')["capabilities"] == ["compute", "utility", "video"]
    with pytest.raises(ValueError):  # the whole value quoted as one field (5d049a1's words): key 'all,capabilities'
        _docker_gpus('"all,capabilities=compute,utility,video"')


def test_every_docker_gpus_value_in_the_knowledge_parses_as_docker_reads_it():
    values = _gpus_values()
    assert any("capabilities=" in v for _, v in values)
    for name, v in values:
        req = _docker_gpus(v)
        assert "capabilities" not in req or "utility" in req["capabilities"] or "compute" in req["capabilities"], (name, v)


def _tb(raise_line, msg):
    return ('Traceback (most recent call last):\n  File "/home/u/train.py", line 9, in <module>\n    m = fit(x)\n'
            '  File "/v/lib/python3.11/site-packages/foo/core.py", line 70, in fit\n    %s\nRuntimeError: %s\n'
            % (raise_line, msg))


@pytest.mark.parametrize("msg,fix", [
    # a program, not a Python package: no 'pip install Java' (9ee4954 said it)
    ("This feature requires Java to be installed", None),
    ("Saving the animation requires ffmpeg to be installed", None),
    # an import name of a wheel: the distribution pip installs it from (generated/wheel_packages.json)
    ("fit(method='gp') requires sklearn to be installed", "pip install scikit-learn"),
])
def test_a_package_that_is_not_installed_is_named_as_pip_installs_it(kb, msg, fix):
    from gpudoctor import explain

    res = explain.explain_text(_tb('raise RuntimeError("%s")' % msg, msg), kb)
    fixes = [x for f in res["findings"] for c in f["causes"] for x in c.get("fix") or []]
    assert not any(x.startswith("pip install Java") or x.startswith("pip install ffmpeg") for x in fixes), fixes
    if fix:
        assert res["findings"][0]["id"] == "code.python_env" and fixes[0].startswith(fix), fixes


_HELPER_LOGGED = """2026-11-20 10:00:01,120 INFO [train.py:88] epoch 1 step 100 loss 2.31
2026-11-20 10:00:05,331 WARNING [utils.py:41] upload of checkpoint metrics failed, will retry
Traceback (most recent call last):
  File "/home/u/train.py", line 120, in train_loop
    push_metrics(step)
  File "/home/u/utils.py", line 37, in push_metrics
    r = requests.post(URL, json=m, timeout=5)
  File "/opt/venv/lib/python3.10/site-packages/requests/adapters.py", line 519, in send
    raise ConnectionError(e, request=request)
requests.exceptions.ConnectionError: HTTPSConnectionPool(host='metrics.internal', port=443): Max retries exceeded
"""
# Ray's driver-shutdown record after the workload's own end (src/ray/core_worker/core_worker_process.cc)
_RAY_AFTER_END = """2026-11-20 10:00:01,120\tINFO worker.py:1724 -- Started a local Ray instance.
(train_fn pid=4121) epoch 0 loss 0.91
(train_fn pid=4121) epoch 1 loss 0.55
Training finished.
[2026-11-20 10:05:01,511 E 4031 4077] core_worker_process.cc:216: Failed to get the system config from raylet because \
it is dead. Worker will terminate. Status: GrpcUnavailable: RPC Error message: failed to connect to all addresses
"""
# a sourced profile script's complaint at a job's start (Lmod's 'module' in a non-login shell), then the job runs
_PROFILE_CNF = """/etc/profile.d/lmod.sh: line 12: module: command not found
+ python train.py --epochs 2
epoch 0 loss 0.91
epoch 1 loss 0.55
"""


# an exception's line alone, logged mid-run, then the run's progress (5feb843's _bare_exception gave
# deepspeed.library_error)
_LOGGED_EXC_LINE = """step 10 loss 2.10
step 20 loss 2.01
deepspeed.runtime.zero.utils.ZeRORuntimeException: something odd happened, retrying
step 30 loss 1.95
step 40 loss 1.90
"""


@pytest.mark.parametrize("text", [_HELPER_LOGGED, _RAY_AFTER_END, _PROFILE_CNF, _LOGGED_EXC_LINE],
                         ids=["helper-logged-exc_info", "ray-shutdown-after-end", "profile-command-not-found",
                              "exception-line-the-run-went-past"])
def test_lines_a_run_went_past_get_no_root_from_their_printer(kb, text):
    # 9ee4954: a logged exc_info traceback whose record names a helper's file was read as uncaught
    # (rendezvous.connect); Ray's shutdown E record after the run's end -> ray.start; a profile script's
    # 'command not found' before the job's progress -> launcher.script_missing
    from gpudoctor import explain

    res = explain.explain_text(text, kb)
    assert not [f for f in res["findings"] if f.get("role") == "root"], [(f["id"], f["role"]) for f in res["findings"]]


def test_a_remote_shells_command_not_found_is_still_the_launchers(kb):
    from gpudoctor import explain

    res = explain.explain_text("$ RUN_NAME=\"bert base\" ./launch.sh n1 n2\nbash: line 1: base: command not found\n"
                               "bash: line 1: base: command not found\nlaunched 2 ranks\n", kb)
    assert res["findings"] and res["findings"][0]["id"] == "launcher.script_missing"


def test_flashattention_build_fix_names_each_builds_own_switch():
    # 89b796c told 'unset the FLASHATTENTION_DISABLE_<feature> variables ... its setup.py reads them' for both builds:
    # FlashAttention-2's setup.py (v2.8.3) reads no such variable (commented-out -D flags); FlashAttention-3's
    # hopper/setup.py reads FLASH_ATTENTION_DISABLE_<X> and is not what 'pip install flash-attn' installs
    import json

    with open_generated("flashattn_messages") as f:
        sites = [s for s in json.load(f)["sites"] if s["text"].startswith("This flash attention build does not")
                 and "headdim" not in s["text"]]  # (the head-size site has the head-size fix)
    assert len(sites) >= 10
    for s in sites:
        fix = " ".join(s["fix"])
        assert "pip install flash-attn" in fix and "hopper/" in fix and "FLASH_ATTENTION_DISABLE_" in fix, s["where"]
        assert "FLASHATTENTION_DISABLE_<feature> variables" not in fix, s["where"]


@pytest.mark.parametrize("path,bad", [
    # einops/einops.py: `if axis.value != axis_length: raise` inside the else of `elif isinstance(axis, str):`
    ([("if", "axis.value != axis_length"), ("else", "isinstance(axis, str)"), ("else", "len(axes) == 0")],
     "pass `axis` as a str"),
    # botorch: an empty input / 'not implemented for q>1' / a kernel's own result: no dimension of size one to add
    ([("if", "X.size(-2) == 0")], "unsqueeze"),
    ([("if", "X.shape[-2] != 1")], "unsqueeze"),
    ([("if", "res.shape != expected_shape"), ("if", "settings.debug.on()")], "unsqueeze"),
    # diffusers: a private attribute is the class's own state
    ([("if", "self._workflow_map is None")], "set `self._workflow_map`"),
    ([("if", "not isinstance(self._input_predictions, list)")], "self._input_predictions"),
    # safetensors/paddle.py: torch's conversion is no way to make a paddle.Tensor
    ([("if", "not isinstance(v, paddle.Tensor)")], "torch.as_tensor"),
])
def test_guard_advice_that_misled_is_not_given(path, bad):
    import sys

    sys.path.insert(0, os.path.join(REPO, "tools"))
    import guardrules

    got = guardrules.advise(path, None, "")
    assert got is None or bad not in " ".join(got[3]), got


def test_guard_advice_an_else_chain_the_raise_is_in_still_gives():
    import sys

    sys.path.insert(0, os.path.join(REPO, "tools"))
    import guardrules

    got = guardrules.advise([("else", "isinstance(inpt, torch.Tensor)"), ("else", "isinstance(inpt, np.ndarray)")],
                            None, "")
    assert got and "torch.Tensor or np.ndarray" in got[3][0]
    assert "unsqueeze" in " ".join(guardrules.advise([("if", "emission.ndim != 2")], None, "")[3])


def test_a_deprecation_message_variable_is_read_where_it_is_used():
    # c4ee707's reader took a message variable's LAST assignment of the function (or of the whole class, with the
    # module's statements): diffusers' load_attn_procs got save_attn_procs' 'save_lora_adapter()'
    import sys
    import textwrap

    sys.path.insert(0, os.path.join(REPO, "tools"))
    import gen_api_history

    src = textwrap.dedent('''\
        class UNet2DConditionLoadersMixin:
            def load_attn_procs(self, path):
                deprecation_message = "Using the `load_attn_procs()` method has been deprecated. Please use `load_lora_adapter()`."
                deprecate("load_attn_procs", "0.40.0", deprecation_message)

            def save_attn_procs(self, path):
                deprecation_message = "Using the `save_attn_procs()` method has been deprecated. Please use `save_lora_adapter()`."
                deprecate("save_attn_procs", "0.40.0", deprecation_message)

        def unfuse_lora(components, **kwargs):
            if "unfuse_transformer" in kwargs:
                depr_message = "Passing `unfuse_transformer` to `unfuse_lora()` is deprecated. Please use the `components` argument."
                deprecate("unfuse_transformer", "1.0.0", depr_message)
            if "unfuse_text_encoder" in kwargs:
                depr_message = "Passing `unfuse_text_encoder` to `unfuse_lora()` is deprecated. Please use the `components` argument."
                deprecate("unfuse_text_encoder", "1.0.0", depr_message)
        ''')
    rows = gen_api_history.deprecations([("diffusers/loaders/unet.py", src)])
    got = {}
    for old, new, msg in rows:
        got.setdefault(old, set()).add((new, msg.split("`")[1]))
    assert got["load_attn_procs"] == {("load_lora_adapter()", "load_attn_procs()")}, got
    assert all(m == "unfuse_transformer" for _n, m in got["unfuse_transformer"]), got


@pytest.mark.parametrize("key,row,ok", [
    ("load_attn_procs", ["save_lora_adapter()", 7, 10, "Using the `save_attn_procs()` method has been deprecated and "
                         "will be removed in a future version. Please use `save_lora_adapter()`."], False),
    ("disable_cuda_graph", ["--cuda-graph-backend-", 1, 2, "Deprecated. Use --cuda-graph-backend-{decode,prefill}="
                            "disabled instead."], False),
    ("hybrid_kvcache_ratio", ["--swa-full-tokens-ratio", 6, 7, "Note: --hybrid-kvcache-ratio is deprecated now. Please "
                              "use --swa-full-tokens-ratio instead."], True),
    ("worker_use_ray", ["--distributed-executor-backend=ray", 0, 3, "Deprecated, use --distributed-executor-backend=ray."],
     True),
])
def test_a_replacement_row_is_used_only_where_its_message_is_the_names_own(key, row, ok):
    from gpudoctor.explain import apihistory

    tb = {"packages": {"p": {"releases": ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0", "1.7.0",
                                          "1.8.0", "1.9.0", "1.10.0"], "replaced": {key: row}}}}
    new, where, _first = apihistory.replacement([], tb, "p", key, "kwarg")
    assert (new == row[0]) is ok, (new, where)


@pytest.mark.parametrize("path,bad", [
    # diffusers ltx2 latent_upsampler: an odd kernel size is asked for
    ([("if", "kernel_size < 3 or kernel_size % 2 != 1")], "multiple of 2"),
    # diffusers modeling_utils: a backend's method, no package
    ([("if", "parallel_config_set and (not _AttentionBackendRegistry._is_context_parallel_available(backend))")],
     "pip install"),
    # torchmetrics ssim: the metric's own computed state
    ([("if", "not isinstance(self.similarity, Tensor)"), ("if", "self.reduction == 'sum'")], "self.similarity"),
])
def test_guard_advice_that_misled_second_sample(path, bad):
    import sys

    sys.path.insert(0, os.path.join(REPO, "tools"))
    import guardrules

    got = guardrules.advise(path, None, "")
    assert got is None or bad not in " ".join(got[3]), got
    # what the rules still read
    assert "multiple of 8" in guardrules.advise([("if", "width % 8 != 0")], None, "")[3][0]
    assert "pip install peft" in guardrules.advise([("if", "not is_peft_available()")], None, "")[3][0]
