"""explain-hfcode32 (session 32, issue 18): errors a user's own training code gets from transformers, accelerate and
PEFT. tools/gen_trainer_messages.py now also reads the files these come from (the Auto classes, the model configs'
rope / architecture checks, the loading report of from_pretrained, the fast tokenizer, the Trainer's helpers and
callbacks, three model families' forward(), accelerate's state.py / utils/memory.py, PEFT's utils/other.py, auto.py,
mixed_model.py ...), each message with a fix written from the condition that raises it.

The recordings (fixtures/recorded/explain-hfcode32/, made by its record.py: transformers 5.24.0, accelerate 1.15.0,
peft 0.21.2 on torch 2.13.0+cpu, tiny models from configs) are real runs; the variants below are the same mechanisms
in the other wordings the read sources print (another model family, another argument, the older release), which no
recording holds: the answer comes from the code path, not from a sample.
"""

import ast
import os
import re
import sys

import pytest
from explainhelp import assert_root, generated_sites

from gpudoctor import explain

HERE = os.path.dirname(os.path.abspath(__file__))
REC = os.path.join(os.path.dirname(HERE), "fixtures", "recorded", "explain-hfcode32")
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))
import gen_trainer_messages  # noqa: E402


def _log(name):
    with open(os.path.join(REC, name + ".log"), encoding="utf-8", errors="replace") as f:
        return f.read()


# (recording, root entry, a piece of the first fix): each answered by the generic family text before this change
RECORDED = [
    ("acc_find_batch_zero", "cuda.oom", "gradient_checkpointing=True"),
    ("acc_state_changed", "accelerate.config", "one Accelerator per process"),
    ("ckpt_config_unknown_type", "code.package_too_old", "pip install -U transformers"),
    ("ckpt_size_mismatch", "transformers.usage", "ignore_mismatched_sizes=True"),
    ("config_bad_rope", "transformers.usage", "'factor': 2.0"),
    ("model_bad_head_dims", "transformers.usage", "30 / 4 must be a whole number"),
    ("model_ids_and_embeds", "transformers.usage", "only one of input_ids / inputs_embeds"),
]


@pytest.mark.parametrize("name,entry,fix", RECORDED)
def test_recorded_user_code_errors_get_the_fix_of_their_condition(kb, name, entry, fix):
    root = assert_root(explain.explain_text(_log(name), kb), verdict="root_cause", entry=entry)
    first = root["causes"][0]
    assert first["evidence"], first  # the message's own cause, with its line
    assert fix in " ".join(first["fix"]), (fix, first["fix"])


# The same conditions in wordings no recording holds (values, model families, releases the generator read)
VARIANTS = [
    # GPT-2's attention (modeling_gpt2.py) says the head check its own way
    ("ValueError: `embed_dim` must be divisible by num_heads (got `embed_dim`: 100 and `num_heads`: 12).\n",
     "transformers.usage", "multiple of num_attention_heads"),
    ("ValueError: You cannot specify both input_ids and inputs_embeds at the same time\n",
     "transformers.usage", "only one of input_ids / inputs_embeds"),
    ("ValueError: You have to specify either input_ids or inputs_embeds\n",
     "transformers.usage", "keep input_ids in the dataset"),
    # the cpu=True branch of AcceleratorState._check_initialized (str.format of the same message)
    ("ValueError: AcceleratorState has already been initialized and cannot be changed, restart your runtime "
     "completely and pass `cpu=True` to `Accelerator()`.\n", "accelerate.config", "one Accelerator per process"),
    ("KeyError: \"Missing required keys in `rope_parameters` for 'rope_type'='yarn': {'factor'}\"\n",
     "transformers.usage", "rope_parameters"),
    ("ValueError: Unrecognized configuration class <class 'transformers.models.bert.configuration_bert.BertConfig'> "
     "for this kind of AutoModel: AutoModelForCausalLM.\nModel type should be one of LlamaConfig, GPT2Config.\n",
     "transformers.usage", "AutoModelForCausalLM for decoder LMs"),
    ("ValueError: Cannot handle batch sizes > 1 if no padding token is defined.\n",
     "transformers.usage", "model.config.pad_token_id = tokenizer.pad_token_id"),
    ("ValueError: Could not find the transformer layer class to wrap in the model.\n",
     "accelerate.config", "fsdp_transformer_layer_cls_to_wrap"),
    ("ValueError: You cannot perform fine-tuning on purely quantized models. Please attach trainable adapters on top "
     "of the quantized model to correctly perform fine-tuning. Please see: https://huggingface.co/docs/transformers/"
     "peft for more details\n", "transformers.trainer", "get_peft_model"),
    ("ValueError: Only one adapter can be set at a time for modules_to_save\n", "peft.usage", "modules_to_save"),
    ("ValueError: Adapter with name other not found. Please pass the correct adapter name among ['default']\n",
     "transformers.usage", "load_adapter"),
    ("AssertionError: EarlyStoppingCallback requires metric_for_best_model is defined\n",
     "transformers.trainer", "load_best_model_at_end=True"),
]


@pytest.mark.parametrize("text,entry,fix", VARIANTS)
def test_other_wordings_of_the_same_conditions(kb, text, entry, fix):
    root = assert_root(explain.explain_text(text, kb), verdict="root_cause", entry=entry)
    assert fix in " ".join(root["causes"][0]["fix"]), (fix, root["causes"][0])


def test_new_files_are_read_and_their_sites_assigned_or_listed():
    """The files added this round hold sites in the committed table; every raise there is assigned a family, set
    aside by a named rule (internal invariants, wordings of other programs) or left unassigned, never guessed:
    a warning never gets a family."""
    sites = generated_sites("trainer_messages")
    added = [s for s in sites if re.search(gen_trainer_messages._HFCODE, s["where"])]
    assert len(added) >= 200, len(added)
    assert {s["family"] for s in added} >= {"transformers.usage", "transformers.trainer", "accelerate.config",
                                            "peft.usage", "cuda.oom", "code.package_too_old"}
    assert all(s["family"] is None for s in added if s["level"] == "warning")
    internal = [s["text"] for s in added if s.get("rule") == "hfcode-internal"]
    assert "Make sure to implement `update` in a subclass." in internal


def test_a_message_formatted_with_str_format_is_a_site():
    """`err = "... `{flag}` ..."; raise ValueError(err.format(flag=...))` (accelerate/state.py): the fields become
    conversions, so any flag the caller formats in matches."""
    src = ("def f(self, cpu):\n"
           "    err = 'AcceleratorState has already been initialized, pass `{flag}` to `Accelerator()`.'\n"
           "    if cpu:\n"
           "        raise ValueError(err.format(flag='cpu=True'))\n")
    got = [fmt for _, fmt in gen_trainer_messages._named(ast.parse(src))]
    assert got == ["AcceleratorState has already been initialized, pass `%s` to `Accelerator()`."]
    # a name raised as is keeps its braces (they are the message's own text then)
    src2 = "def f():\n    msg = 'use {x} literally'\n    raise ValueError(msg)\n"
    assert [fmt for _, fmt in gen_trainer_messages._named(ast.parse(src2))] == ["use {x} literally"]
