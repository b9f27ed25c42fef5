"""What the called API's own documentation says about the refused argument (paramdocs19, issue 18:
explain/paramdocs.py, tools/gen_param_docs.py -> generated/param_docs.json).

Real texts: fixtures/explain/paramdocs19/<case>.log (and two of fixtures/explain/edits19/), each the output of running
<case>.py here with CPython 3.11.7, torch 2.13.0+cpu, lightning 2.6.6, transformers 5.24.0 (README.md there). The
messages are the libraries' own and list no value: torch/optim/lr_scheduler.py ReduceLROnPlateau ("threshold mode " +
threshold_mode + " is unknown!"), torch/optim/adam.py ("Invalid learning rate: {lr}"), torch/nn/modules/conv.py
("padding='same' is not supported for strided convolutions"), torch/utils/data/dataloader.py ("persistent_workers
option needs num_workers > 0"); the documentation quoted is the same files' docstrings.
"""

import json
import os

import pytest

from gpudoctor.explain import explain_text, paramdocs

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CASES = os.path.join(REPO, "fixtures", "explain")
_RESULTS = {}


def _root(case):
    if case not in _RESULTS:
        with open(os.path.join(CASES, case + ".log"), encoding="utf-8") as fh:
            res = explain_text(fh.read())
        _RESULTS[case] = (res.get("findings") or [None])[0]
    return _RESULTS[case]


def _first(case):
    root = _root(case)
    cause = root["causes"][0] if root and root.get("causes") else {}
    return cause.get("fix") or [], cause.get("edit"), root.get("notes") if root else []


@pytest.mark.parametrize("case, edit, quoted", [
    # documented choices, the closest to the value written (the message lists none, or not this one)
    ("paramdocs19/plateau_threshold_mode", 'threshold_mode="rel" (not threshold_mode="relative")', "One of 'rel', 'abs'"),
    ("edits19/plateau_mode", 'mode="max" (not mode="maximum")', "One of 'min', 'max'"),
    ("paramdocs19/interp_mode", 'mode="bilinear"', "'nearest' | 'linear' | 'bilinear'"),
    # the value from the command line (args.mode): the word of the message a documented choice is close to
    ("paramdocs19/plateau_mode_args", 'args.mode="max" where it is set (it holds maximum now', "One of 'min', 'max'"),
    ("edits19/trainer_accel", 'accelerator="gpu" (not accelerator="gpus")', '"cpu", "gpu"'),
    # a documented default, the argument written on the line (the message names a bound or no value)
    ("paramdocs19/adam_lr_neg", "drop lr=-0.001 from the call (Adam's documented default: lr=0.001)", "learning rate"),
    ("paramdocs19/sgd_momentum", "drop momentum=-0.9 from the call (SGD's documented default: momentum=0)", "momentum"),
    ("paramdocs19/adam_betas_hi", "drop betas=(0.9, 1.2) from the call (Adam's documented default: betas=(0.9, 0.999))",
     "coefficients"),
    ("paramdocs19/conv_same_stride", 'drop padding="same" from the call (Conv2d\'s documented default: padding=0)',
     "Padding added"),
])
def test_the_documented_edit_comes_first(case, edit, quoted):
    fixes, first_edit, notes = _first(case)
    assert first_edit and first_edit.startswith(edit), (first_edit, fixes[:3])
    assert fixes[0] == first_edit
    said = [n for n in notes if "documentation of" in n]
    assert said and quoted in said[0], said


@pytest.mark.parametrize("case, alt", [
    # an edit argedit wrote from the message stays first; the documented default is the alternative after it
    ("paramdocs19/ckpt_n_steps_neg", "drop every_n_train_steps=-10 from the call (ModelCheckpoint's documented "
                                     "default: every_n_train_steps=None)"),
    ("paramdocs19/es_mode_word", 'drop mode="minimum" from the call (EarlyStopping\'s documented default: mode="min")'),
    ("paramdocs19/ce_label_smooth", "drop label_smoothing=1.5 from the call (cross_entropy's documented default: "
                                    "label_smoothing=0.0)"),
])
def test_the_documented_default_follows_the_messages_own_edit(case, alt):
    fixes, first_edit, _notes = _first(case)
    assert first_edit and not first_edit.startswith("drop ") and fixes.index(alt) == 1, fixes[:3]


@pytest.mark.parametrize("case", ["paramdocs19/loader_persistent", "paramdocs19/loader_timeout_neg"])
def test_no_documented_default_where_the_message_does_not_quote_the_value(case):
    # 'persistent_workers option needs num_workers > 0', 'timeout option should be non-negative': the message names
    # the argument but quotes no value of it (a combination, or a bound): argedit's edit only, no 'drop'
    fixes, first_edit, notes = _first(case)
    assert first_edit and not any(f.startswith("drop ") for f in fixes)
    assert not any("documentation of" in n for n in notes)


def test_an_argument_whose_value_the_documentation_allows_is_not_blamed():
    # ReduceLROnPlateau(opt, mode="min", threshold_mode="relative"): the message's word 'mode' is not the refused
    # argument ('min' is one of mode's documented values); the value the message quotes names threshold_mode
    fixes, _edit, notes = _first("paramdocs19/plateau_threshold_mode")
    assert not any("drop mode=" in f for f in fixes)
    assert any("documentation of threshold_mode" in n for n in notes)


def test_the_callee_is_read_from_the_frames_and_lightnings_mirror_packages():
    site = "/v/lib/python3.11/site-packages/"
    q, rec = paramdocs.lookup("EarlyStopping", "mode", [(site + "pytorch_lightning/callbacks/early_stopping.py",
                                                         "__init__")])
    assert q == "lightning.pytorch.callbacks.early_stopping.EarlyStopping" and rec["choices"] == ["min", "max"]
    q, rec = paramdocs.lookup("torch.optim.lr_scheduler.ReduceLROnPlateau", "mode",
                              [(site + "torch/optim/lr_scheduler.py", "__init__")])
    assert q.endswith("ReduceLROnPlateau") and rec["default"] == "'min'"
    assert paramdocs.lookup("ReduceLROnPlateau", "no_such_argument", []) is None
    # a method: the frame's function names it
    q, _rec = paramdocs.lookup("trainer.fit", "ckpt_path", [(site + "lightning/pytorch/trainer/trainer.py", "fit")])
    assert q == "lightning.pytorch.trainer.trainer.Trainer.fit"


def test_the_table_regenerates_from_its_slice(tmp_path):
    import sys

    sys.path.insert(0, os.path.join(REPO, "tools"))
    import gen_param_docs
    import knowgen

    got = knowgen.regenerated(gen_param_docs.main, os.path.join(REPO, "tools", "data", "param_docs_slice.json"),
                              tmp_path / "param_docs.json")
    full = knowgen.committed("param_docs")
    assert got["callables"] and all(full["callables"][q] == r for q, r in got["callables"].items())
    assert set(full["counts"]) == {"accelerate", "datasets", "deepspeed", "lightning", "peft", "torch", "torchmetrics",
                                   "transformers", "trl"}
    ta = full["callables"]["transformers.training_args.TrainingArguments"]["params"]
    assert ta["save_strategy"]["choices"] == ["no", "epoch", "steps", "best"]  # a Markdown bullet list of the help


@pytest.mark.parametrize("doc, want", [
    # Google style (torch/optim/lr_scheduler.py ReduceLROnPlateau)
    ("Args:\n    mode (str): One of `min`, `max`. In `min` mode, lr will be reduced.\n", {"mode": ["min", "max"]}),
    # Hugging Face's form, the text on the lines below (transformers/training_args.py)
    ("Parameters:\n    eval_strategy (`str`, *optional*, defaults to `\"no\"`):\n        The evaluation strategy. "
     "Possible values are:\n\n            - `\"no\"`: No evaluation.\n            - `\"steps\"`: Every steps.\n",
     {"eval_strategy": ["no", "steps"]}),
    # NumPy style, a braced list
    ("Parameters\n----------\nmode : str\n    one of {min, max}. If set.\n", {"mode": ["min", "max"]}),
    # Sphinx fields, quoted words not joined as a list are no choices
    (":param sampler: Can be any ``Iterable`` with ``__len__`` implemented.\n", {"sampler": []}),
])
def test_the_doc_readers(doc, want):
    import sys

    sys.path.insert(0, os.path.join(REPO, "tools"))
    import gen_param_docs

    got = gen_param_docs.param_docs(doc)
    assert {k: gen_param_docs.doc_choices(v) for k, v in got.items()} == want


def test_the_table_is_bounded_and_its_values_are_plain():
    from gpudoctor.explain.knowledge import open_generated

    with open_generated("param_docs") as f:  # (stored gzip'd: the bound is on its JSON text)
        text = f.read()
    assert len(text) < 4_000_000
    doc = json.loads(text)
    assert "pypi.org/project/" in doc["header"]["source"] and doc["sites"] == []
    for rec in list(doc["callables"].values())[:400]:
        for p in rec["params"].values():
            assert len(p["doc"]) <= 260 and all(len(c) <= 40 for c in p.get("choices", ()))
