"""torch.compile's graph breaks made errors (issue 18, libs13b): one site per graph break type of torch 2.14.1's
torch/_dynamo/graph_break_registry.json, read by tools/gen_compile_messages.py (its slice
tools/data/compile_messages_slice.txt keeps the registry's fields it reads and graph_break_hints.py): the generator
regenerates the committed sites, a fullgraph=True failure gets the registry's hints as its fix, and the same graph
break logged by TORCH_LOGS=graph_breaks in a run that goes on stays healthy.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_compile_messages  # noqa: E402
import knowgen  # noqa: E402

from gpudoctor import explain  # noqa: E402

# made here: torch 2.13.0+cpu (the PyPI CPU wheel), torch.compile(f, backend="eager", fullgraph=True) of
# `def f(x): if x.sum() > 0: return x + 1; return x - 1` (python gb.py; the lines up to the first hint)
FULLGRAPH = (
    "Traceback (most recent call last):\n  File \"/tmp/libs13b/gb.py\", line 7, in <module>\n"
    "    print(g(torch.ones(3)))\n          ^^^^^^^^^^^^^^^^\n"
    "  File \"/tmp/libs13b/tv/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py\", line 1177, in "
    "compile_wrapper\n    raise e.with_traceback(\ntorch._dynamo.exc.Unsupported: Data-dependent branching\n"
    "  Explanation: Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support "
    "tracing dynamic control flow.\n\n      The branch condition involves a tensor computed as follows:\n"
    "        # File \"/tmp/libs13b/gb.py\", line 3, in f, code: if x.sum() > 0:\n        gt = gt(sum_1, 0)\n    \n"
    "  Hint: Use `torch.cond` to express dynamic control flow.\n")
# made here: the same function without fullgraph=True under TORCH_LOGS=graph_breaks (the run prints its result)
LOGGED = (
    "V1126 19:34:59.567000 11777 tv/lib/python3.11/site-packages/torch/_dynamo/symbolic_convert.py:5124] [0/0] "
    "[__graph_breaks] Graph break in user code at /tmp/libs13b/gb3.py:3\n"
    "V1126 19:34:59.567000 11777 tv/lib/python3.11/site-packages/torch/_dynamo/symbolic_convert.py:5124] [0/0] "
    "[__graph_breaks] Graph Break Reason: Data-dependent branching\n"
    "V1126 19:34:59.567000 11777 tv/lib/python3.11/site-packages/torch/_dynamo/symbolic_convert.py:5124] [0/0] "
    "[__graph_breaks]   Explanation: Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does "
    "not support tracing dynamic control flow.\ntensor([2., 2., 2.])\n")
# https://github.com/pytorch/pytorch/issues/155426 (a nightly of June 2025: the new message's layout)
SKIPPED_155426 = (
    "torch._dynamo.exc.Unsupported: Attempted to call function marked as skipped\n"
    "  Explanation: Dynamo developers have intentionally marked that the function `_immutable_list_unflatten` in file "
    "`/home/cw/micromamba/envs/nightly-test/lib/python3.11/site-packages/torch/fx/immutable_collections.py` should "
    "not be traced.\n  Hint: Avoid calling the function `_immutable_list_unflatten`.\n")


# torch 2.4.1's torch/_dynamo/backends/distributed.py message (its format in the slice) as BackendCompilerFailed
# prints it; the settled workaround: https://github.com/pytorch/pytorch/issues/104674 (maintainer: "disable DDP
# optimizer using torch._dynamo.config.optimize_ddp = False"), seen again with FlexAttention in pytorch#137481
DDP_HOP = (
    "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nNotImplementedError: DDPOptimizer backend: "
    "Found a higher order op in the graph. This is not supported. Please turn off DDP optimizer using "
    "torch._dynamo.config.optimize_ddp=False. Note that this can cause performance degradation because there will be "
    "one bucket for the entire Dynamo graph. Please refer to this issue - "
    "https://github.com/pytorch/pytorch/issues/104674.\n")


# made here: torch 2.13.0+cpu, one gloo rank (python ddp1.py inner|outer), a model whose forward branches on a tensor:
# DDP(torch.compile(model, fullgraph=True)): the graph break is in the model (DDP's forward is in the Python traceback
# before the exception line); torch.compile(DDP(model), fullgraph=True): Dynamo traced DDP's own forward (its frames
# are listed under the exception, 'from user code:'), which breaks at DDP's logger
DDP_INNER = '[rank0]:   File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 1890, in forward\n[rank0]:     else self._run_ddp_forward(*inputs, **kwargs)\n[rank0]:          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n[rank0]:   File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 1715, in _run_ddp_forward\n[rank0]:     return self.module(*inputs, **kwargs)  # type: ignore[index]\n[rank0]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n[rank0]:   File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py", line 511, in __call__\n[rank0]:     return super().__call__(*args, **kwargs)\n[rank0]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n[rank0]:   File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1778, in _wrapped_call_impl\n[rank0]:     return self._call_impl(*args, **kwargs)\n[rank0]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n[rank0]:   File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1789, in _call_impl\n[rank0]:     return forward_call(*args, **kwargs)\n[rank0]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n[rank0]:   File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py", line 1177, in compile_wrapper\n[rank0]:     raise e.with_traceback(\n[rank0]: torch._dynamo.exc.Unsupported: Data-dependent branching\n[rank0]:   Explanation: Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support tracing dynamic control flow.\n\n[rank0]:       The branch condition involves a tensor computed as follows:\n[rank0]:         # File "/tmp/libs13b/ddp1.py", line 10, in forward, code: if y.sum() > 0:\n[rank0]:         gt = gt(sum_1, 0)\n[rank0]:     \n[rank0]:   Hint: For the common pattern `if tensor_cond: x = transform(x)` (e.g. clamping inf/nan values), consider making the code branchless by always applying the transform. Operations like torch.clamp, torch.nan_to_num, and torch.where are typically no-ops on well-behaved inputs and compile without graph breaks.\n[rank0]:   Hint: This graph break is fundamental - it is unlikely that Dynamo will ever be able to trace through your code. Consider finding a workaround.\n[rank0]:   Hint: Use `torch.cond` to express dynamic control flow.\n\n[rank0]:   Developer debug context: attempted to jump with TensorVariable()\n\n[rank0]:  For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html\n\n[rank0]: from user code:\n[rank0]:    File "/tmp/libs13b/ddp1.py", line 10, in forward\n[rank0]:     if y.sum() > 0:\n[rank0]:        ^^^^^^^^^^^^\n\n'
DDP_OUTER = '[rank0]:   File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py", line 1177, in compile_wrapper\n[rank0]:     raise e.with_traceback(\n[rank0]: torch._dynamo.exc.Unsupported: Unsupported method call\n[rank0]:   Explanation: Dynamo does not know how to trace method `set_runtime_stats_and_log` of class `Logger`\n[rank0]:   Hint: Avoid calling `Logger.set_runtime_stats_and_log` in your code.\n[rank0]:   Hint: Please report an issue to PyTorch.\n\n[rank0]:   Developer debug context: call_method UserDefinedObjectVariable(Logger) set_runtime_stats_and_log [] {}\n\n[rank0]:  For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0156.html\n\n[rank0]: from user code:\n[rank0]:    File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/_dynamo/external_utils.py", line 69, in inner\n[rank0]:     return fn(*args, **kwargs)\n[rank0]:            ^^^^^^^^^^^^^^^^^^^\n[rank0]:   File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 1886, in forward\n[rank0]:     inputs, kwargs = self._pre_forward(*inputs, **kwargs)\n[rank0]:                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n[rank0]:   File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 1757, in _pre_forward\n[rank0]:     self.logger.set_runtime_stats_and_log()\n\n'


def test_generator_regenerates_the_committed_sites_from_its_slice(tmp_path):
    got = knowgen.regenerated(gen_compile_messages.main, os.path.join(REPO, "tools", "data",
                                                                      "compile_messages_slice.txt"),
                              tmp_path / "compile_messages.json")
    full = knowgen.committed("compile_messages")
    assert got["header"]["version"] == full["header"]["version"]
    # every assigned site of the full read comes back from the slice as it is (the graph break registry whole,
    # the Python sites' statements); an unassigned Python site is listed, not recorded
    assigned = [s for s in full["sites"] if s.get("family")]
    assert got["sites"] == assigned and len(assigned) > 500
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_a_sites_fix_is_the_registrys_own_hints_then_its_category():
    sites = {s["text"]: s for s in knowgen.committed("compile_messages")["sites"]}
    item = sites["Unsupported: Unsupported Tensor.item() call with capture_scalar_outputs=False"]
    # the registry keeps a hint's pieces apart ('Set `...` ', 'or `export ...=1` ', 'to include ...'): joined
    assert item["fix"][0].startswith("Set `torch._dynamo.config.capture_scalar_outputs = True` or `export "
                                     "TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1`")
    # a generic hint (graph_break_hints.py) is replaced by what its category asks for, never quoted as it is
    assert not any("report an issue" in f for s in sites.values() for f in s.get("fix", []))
    assert all(s["family"] == "compile.graph_break" for s in sites.values() if s["text"].startswith("Unsupported: ")
               and s.get("re"))


def test_fullgraph_failure_gets_its_fix_and_a_logged_graph_break_stays_healthy(kb):
    res = explain.explain_text(FULLGRAPH, kb)
    root = res["findings"][0]
    assert root["id"] == "compile.graph_break" and root["family"] == "torch.compile_error"
    assert re.search(r"torch\.cond", "\n".join(root["causes"][0]["fix"]))
    res = explain.explain_text(SKIPPED_155426, kb)
    assert res["findings"][0]["id"] == "compile.graph_break"
    res = explain.explain_text(DDP_HOP, kb)
    assert res["findings"][0]["id"] == "compile.ddp_optimizer"
    assert "optimize_ddp = False" in "\n".join(res["findings"][0]["causes"][0]["fix"])
    res = explain.explain_text(LOGGED, kb)
    assert res["verdict"] == "no_error" and not res["findings"]


def test_ddp_wrapper_compiled_is_told_from_a_compiled_model_inside_ddp(kb):
    # the `together` group is ordered: DDP's forward must be among the frames listed after the exception line
    inner = explain.explain_text(DDP_INNER, kb)["findings"][0]
    assert inner["id"] == "compile.graph_break" and "torch.cond" in "\n".join(inner["causes"][0]["fix"])
    outer = explain.explain_text(DDP_OUTER, kb)["findings"][0]
    assert outer["id"] == "compile.ddp_wrapper_fullgraph"
    assert "model = torch.compile(model); model = DDP(model" in outer["causes"][0]["fix"][0]


def test_inductor_without_triton_in_older_wordings(kb):
    texts = [
        # https://github.com/triton-lang/triton/issues/4034 (torch 2.3/2.4: the scheduler's check, openai/triton URL)
        "RuntimeError: Cannot find a working triton installation. More information on installing Triton can be found "
        "at https://github.com/openai/triton\n\nSet TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more "
        "information\n",
        # https://github.com/welltop-cn/ComfyUI-TeaCache/issues/40 (torch 2.5/2.6: 'Either the package is not installed')
        "backend='inductor' raised:\nRuntimeError: Cannot find a working triton installation. Either the package is "
        "not installed or it is too old. More information on installing Triton can be found at "
        "https://github.com/openai/triton\n\nSet TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information\n",
    ]
    for text in texts:
        root = explain.explain_text(text, kb)["findings"][0]
        assert root["id"] == "torch.compile_error", text
        assert "triton" in root["causes"][0]["fix"][0] and "backend='aot_eager'" in "\n".join(root["causes"][0]["fix"])


def test_older_graph_break_wordings_and_their_logged_form(kb):
    # https://github.com/pytorch/pytorch/issues/145596 (torch 2.6: unimplemented("data dependent operator: ..."))
    text = ("  File \"/home/leslie/community/pytorch/torch/_dynamo/exc.py\", line 361, in unimplemented\n"
            "    raise Unsupported(msg, case_name=case_name)\ntorch._dynamo.exc.Unsupported: data dependent operator: "
            "aten._local_scalar_dense.default; to enable, set torch._dynamo.config.capture_scalar_outputs = True\n")
    root = explain.explain_text(text, kb)["findings"][0]
    assert root["id"] == "compile.graph_break" and "capture_scalar_outputs = True" in root["causes"][0]["fix"][0]
    # torch 2.4's TORCH_LOGS=graph_breaks logs a graph break with its traceback (symbolic_convert.py:
    # graph_break_log.debug("Graph break: from user code at:\n%s", ..., exc_info=True)), each line at the
    # artifact logger's verbose level: a run that goes on stays healthy
    pre = "V1126 19:34:59.567000 11777 torch/_dynamo/symbolic_convert.py:534] [0/0] [__graph_breaks] "
    logged = (pre + "Graph break: from user code at:\n" + pre + "  File \"/work/train.py\", line 14, in forward\n"
              + pre + "Traceback (most recent call last):\n" + pre + text.splitlines()[-1] + "\nstep 0 loss 7.07\ndone\n")
    res = explain.explain_text(logged, kb)
    assert res["verdict"] == "no_error" and not res["findings"]
