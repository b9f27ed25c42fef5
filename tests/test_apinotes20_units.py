"""apinotes.py (apinotes20) asserted function by function (mutation round 15, docs/mutation.md): the APIs each real
traceback of fixtures/explain/apinotes20 (torch 2.13 / lightning 2.6.6 CPU runs, README.md there) is looked up under
(candidates) and what advise keeps for it, whole; _best's parameter rule, its ranking and the example's order lines
on loss_parallel's notes; the words and identifiers a text gives.

test_explain_apinotes.py checks the fix line and the note of each fixture's answer; these pin the steps between."""

import io
import os

import pytest

from gpudoctor.explain import apinotes as A
from gpudoctor.explain import load_knowledge
from gpudoctor.explain.scan import scan_stream

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "fixtures", "explain", "apinotes20")
LR = "torch.optim.lr_scheduler."
DC = "torch.distributed.distributed_c10d."


def _tb(case):
    with open(os.path.join(CASES, case + ".log"), "rb") as f:
        tbs = scan_stream(io.BytesIO(f.read()), load_knowledge()).tracebacks
    assert len(tbs) == 1
    return tbs[0]


@pytest.mark.parametrize("case, groups, advised", [
    ("dtensor_placements", [["torch.distributed.tensor._api.distribute_tensor"]],
     [("torch.distributed.tensor._api.distribute_tensor",
       ["The rank of `device_mesh` and `placements` must be the same."], [])]),
    ("fractional_pool_both", [["torch.nn.modules.pooling.FractionalMaxPool2d"]],
     [("torch.nn.modules.pooling.FractionalMaxPool2d",
       ["Exactly one of `output_size` or `output_ratio` must be defined."], [])]),
    ("groupnorm_groups", [["torch.nn.modules.normalization.GroupNorm"]],
     [("torch.nn.modules.normalization.GroupNorm",
       ["The input channels are separated into num_groups groups, each containing `num_channels / num_groups` "
        "channels. num_channels must be divisible by num_groups."], [])]),
    ("lbfgs_groups", [["torch.optim.lbfgs.LBFGS"]], []),
    ("lightning_device_stats", [["lightning.pytorch.trainer.trainer.Trainer"],
                                ["lightning.pytorch.callbacks.device_stats_monitor.DeviceStatsMonitor"]],
     [("lightning.pytorch.callbacks.device_stats_monitor.DeviceStatsMonitor",
       ["`DeviceStatsMonitor` is a special callback as it requires a `logger` to passed as argument to the "
        "`Trainer`."], [])]),
    ("loss_parallel_outside", [["torch._tensor.Tensor.backward"]], []),
    ("new_subgroups_size", [[DC + "new_subgroups"]],
     [(DC + "new_subgroups", ["If `group_size` is passed in, the world size must be divisible by `group_size`."],
       [])]),
    ("scatter_no_list", [[DC + "scatter", "torch.distributed.nn.functional.scatter", "torch.nn.parallel.comm.scatter"],
                         [DC + "scatter"]],
     [(DC + "scatter", ["scatter_list: List of tensors to scatter (default is None, must be specified on the source "
                        "rank)"], [])]),
    ("sequential_lr", [[LR + "SequentialLR"]],
     [(LR + "SequentialLR", ["Specifically, the schedulers will be called according to the milestone points, which "
                             "should provide exact intervals by which each scheduler should be called at a given "
                             "epoch."], [])]),
])
def test_candidates_and_advice_of_each_real_traceback(case, groups, advised):
    tb = _tb(case)
    assert A.candidates(tb) == groups
    assert A.advise(tb) == advised


def test_a_scheduler_step_s_frames_many_classes_define():
    # OneCycleLR's step() raises in get_lr, which every scheduler class of the file defines: the line's own
    # class's step first (with its class and the base class), then the raising frame's get_lr of each class; no
    # sentence tells one apart, so nothing is advised
    tb = _tb("onecycle_steps")
    groups = A.candidates(tb)
    assert groups[0] == [LR + "CosineAnnealingWarmRestarts.step", LR + "CosineAnnealingWarmRestarts",
                         LR + "LRScheduler.step", LR + "LRScheduler", LR + "SequentialLR"]
    assert len(groups) == 2 and groups[1][:2] == [LR + "ConstantLR.get_lr", LR + "CosineAnnealingLR.get_lr"]
    assert LR + "OneCycleLR.get_lr" in groups[1] and LR + "OneCycleLR" in groups[1]
    assert A.advise(tb) == []
    assert A.advise(dict(tb, msg="  ")) == [] and A.advise(dict(tb, msg="the 1 2 3")) == []


LOSS_PARALLEL = "torch.distributed.tensor.parallel.loss.loss_parallel"
ORDER = ['with loss_parallel():', '    loss = F.cross_entropy(dist_input, target, reduction="mean")',
         '    loss.backward()']


def _best(msg):
    return A._best(LOSS_PARALLEL, A._words(msg), A._idents(msg))


def test_best_parameter_sentences_ranking_and_order():
    # a parameter's sentence when the message names the parameter ('target'); its example's lines come with it
    assert _best("expected the target to be class indices, got class probabilities in loss_parallel") == (
        2, ["target: Must be ground truth class indices (class probabilities currently not supported)."], ORDER)
    # the message does not name the parameter: its sentence is not read, whatever words it shares
    assert _best("expected class indices, got class probabilities in loss_parallel") is None
    # two sentences kept, the one sharing more words first; the score is the first's count
    assert _best("reduction mean requires a one-dimensional DeviceMesh for the cross entropy loss") == (
        5, ['`reduction="mean"` is only supported on a one-dimensional `DeviceMesh`.',
            'On a multi-dimensional mesh the per-rank division by `total_weight` uses a local count, so aggregating '
            'across non-TP dims does not yield the correct global mean; use `reduction="sum"` or "none" instead and '
            'divide by the global count yourself if needed.'], ORDER)
    # a sentence that says nothing to do ('Currently only the cross-entropy loss is supported.' has no directive)
    assert _best("loss_parallel: only cross_entropy loss is supported, got nll_loss for the class dimension") is None


def test_best_order_lines_only_when_they_share_a_word():
    calls = A.table()["callables"]
    rec = calls[LOSS_PARALLEL]
    saved = rec["order"]
    try:
        rec["order"] = ["with other_context():", "    step()"]
        got = _best("reduction mean requires a one-dimensional DeviceMesh for the cross entropy loss")
        assert got[0] == 5 and got[2] == []
    finally:
        rec["order"] = saved


def test_words_and_identifiers():
    assert A._words("DTensor nll_loss_backward placements classes glass Tensors IterableDataset") == {
        "loss", "backward", "dtensor", "iterabledataset", "glass", "placement", "iterable"}
    assert A._idents("use_reentrant IterableDataset torch.load DTensor tensor_parallel") == {
        "dtensor", "iterabledataset", "tensor_parallel", "use_reentrant", "torch.load"}
    # two shared words (or an identifier and a word) relate a sentence; the API's own words do not count
    assert A.related("The milestone must be set before the warmup", {"milestone", "warmup"}, set()) == \
        {"milestone", "warmup"}
    assert A.related("The milestone must be set before the warmup", {"milestone", "warmup"}, set(),
                     own={"warmup"}) is None
    assert A.related("Pass `use_reentrant` explicitly", {"reentrant"}, {"use_reentrant"}) is None
    assert A.related("Pass `use_reentrant` with checkpointing", {"checkpointing"}, {"use_reentrant"}) == \
        {"use_reentrant", "checkpointing"}
    # a word more than COMMON_DF sentences have counts half
    assert A.related("rank and warmup", {"rank", "warmup"}, set(), df={"rank": A.COMMON_DF + 1}) is None
    assert A.related("rank and warmup", {"rank", "warmup"}, set(), df={"rank": A.COMMON_DF}) == {"rank", "warmup"}


def test_words_of_snake_case_parts():
    assert A._words("") == set() and A._words(None) == set()
    # a snake_case part is read as a word of its own: 'kwarg' (the whole word 'kwarg' is out: 'kwargs' is common),
    # 'accelerates' folded to 'accelerate' (its plural is not common, the singular is); 'process' keeps its 'ss'
    assert A._words("my_kwarg") == {"kwarg"}
    assert A._words("my_accelerates") == {"accelerate"}
    assert A._words("sub_process") == {"process"}
    # two identifiers both write: their parts are not counted again as words
    assert A.related("Pass `use_reentrant` and `preserve_rng` together", {"reentrant", "preserve"},
                     {"use_reentrant", "preserve_rng"}) == {"use_reentrant", "preserve_rng"}


SENTS = ['`reduction="mean"` is only supported on a one-dimensional `DeviceMesh`.', 'Use `reduction="sum"` instead.']


def _filled(monkeypatch, advised, role="root", causes=True, tb=True):
    monkeypatch.setattr(A, "advise", lambda tb: advised)
    f = {"role": role, "notes": [], "causes": [{"fix": ["the cause's own fix"]}] if causes else []}
    A.fill(None, [f], _tb("dtensor_placements") if tb else None)
    return f


def test_fill_writes_the_fix_line_and_the_note(monkeypatch):
    other = ("torch.nn.modules.pooling.FractionalMaxPool2d", ["x"], [])
    f = _filled(monkeypatch, [(LOSS_PARALLEL, SENTS, ORDER), other])
    assert f["causes"][0]["fix"] == [
        "the cause's own fix",
        "follow what torch.distributed.tensor.parallel.loss_parallel's documentation requires: \u201c'reduction="
        "\"mean\"' is only supported on a one-dimensional 'DeviceMesh'.\u201d (its example: with loss_parallel():; "
        "loss = F.cross_entropy(dist_input, target, reduction=\"mean\"); loss.backward())"]
    assert f["notes"] == [
        "torch.distributed.tensor.parallel.loss_parallel's documentation (torch 2.13.0+cpu, "
        "torch/distributed/tensor/parallel/loss.py): \u201c'reduction=\"mean\"' is only supported on a one-dimensional "
        "'DeviceMesh'.\u201d \u201cUse 'reduction=\"sum\"' instead.\u201d Its example: with loss_parallel(): / loss = "
        "F.cross_entropy(dist_input, target, reduction=\"mean\") / loss.backward(). See https://docs.pytorch.org/docs/"
        "stable/distributed.tensor.parallel.html#torch.distributed.tensor.parallel.loss_parallel"]
    # (userline.quote writes backquotes as plain quotes) without order lines: no example
    f = _filled(monkeypatch, [(LOSS_PARALLEL, SENTS[:1], [])])
    assert f["causes"][0]["fix"][1].endswith("'DeviceMesh'.\u201d")
    assert f["notes"][0].endswith("'DeviceMesh'.\u201d See https://docs.pytorch.org/docs/stable/distributed.tensor."
                                  "parallel.html#torch.distributed.tensor.parallel.loss_parallel")


def test_fill_only_on_a_root_with_causes_and_a_traceback(monkeypatch):
    for kw in ({"role": "cascade"}, {"causes": False}, {"tb": False}):
        f = _filled(monkeypatch, [(LOSS_PARALLEL, SENTS, ORDER)], **kw)
        assert f["notes"] == [], kw
    A.fill(None, [], _tb("dtensor_placements"))  # no finding: nothing to fill, no error
    # a traceback whose innermost frame is the user's own: not a library's constraint
    tb = _tb("dtensor_placements")
    monkeypatch.setattr(A.pytb, "innermost", lambda tb: ("/home/u/x.py", 1, "f", "user"))
    f = {"role": "root", "notes": [], "causes": [{"fix": []}]}
    A.fill(None, [f], tb)
    assert f["notes"] == []


SP = "/opt/venv/lib/python3.11/site-packages/"


def _made_tb(src, frames):
    # a CPython traceback of the shape the fixtures have: the user's line, then library frames that raise
    text = 'Traceback (most recent call last):\n  File "/home/u/train.py", line 5, in <module>\n    %s\n' % src
    for f, fn in frames:
        text += '  File "%s%s", line 10, in %s\n    raise ValueError("x")\n' % (SP, f, fn)
    tbs = scan_stream(io.BytesIO((text + "ValueError: bad value here\n").encode()), load_knowledge()).tracebacks
    return tbs[0]


@pytest.mark.parametrize("src, frames, groups", [
    # a frame of a function the table does not hold: the name the line calls, in the package it called into - a
    # class's method by the class the line names (functions of that name too), a function by its name
    ("torch.Tensor.backward(loss)", [("torch/_tensor.py", "_helper_x")],
     [["torch._tensor.Tensor.backward", "torch.autograd.backward"]]),
    ("Accelerator.prepare(model)", [("accelerate/accelerator.py", "_helper_x")],
     [["accelerate.accelerator.Accelerator.prepare", "accelerate.accelerator.Accelerator"]]),
    ("PeftModel.from_pretrained(base, 'x')", [("peft/peft_model.py", "_helper_x")],
     [["peft.peft_model.PeftModel.from_pretrained", "peft.peft_model.PeftModel"]]),
    ("m = get_peft_model(base, cfg)", [("peft/mapping_func.py", "_helper_x"), ("peft/tuners/lora/model.py", "_y")],
     [["peft.mapping_func.get_peft_model"]]),
    # an instance's method names no class
    ("m = model.from_pretrained('x')", [("transformers/modeling_utils.py", "_helper_x")], []),
    # pytorch_lightning's and lightning_fabric's files are lightning's
    ("t = Trainer(max_epochs=1)", [("pytorch_lightning/trainer/trainer.py", "_helper_x")],
     [["lightning.pytorch.trainer.trainer.Trainer"]]),
    ("t = Trainer(max_epochs=1)", [("lightning_fabric/x.py", "_helper_x")],
     [["lightning.pytorch.trainer.trainer.Trainer"]]),
    # a class the line builds: its __init__ frame
    ("s = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1)", [("torch/optim/lr_scheduler.py", "__init__")],
     [["torch.optim.lr_scheduler.OneCycleLR"]]),
])
def test_candidates_by_the_name_the_line_calls(src, frames, groups):
    assert A.candidates(_made_tb(src, frames)) == groups
