"""The concrete edit of a refused argument (edits19, issue 18: explain/argedit.py).

Real texts: fixtures/explain/edits19/<case>.log, each the output of running <case>.py here with CPython 3.11.7,
torch 2.13.0+cpu, lightning 2.6.6, transformers 5.24.0 and peft 0.21.2 (nothing mocked; fixtures/explain/edits19/
README.md). The messages are the libraries' own, e.g. lightning/pytorch/callbacks/model_checkpoint.py
("`mode` can be %s but got %s"), transformers/utils/generic.py ExplicitEnum._missing_ ("%s is not a valid %s, please
select one of %s"), torch/utils/data/dataloader.py ("sampler option is mutually exclusive with shuffle"),
torch/distributed/distributed_c10d.py ("Expected timeout argument to be of type datetime.timedelta, got %s"),
torch/csrc/utils/python_arg_parser.cpp ("argument '%s' must be %s, not %s"), Lib/argparse.py ("invalid choice").
"""

import json
import os

import pytest

from gpudoctor.explain import argedit, explain_text

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "fixtures", "explain", "edits19")


def first_fix(case):
    """(the root's first cause's fix lines, whether that cause carries an edit) for a fixture text. Not cached: each
    case is read by one test, and a cache kept in the module outlives mutmut's fork (bench/mutation.sh: the stats run
    fills it in the parent, so every mutant's test would read the unmutated answer)."""
    with open(os.path.join(CASES, case + ".log"), encoding="utf-8") as fh:
        res = explain_text(fh.read())
    root = (res.get("findings") or [None])[0]
    cause = root["causes"][0] if root and root.get("causes") else {}
    return cause.get("fix") or [], cause.get("edit")


@pytest.mark.parametrize("case, edit", [
    # allowed values: the closest the message lists, in the line's quoting
    ("ckpt_mode", 'mode="min" (not mode="minimum")'),
    ("save_strategy", 'save_strategy="epoch" (not save_strategy="epochs")'),  # an enum's _missing_: the field named
    ("conv_padding_mode", 'padding_mode="reflect"'),  # a set printed as {...}
    ("encoder_activation", 'activation="gelu"'),  # relu/gelu
    ("peft_task", 'task_type="CAUSAL_LM"'),  # 'one of the following task types:'
    ("hf_optim", 'optim="adamw_torch"'),  # a list cut short at 300 characters
    ("es_mode_var", 'MODE="max" where it is set'),  # the value came from a variable
    ("argparse_choice", "--optim adamw (not --optim adam)"),  # argparse's own refusal
    ("hfparser_sched", "--lr_scheduler_type linear"),  # HfArgumentParser's choices
    ("torchrun_cli_optim", "--optim adamw_8bit"),  # TrainingArguments(optim=args.optim) under torchrun --optim
    ("hydra_es", "early_stopping.mode=max (not early_stopping.mode=maximum)"),  # a Hydra override on the torchrun line
    # exclusive: keep one of the arguments the line passes
    ("loader_sampler_shuffle", "keep only one of sampler / shuffle=True: drop shuffle=True (or set shuffle=False)"),
    ("upsample_both", "keep only one of size=(16, 16) / scale_factor=2.0: drop scale_factor=2.0"),
    ("hf_fp16_bf16", "keep only one of fp16=True / bf16=True"),
    ("ddp_static", "drop batch_size=2 and drop_last=True"),
    # type
    ("gloo_timeout", "timeout=timedelta(seconds=600)"),
    ("zeros_dtype", "dtype=torch.float32"),
    # range, with the value's source
    ("loader_bs0", "batch_size=<a value > 0> (not batch_size=0)"),
    ("trainer_limit", "limit_train_batches=<a value in [0.0, 1.0] or an integer>"),
    ("ckpt_topk", "save_top_k=<a value >= -1>"),
    ("env_batch", "export BATCH_SIZE=<a value > 0>"),
])
def test_real_refusal_gets_the_edit_first(case, edit):
    fixes, has_edit = first_fix(case)
    assert has_edit and fixes and edit in fixes[0], fixes[:2]


@pytest.mark.parametrize("case", ["mha_heads", "pad_mode", "groupnorm"])
def test_no_edit_where_the_message_gives_none(case):
    # 'divisible by' and a mode the message does not list give no value to write: the answer keeps its own first fix
    # (adam_betas, 'Invalid beta parameter at index 1: 1.5', now gets Adam's documented default from paramdocs.py:
    # tests/test_explain_paramdocs.py)
    fixes, has_edit = first_fix(case)
    assert not has_edit


def test_requires_names_both_edits():
    c = argedit.read("persistent_workers option needs num_workers > 0")
    assert c["kind"] == "requires" and c["need"] == ("persistent_workers", "num_workers", ">", "0")
    got = argedit._requires(c, {"persistent_workers": "True", "num_workers": "workers"})
    assert got == ["set num_workers to a value > 0 (it is num_workers=workers now; workers is set above the call), "
                   "or persistent_workers=False"]


@pytest.mark.parametrize("text, kind", [
    # format strings as the generators read them (generated/*_messages.json 'text')
    ("`mode` can be %s, got %s", "allowed"),  # lightning/pytorch/callbacks/early_stopping.py
    ("Invalid kv_cache_dtype: %s. Valid values are: %s", "allowed"),  # vllm/config/cache.py
    ("`fused` and `foreach` cannot be `True` together.", "exclusive"),  # torch/optim/adam.py
    ("only one of size or scale_factor should be defined", "exclusive"),  # torch/nn/functional.py
    ("cuda_graph_scope and cuda_graph_modules cannot be set together.", "exclusive"),  # megatron transformer_config
    ("persistent_workers option needs num_workers > 0", "requires"),  # torch/utils/data/dataloader.py
    ("At least one of shard or replicate must be set in dp_mesh_dims", "requires"),  # torch fsdp _fsdp_init.py
    ("mesh_dim must be an int, got %s", "type"),  # torch/distributed/device_mesh.py
    ("Expected timeout argument to be of type datetime.timedelta, got %s", "type"),  # distributed_c10d.py
    ("num_inference_steps must be positive, got %s", "range"),  # diffusers scheduling_piflow.py
    ("--http2-initial-connection-window-size must be between 1024 and 2147483647.", "range"),  # sglang
    ("Failed to initialize torch.distributed", None),  # torch/distributed/__init__.py: no argument check
])
def test_classify_format_strings(text, kind):
    assert argedit.classify(text) == kind


def test_a_hydra_append_override_keeps_its_prefix():
    # review19: Hydra's '+key=v' appends a key the config lacks ('key=v' would then fail), '++key=v' appends or
    # overrides (https://hydra.cc/docs/advanced/override_grammar/basic/): the edit keeps the prefix the user wrote
    with open(os.path.join(CASES, "hydra_es.log"), encoding="utf-8") as fh:
        text = fh.read()
    for prefix in ("+", "++"):
        res = explain_text(text.replace("early_stopping.mode=maximum", prefix + "early_stopping.mode=maximum"))
        fix = res["findings"][0]["causes"][0]["fix"][0]
        assert fix == "%searly_stopping.mode=max (not %searly_stopping.mode=maximum)" % (prefix, prefix), fix


def test_closest_choice():
    assert argedit.closest("maximize", ["min", "max"]) == ["max"]
    assert argedit.closest("bf-16", ["bf16", "fp16"]) == ["bf16"]  # case and '-' / '_' only
    assert argedit.closest("zzz", ["min", "max"]) == []  # nothing near: the answer lists them instead


def test_untrusted_values_never_reach_a_fix_line():
    # a value with shell characters (a message quoting what the user passed) is left out, never pasted
    c = argedit.read("`mode` can be min, max, got $(touch /tmp/x)")
    assert c["value"] is None
    lines = argedit._allowed(c, {"src": []}, c["msg"], {"mode": '"$(touch /tmp/x)"'}, ["mode"], None, None)
    assert lines and "$(" not in " ".join(lines) and "touch" not in " ".join(lines)


def test_coverage_tool_counts_every_kind(tmp_path):
    # tools/arg_constraints.py over a table of the generators' shape (the real tables take seconds to load)
    import sys

    sys.path.insert(0, os.path.join(HERE, "..", "tools"))
    import arg_constraints

    rows = [{"where": "torch/optim/adam.py:1", "level": "raise",
             "text": "`fused` and `foreach` cannot be `True` together."},
            {"where": "lightning/x.py:2", "level": "raise", "text": "`mode` can be %s, got %s"},
            {"where": "pytorch_lightning/x.py:3", "level": "raise", "text": "`mode` can be %s, got %s"},
            {"where": "torch/x.py:4", "level": "warning", "text": "mesh_dim must be an int, got %s"},
            {"where": "torch/x.py:5", "level": "assert", "text": "Failed to initialize torch.distributed"}]
    (tmp_path / "x_messages.json").write_text(json.dumps({"header": {}, "sites": rows}))
    per, _ex = arg_constraints.count(str(tmp_path))
    assert per["torch"]["exclusive"] == 1 and per["torch"]["none"] == 1 and per["torch"]["sites"] == 2
    assert per["lightning"]["allowed"] == 1 and per["lightning"]["sites"] == 1  # one text per library; no warning
    assert "| all | 3 | 1 | 1 | 0 | 0 | 0 | 2 | 1 |" in arg_constraints.markdown(per)
