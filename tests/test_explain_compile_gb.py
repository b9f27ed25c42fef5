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
