"""explain-famfix28 (issue 18, "when explain names the right family, name the settled fix too").

objtype.py: CPython's "'T' object has no attribute 'a'" / "is not callable | subscriptable | iterable" on the user's
own line, read with the one name the line uses that way: what the name holds (None, a tuple, a list, a dict,
accelerate's prepared wrapper, a LightningDataModule attribute nothing set) and so the edit.

Texts: the seen held-out sets' real texts (bench/data, read through tests/seen_case.py; each case's id says which),
and lines built from CPython's format strings (Objects/object.c, Objects/abstract.c, Objects/call.c) for the
negatives.
"""

import pytest

from gpudoctor import explain
from gpudoctor.explain import objtype, userline
from seen_case import seen_case


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


def _root(kb, text):
    res = explain.explain_text(text, kb)
    roots = [f for f in res["findings"] if f.get("role") == "root"]
    assert roots, res["verdict"]
    return roots[0]


def test_tuple_predictions_take_the_element(kb):
    # P29's real text: transformers' Trainer calls compute_metrics; `preds = preds.argmax(-1)` ->
    # AttributeError: 'tuple' object has no attribute 'argmax'
    root = _root(kb, seen_case("2026-11-27p29", "p29-hf_compute_metrics_tuple_hidden_states"))
    first = root["causes"][0]
    assert "`preds` is a tuple" in first["text"]
    assert "preds[0]" in first["fix"][0] and "before .argmax" in first["fix"][0]
    assert root["id"] == "code.exception"  # (the root is not changed)


def test_none_from_get_worker_info_in_iter(kb):
    # P14's real text: an IterableDataset's __iter__ reads info.id with num_workers=0
    root = _root(kb, seen_case("2026-11-26p14", "p14-iterable_worker_info_none"))
    first = root["causes"][0]
    assert "`info` is None" in first["text"] and "get_worker_info()" in first["text"]
    assert "if info is None" in first["fix"][0]


def test_accelerate_prepare_unpacked_in_another_order(kb):
    # P14's real text: `model(x)` -> TypeError: 'AcceleratedOptimizer' object is not callable
    root = _root(kb, seen_case("2026-11-26p14", "p14-acc_prepare_order"))
    first = root["causes"][0]
    assert "`model` holds accelerate's AcceleratedOptimizer" in first["text"]
    assert "accelerator.prepare(model, optimizer, loader)" in first["fix"][0]
    # the edit is made where prepare()'s result is unpacked, not on the line that called the optimizer
    assert first["fix"][0].startswith("unpack accelerator.prepare(") and "your line" in first["fix"][0]


@pytest.mark.parametrize("set_,case,attr", [
    # P14: the splits assigned in prepare_data (one process); P25: a setup that tests stage == 'train'
    ("2026-11-26p14", "p14-lit_prepare_data_state", "val_ds"),
    ("2026-11-27p25", "p25-lightning_datamodule_setup_stage_train", "val_set"),
])
def test_lightning_datamodule_attribute_set_in_setup(kb, set_, case, attr):
    root = _root(kb, seen_case(set_, case))
    first = root["causes"][0]
    assert "reads self.%s, which nothing set on this process" % attr in first["text"]
    assert "assign self.%s in setup(self, stage)" % attr in first["fix"][0] and "stage == 'fit'" in first["fix"][0]


def test_list_of_feature_maps(kb):
    # P27's real text: timm features_only=True returns a list; `f.mean((2, 3))`
    root = _root(kb, seen_case("2026-11-27p27", "p27-timm_features_only_list"))
    got = [c for c in root["causes"] if "`f` is a list" in c["text"]]
    assert got and "f[-1]" in got[0]["fix"][0]


def _uf(src, focus=None, fn="<module>", frames=()):
    return {"file": "/home/u/train.py", "line": 3, "fn": fn, "src": src, "focus": focus, "callees": []}, \
        {"exc": "AttributeError", "msg": "", "frames": list(frames)}


@pytest.mark.parametrize("exc,msg,src", [
    # two names read .mean on the line: which one holds the tuple is not told
    ("AttributeError", "'tuple' object has no attribute 'mean'", "z = a.mean() + b.mean()"),
    # a library's class (a DDP wrapper, the user's own class): other readers know them
    ("AttributeError", "'DistributedDataParallel' object has no attribute 'generate'", "out = model.generate(x)"),
    # the attribute is not read on the line (the raise is deeper)
    ("AttributeError", "'NoneType' object has no attribute 'shape'", "y = f(x)"),
    # an expression, not a name, is the object
    ("TypeError", "'NoneType' object is not subscriptable", "y = load()[0]"),
    # no name a fix line may carry
    ("AttributeError", "'NoneType' object has no attribute 'id'", "k = ø.id"),
])
def test_nothing_where_the_line_does_not_tell(exc, msg, src):
    uf, tbr = _uf(src)
    tbr.update(exc=exc, msg=msg)
    assert objtype.read(uf, tbr, userline.ident, userline.quote) is None


def test_datamodule_rule_needs_lightning_frames():
    # the same self.<attr> read in a *_dataloader method of a class no Lightning frame called: no DataModule rule
    uf, tbr = _uf("return DataLoader(self.val_ds)", fn="val_dataloader",
                  frames=[("/home/u/train.py", 3, "val_dataloader")])
    tbr.update(msg="'Data' object has no attribute 'val_ds'")
    assert objtype.read(uf, tbr, userline.ident, userline.quote) is None
    tbr["frames"].insert(0, ("/venv/lib/python3.11/site-packages/lightning/pytorch/trainer/call.py", 179,
                             "_call_lightning_datamodule_hook"))
    text, fix, elsewhere = objtype.read(uf, tbr, userline.ident, userline.quote)
    assert "setup(stage)" in text and fix.startswith("assign self.val_ds in setup(self, stage)") and elsewhere


def test_healthy_log_gets_nothing(kb):
    res = explain.explain_text("epoch 1 step 10 loss 0.52\nepoch 1 step 20 loss 0.48\n", kb)
    assert res["verdict"] == "no_error" and not res["findings"]


# --- hookdef.py: the method the framework says the user's class must define, named ---

@pytest.mark.parametrize("case,want", [
    # P17's real texts: lightning 2.x configuration_validator.py
    ("p17-lt_optimizer_in_init_no_configure", "add def configure_optimizers(self): to your LightningModule class"),
    ("p17-lt_test_without_test_step", "add def test_step(self, batch, batch_idx): to your LightningModule class"),
])
def test_lightning_hook_named_in_the_fix(kb, case, want):
    root = _root(kb, seen_case("2026-11-26p17", case))
    first = root["causes"][0]
    assert first["fix"][0].startswith(want)
    assert first["evidence"] and "method defined" in first["evidence"][0]["text"]
    assert root["id"].startswith("lightning.")  # (the root is not changed)


@pytest.mark.parametrize("line,want", [
    # CPython 3.12+ and 3.11 Objects/typeobject.c object_new
    ("TypeError: Can't instantiate abstract class Head without an implementation for abstract methods 'forward', "
     "'loss'", "add def forward(self, ...): and def loss(self, ...): to class Head"),
    ("TypeError: Can't instantiate abstract class Head with abstract method loss", "add def loss(self, ...): to class Head"),
    # torch/nn/modules/module.py _forward_unimplemented; torch/utils/data/dataset.py Dataset.__getitem__
    ('NotImplementedError: Module [Net] is missing the required "forward" function', "add def forward(self, x): to class Net"),
    ("NotImplementedError: Subclasses of Dataset should implement __getitem__.", "add def __getitem__(self, idx):"),
    # lightning configuration_validator.py: 'No `%s()` method defined to run `Trainer.%s`.'
    ("lightning.fabric.utilities.exceptions.MisconfigurationException: No `predict_step()` method defined to run "
     "`Trainer.predict`.", "add def predict_step(self, batch, batch_idx):"),
])
def test_hookdef_lines_from_the_format_strings(line, want):
    from gpudoctor.explain import hookdef

    text, fix = hookdef.read(line)
    assert fix.startswith(want)


def test_hookdef_reads_nothing_else():
    from gpudoctor.explain import hookdef

    for line in ("NotImplementedError", "No `x` method", "TypeError: Can't instantiate abstract class",
                 "Module [Net] is missing the required 'backward' function"):
        assert hookdef.read(line) is None


def test_hookdef_not_for_another_family(kb):
    # an NCCL root whose log also prints a hook refusal elsewhere: the root's own lines only, and not its family
    text = ("NCCL WARN Call to connect returned Connection refused, retrying\n"
            "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, remote process exited or "
            "there was a network error, NCCL version 2.21.5\nncclRemoteError: A call failed possibly due to a network "
            "error or a remote process exiting prematurely.\n")
    root = _root(kb, text)
    assert not any("add def " in x for c in root["causes"] for x in c.get("fix") or ())


# --- advice.py: a remedy the message states, where a cause only quoted the message ---

@pytest.mark.parametrize("line,want", [
    # torch/csrc/autograd/saved_variable.cpp (SavedVariable): TORCH_CHECK(!is_inference(), ...)
    ("RuntimeError: Inference tensors cannot be saved for backward. To work around you can make a clone to get a "
     "normal tensor and use it in autograd.", "To work around you can make a clone to get a normal tensor"),
    # torch/csrc/autograd/VariableTypeUtils.h check_inplace: three literals concatenated by c10::str, no blank
    ("RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to "
     "get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.",
     "You can make a clone to get a normal tensor before doing inplace update."),
])
def test_message_remedy_not_hidden_by_a_quote(kb, line, want):
    res = explain.explain_text(line, kb)
    root = res["findings"][0]
    # the remedy is said: as a fix line, or in a cause's text as what to do (excmeaning's 'The message says what to
    # do: “...”'; then no second cause repeats it: test_mutation_excmeaning's tensor refusal)
    said = [x for c in root["causes"] for x in list(c.get("fix") or ()) + [
        c["text"].split("says what to do:", 1)[1] if "says what to do:" in c["text"] else ""]]
    assert any(want in x for x in said), said


def test_glued_sentences_split_only_before_a_sentence_word():
    from gpudoctor.explain import advice

    assert advice._GLUED.sub(". ", "is not allowed.You can clone it.") == "is not allowed. You can clone it."
    assert advice._GLUED.sub(". ", "pass a torch.Tensor or an nn.Module here") == "pass a torch.Tensor or an nn.Module here"
    # the generators' format strings are read as they are (their committed means / fix lines do not move)
    assert advice.find("a `x` callback.Please remove it.") == [("remedy", "a `x` callback.Please remove it.")]
