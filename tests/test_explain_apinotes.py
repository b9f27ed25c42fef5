"""The called API's documented constraints of use (apinotes20, issue 18: explain/apinotes.py, tools/gen_api_notes.py
-> generated/api_notes.json).

Real texts: fixtures/explain/apinotes20/<case>.log, each the output of running <case>.py here on CPU with CPython
3.11.7 and torch 2.13.0+cpu from PyPI (README.md there). The messages are torch's own (torch/optim/lr_scheduler.py
OneCycleLR.get_lr "Tried to step {} times. The specified number of total steps is {}", SequentialLR.__init__,
torch/distributed/tensor/_api.py distribute_tensor); the sentences quoted are the same wheel's docstrings.
"""

import json
import os
import sys

import pytest

from gpudoctor.explain import apinotes, explain_text

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CASES = os.path.join(REPO, "fixtures", "explain", "apinotes20")
_RESULTS = {}


def _root(case):
    # (keyed by the process too: a forked child - mutmut's mutant runs - reads the fixture afresh, not the parent's
    # answer; docs/mutation.md round 15)
    key = (os.getpid(), case)
    if key not in _RESULTS:
        with open(os.path.join(CASES, case + ".log"), encoding="utf-8") as fh:
            res = explain_text(fh.read())
        _RESULTS[key] = (res.get("findings") or [None])[0]
    return _RESULTS[key]


def _said(root):
    notes = [n for n in root["notes"] if "'s documentation (" in n and " See https://" in n]
    fixes = [x for x in root["causes"][0]["fix"] if x.startswith("follow what ")]
    return notes, fixes


@pytest.mark.parametrize("case, api, quoted, url", [
    # a function of a private module, named as its package re-exports it (the frame: distribute_tensor of _api.py)
    ("dtensor_placements", "torch.distributed.tensor.distribute_tensor",
     "The rank of 'device_mesh' and 'placements' must be the same.",
     "https://docs.pytorch.org/docs/stable/distributed.tensor.html#torch.distributed.tensor.distribute_tensor"),
    ("sequential_lr", "torch.optim.lr_scheduler.SequentialLR", "the schedulers will be called according to the "
     "milestone points", "torch.optim.lr_scheduler.SequentialLR.html"),
    # made after the reader's rules were frozen (README.md): three of four got a line, all three right
    ("new_subgroups_size", "torch.distributed.new_subgroups",
     "If 'group_size' is passed in, the world size must be divisible by 'group_size'.",
     "https://docs.pytorch.org/docs/stable/distributed.html#torch.distributed.new_subgroups"),
    # a parameter's sentence: the message names the parameter
    ("scatter_no_list", "torch.distributed.scatter", "scatter_list: List of tensors to scatter "
     "(default is None, must be specified on the source rank)", "distributed.html#"),
    # a public name through two re-exports, one of them `from .modules import *`
    ("fractional_pool_both", "torch.nn.FractionalMaxPool2d", "Exactly one of 'output_size' or 'output_ratio' must be "
     "defined.", "https://docs.pytorch.org/docs/stable/generated/torch.nn.FractionalMaxPool2d.html"),
    # the class built inside another call (Sequential(..., GroupNorm(3, 8))): the one of the frame's file the line
    # calls by name (the fourth fresh text; it got nothing before this rule)
    ("groupnorm_groups", "torch.nn.GroupNorm", "num_channels must be divisible by num_groups.",
     "generated/torch.nn.GroupNorm.html"),
    # the raising frame is a method with no sentence of its own (DeviceStatsMonitor.setup): the class whose body
    # defines it (lightning 2.6.6)
    ("lightning_device_stats", "lightning.pytorch.callbacks.DeviceStatsMonitor", "it requires a 'logger' to passed as "
     "argument to the 'Trainer'", "https://lightning.ai/docs/pytorch/stable/api/lightning.pytorch.callbacks."
     "DeviceStatsMonitor.html"),
])
def test_the_documented_constraint_is_the_last_fix(case, api, quoted, url):
    root = _root(case)
    notes, fixes = _said(root)
    assert len(notes) == 1 and notes[0].startswith(api + "'s documentation (") and quoted in notes[0]
    assert ("(lightning 2.6.6, " if api.startswith("lightning") else "(torch 2.13.0+cpu, ") in notes[0]
    assert url in notes[0]
    assert fixes and quoted in fixes[0] and root["causes"][0]["fix"][-1] == fixes[0]  # below the cause's own lines
    assert root["causes"][0]["fix"][0] != fixes[0]


@pytest.mark.parametrize("case", [
    # LBFGS's docstring repeats the message (one word of its own shared): nothing to add
    "lbfgs_groups",
    # OneCycleLR's note ("You must either provide a value for total_steps or ...") shares 'total' and 'step' with
    # "Tried to step 11 times. The specified number of total steps is 10", 'step' a word of 161 of the table's
    # sentences: below the bar (the price of weighing common words half)
    "onecycle_steps",
    # loss.backward() after `with loss_parallel():`: no frame of loss_parallel, its table row is not reached
    "loss_parallel_outside",
])
def test_nothing_is_added_without_a_sentence_about_the_failure(case):
    root = _root(case)
    assert root is not None and root["role"] == "root"
    assert _said(root) == ([], [])


def test_a_healthy_log_and_a_text_without_a_library_frame_get_nothing():
    res = explain_text("epoch 1 step 100 loss 0.41\nepoch 2 step 200 loss 0.33\nsaved checkpoint to /tmp/ckpt.pt\n")
    assert not res.get("findings")
    res = explain_text('Traceback (most recent call last):\n  File "/home/u/train.py", line 3, in <module>\n'
                       '    x = int(cfg["n"])\nValueError: invalid literal for int() with base 10: \'n\'\n')
    root = (res.get("findings") or [None])[0]
    assert root is None or _said(root) == ([], [])


def test_related_needs_two_words_of_its_own():
    msg = "Invalid value for every_n_train_steps=-10. Must be >= 0"
    mw, mi = apinotes._words(msg), apinotes._idents(msg)
    # one identifier both write, for something else: not enough
    assert apinotes.related("When using manual optimization with `every_n_train_steps`, make sure to save the model "
                            "state in your training loop.", mw, mi) is None
    msg = "`placements` must have the same length as `device_mesh.ndim`! Found placements length: 2"
    got = apinotes.related("The rank of `device_mesh` and `placements` must be the same.", apinotes._words(msg),
                           apinotes._idents(msg))
    assert got and "device_mesh" in got and "placement" in got
    # the API's own name is no evidence
    assert apinotes.related("loss parallel only supports cross entropy", {"loss", "parallel"}, set(),
                            {"loss", "parallel"}) is None


def _gen():
    sys.path.insert(0, os.path.join(REPO, "tools"))
    import gen_api_notes

    return gen_api_notes


def test_the_table_regenerates_from_its_slice(tmp_path):
    gen = _gen()
    import knowgen as kg  # (tools/ on the path through _gen)

    got = kg.regenerated(gen.main, os.path.join(REPO, "tools", "data", "api_notes_slice.json.gz"),
                         tmp_path / "api_notes.json")
    full = kg.committed("api_notes")
    assert len(got["callables"]) > 100 and all(full["callables"][q] == r for q, r in got["callables"].items())
    assert {"torch", "lightning", "transformers", "accelerate", "deepspeed", "peft", "trl", "datasets", "jax", "flax",
            "omegaconf", "hydra_core", "torchmetrics", "webdataset", "ray"} == set(full["counts"])
    lp = full["callables"]["torch.distributed.tensor.parallel.loss.loss_parallel"]
    assert lp["order"][0] == "with loss_parallel():" and any("loss.backward()" in x for x in lp["order"])


def test_the_docstring_reader():
    gen = _gen()
    doc = ("Do a thing.\n\nThis must be called before ``step()``.\n\n.. warning::\n    Only supported on a 1-D mesh.\n"
           "    Use ``sum`` reduction instead here.\n\nNote:\n    Not compatible with :class:`~torch.nn.DataParallel`."
           "\n\n<Tip warning={true}>\n\nCall `prepare()` before the loop.\n\n</Tip>\n\nArgs:\n"
           "    mode (str): must be one of `a`, `b`.\n"
           "    rate (float): the rate used before decay.\n\nExample::\n\n    >>> with thing():\n    ...     "
           "loss.backward()\n    >>> print(1)\n")
    notes, order = gen.notes(doc, "thing")
    kinds = [k for k, _s in notes]
    texts = [s for _k, s in notes]
    assert kinds[:2] == ["warning", "warning"] and texts[0] == "Only supported on a 1-D mesh."
    assert texts[1:3] == ["Use `sum` reduction instead here.", "Call `prepare()` before the loop."]
    assert "Not compatible with torch.nn.DataParallel." in texts and kinds[3] == "note"
    assert len(notes) == gen.MAX_NOTES  # bounded: the description's and the parameter's sentences fall off
    notes2, _ = gen.notes(doc.split(".. warning::")[0] + "Args:\n    mode (str): must be one of `a`, `b`.\n"
                          "    rate (float): the rate used before decay.\n", "thing")
    assert [s for _k, s in notes2] == ["This must be called before `step()`.", "mode: must be one of `a`, `b`."]
    assert order == ["with thing():", "    loss.backward()"]


def test_the_table_is_bounded():
    from gpudoctor.explain.knowledge import open_generated

    with open_generated("api_notes") as f:  # (stored gzip'd: the bound is on its JSON text)
        text = f.read()
    assert len(text) < 3_000_000
    doc = json.loads(text)
    assert "pypi.org/project/" in doc["header"]["source"] and doc["sites"] == []
    for rec in doc["callables"].values():
        assert len(rec["notes"]) <= 5 and len(rec.get("order") or []) <= 4
        assert all(len(s) <= 304 for _k, s in rec["notes"]) and rec["url"].startswith("https://")
