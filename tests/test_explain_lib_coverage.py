"""The libraries' own user-facing messages, whole modules (issue 18, lib-coverage): torch's nn.functional,
the nn layers that check their arguments, torch.optim (optimizer, Adam/AdamW/SGD, LR schedulers),
torch.utils.checkpoint, torch.cuda.graphs and the map-style datasets are read whole by
tools/gen_torch_core_messages.py; each user-reachable site carries its own meaning and fix (MSG_FIX).
Every text in CASES is a real one from the public thread cited above it (none from the held-out sets).
"""

import json
import os

import pytest
from explainhelp import assert_root

from gpudoctor import explain
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated")


def _sites(name):
    with open_generated(name) as f:
        return json.load(f)["sites"]


def test_whole_modules_are_read_and_their_user_sites_have_a_fix():
    sites = _sites("torch_core_messages")
    by_file = {}
    for s in sites:
        f = s["where"].split(":")[0]
        by_file.setdefault(f, []).append(s)
    # each module is read whole: every raise of the file is a site (counted from torch 2.15's wheel)
    for f, least in (("torch/nn/functional.py", 120), ("torch/optim/lr_scheduler.py", 40),
                     ("torch/optim/optimizer.py", 18), ("torch/utils/checkpoint.py", 30),
                     ("torch/cuda/graphs.py", 20), ("torch/nn/modules/conv.py", 15)):
        assert len(by_file.get(f, ())) >= least, (f, len(by_file.get(f, ())))
        fixed = [s for s in by_file[f] if s.get("fix")]
        assert fixed and all(s["family"] and s["means"] for s in fixed), f
    # an internal invariant keeps no family; a container's bare 'index %s is out of range' is any program's words
    by_text = {s["text"]: s for s in sites}
    assert not by_text["output_size is unexpectedly None"]["family"]
    assert not by_text["index %s is out of range"]["family"]
    # tools/gen_trainer_messages.py: DeepSpeed's engine, transformers' from_pretrained / tokenizer, PEFT
    trainer = _sites("trainer_messages")
    for f, family, least in (("deepspeed/runtime/engine.py", "deepspeed.usage", 100),
                             ("transformers/modeling_utils.py", "transformers.usage", 60),
                             ("transformers/tokenization_utils_base.py", "transformers.usage", 50),
                             ("peft/tuners/tuners_utils.py", "peft.usage", 30)):
        mine = [s for s in trainer if s["where"].split(":")[0] == f and not s.get("older")]
        assert len(mine) >= least, (f, len(mine))
        assert any(s.get("fix") and s["family"] == family for s in mine), f
    # torch's load_state_dict wording raised again by transformers / PEFT stays torch's (no family here)
    assert not [s for s in trainer if s["text"].startswith("Error(s) in loading state_dict") and s.get("family")]


CASES = [
    # https://github.com/yassouali/CCT/issues/47 (a batch of one reaching BatchNorm in training)
    ("batchnorm-batch-of-one",
     "ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 512, 1, 1])\n",
     "torch.usage", r"drop_last=True"),
    # https://github.com/kyegomez/LiqudNet/issues/6 (the model had no parameters)
    ("optimizer-empty",
     "  File \"/home/v/LiqudNet/train.py\", line 51, in <module>\n"
     "    optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)\n"
     "  File \"/home/v/.local/lib/python3.10/site-packages/torch/optim/optimizer.py\", line 187, in __init__\n"
     "    raise ValueError(\"optimizer got an empty parameter list\")\n"
     "ValueError: optimizer got an empty parameter list\n",
     "torch.usage", r"requires_grad"),
    # https://github.com/A4Bio/PiFold/issues/6 (OneCycleLR stepped past total_steps; steps_per_epoch fixed at 1000)
    ("onecycle-past-total",
     "    self.scheduler.step()\n"
     "  File \"/home/phung/.local/lib/python3.10/site-packages/torch/optim/lr_scheduler.py\", line 1706, in get_lr\n"
     "    raise ValueError(\"Tried to step {} times. The specified number of total steps is {}\"\n"
     "ValueError: Tried to step 100001 times. The specified number of total steps is 100000\n",
     "torch.usage", r"steps_per_epoch"),
    # https://github.com/Pointcept/Pointcept/issues/173 (no data found: the loader was empty)
    ("onecycle-zero-steps",
     "ValueError: Trainer: OneCycleLR: Expected positive integer total_steps, but got 0\n",
     "torch.usage", r"len\(train_loader\)"),
    # https://github.com/hiyouga/LlamaFactory/issues/6405 (reentrant checkpointing with frozen inputs)
    ("checkpoint-reentrant-no-grad",
     "[rank3]:   File \"/usr/local/miniconda3/envs/llama_factory/lib/python3.10/site-packages/torch/utils/"
     "checkpoint.py\", line 317, in backward\n"
     "[rank3]:     raise RuntimeError(\n"
     "[rank3]: RuntimeError: none of output has requires_grad=True, this checkpoint() is not necessary\n",
     "torch.usage", r"use_reentrant"),
    # https://github.com/svc-develop-team/so-vits-svc/issues/19 (a scheduler built with last_epoch >= 0 over a fresh
    # optimizer; torch 2.0's wording)
    ("scheduler-resume-initial-lr",
     "    scheduler_g = torch.optim.lr_scheduler.ExponentialLR(optim_g, gamma=hps.train.lr_decay, last_epoch=epoch_str - 2)\n"
     "  File \"/home/manjaro/.conda/envs/soft-vc/lib/python3.8/site-packages/torch/optim/lr_scheduler.py\", line 42, in "
     "__init__\n"
     "    raise KeyError(\"param 'initial_lr' is not specified \"\n"
     "KeyError: \"param 'initial_lr' is not specified in param_groups[0] when resuming an optimizer\"\n",
     "torch.usage", r"last_epoch=-1"),
    # https://github.com/pytorch/pytorch/issues/42654 (COCO annotations of different lengths through default_collate)
    ("collate-unequal-sizes",
     "  File \"python3.7/site-packages/torch/utils/data/_utils/collate.py\", line 82, in default_collate\n"
     "    raise RuntimeError('each element in list of batch should be of equal size')\n"
     "RuntimeError: each element in list of batch should be of equal size\n",
     "torch.usage", r"collate_fn"),
    # https://github.com/zhang-can/ECO-pytorch/issues/51 (the model left on the CPU under nn.DataParallel)
    ("dataparallel-model-on-cpu",
     "  File \"/data3/yjx/venv_eco/lib/python3.5/site-packages/torch/nn/parallel/data_parallel.py\", line 146, in "
     "forward\n"
     "    \"them on device: {}\".format(self.src_device_obj, t.device))\n"
     "RuntimeError: module must have its parameters and buffers on device cuda:1 (device_ids[0]) but found one of "
     "them on device: cpu\n",
     "torch.usage", r"model\.to\('cuda:0'\)"),

    # tools/gen_trainer_messages.py's whole modules: transformers' tokenizer, PEFT, DeepSpeed's engine
    # https://github.com/huggingface/trl/issues/466 (GPT-2's tokenizer has no pad token; settled: pad = eos)
    ("tokenizer-no-pad-token",
     "ValueError: Asking to pad but the tokenizer does not have a padding token. Please select a token to use as "
     "`pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new pad token via "
     "`tokenizer.add_special_tokens({'pad_token': '[PAD]'})`.\n",
     "transformers.usage", r"tokenizer\.pad_token = tokenizer\.eos_token"),
    # https://github.com/hiyouga/LlamaFactory/issues/181 (Baichuan's attention is W_pack; settled: --lora_target W_pack)
    ("peft-target-modules",
     "ValueError: Target modules ['q_proj', 'v_proj'] not found in the base model. Please check the target modules "
     "and try again.\n",
     "peft.usage", r"print\(model\)"),
    # https://github.com/EleutherAI/gpt-neox/pull/1166 (Lion under ZeRO stage 1)
    ("deepspeed-untested-optimizer",
     "[2024-03-01 14:35:58,937] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Basic Optimizer = Lion\n"
     "    assert (\n"
     "AssertionError: You are using an untested ZeRO Optimizer. Please add <\"zero_allow_untested_optimizer\": true> "
     "in the configuration file to use it.\n",
     "deepspeed.usage", r"zero_allow_untested_optimizer"),
    # https://github.com/KyanChen/RSPrompter/issues/110 (a ZeRO-2 config for a test run without an optimizer)
    ("deepspeed-zero-needs-optimizer",
     "  File \"/home/dyl/anaconda3/envs/rsprompter/lib/python3.10/site-packages/deepspeed/runtime/engine.py\", "
     "line 1505, in _configure_zero_optimizer\n"
     "AssertionError: zero stage 2 requires an optimizer\n",
     "deepspeed.usage", r"optimizer="),
    # https://github.com/THUDM/GLM/issues/111 (torch.distributed.init_process_group used, DeepSpeed's backend unset;
    # settled: deepspeed.init_distributed)
    ("deepspeed-comm-not-initialized",
     "  File \"/usr/local/conda/envs/llm_fine_tune/lib/python3.8/site-packages/deepspeed/comm/comm.py\", line 575, "
     "in get_rank\n"
     " assert cdb is not None and cdb.is_initialized(), 'DeepSpeed backend not set, please initialize it using "
     "init_process_group()'\n"
     "AssertionError: DeepSpeed backend not set, please initialize it using init_process_group()\n",
     "deepspeed.usage", r"deepspeed\.init_distributed\(\)"),
    # https://github.com/OptimalScale/LMFlow/issues/470 (transformers' AdamW under ZeRO-Offload)
    ("deepspeed-offload-client-optimizer",
     "  File \"/home/mahongli/anaconda3/envs/lmflow/lib/python3.9/site-packages/deepspeed/runtime/engine.py\", line "
     "1281, in _configure_optimizer\n"
     "    raise ZeRORuntimeException(msg)\n"
     "deepspeed.runtime.zero.utils.ZeRORuntimeException: You are using ZeRO-Offload with a client provided optimizer "
     "(<class 'transformers.optimization.AdamW'>) which in most cases will yield poor performance. Please either use "
     "deepspeed.ops.adam.DeepSpeedCPUAdam or set an optimizer in your ds-config "
     "(https://www.deepspeed.ai/docs/config-json/#optimizer-parameters). If you really want to use a custom optimizer "
     "w. ZeRO-Offload and understand the performance impacts you can also set <\"zero_force_ds_cpu_optimizer\": "
     "false> in your configuration file.\n",
     "deepspeed.usage", r"DeepSpeedCPUAdam"),
    # https://github.com/huggingface/lighteval/issues/204 (outputs of different lengths gathered across 8 processes;
    # the message spans lines, its first line is the matcher)
    ("accelerate-gather-shapes",
     "[rank3]: accelerate.utils.operations.DistributedOperationException: Cannot apply desired operation due to shape "
     "mismatches. All shapes across devices must be valid.\n"
     "[rank3]: Operation: `accelerate.utils.operations.gather`\n"
     "[rank3]: Input shapes:\n"
     "[rank3]:   - Process 0: [1024]\n"
     "[rank3]:   - Process 1: [2048]\n",
     "accelerate.config", r"pad_across_processes"),
    # https://github.com/hiyouga/EasyR1/issues/384 (flash_attention_2 without the flash-attn package)
    ("flash-attn-missing",
     "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package "
     "flash_attn seems to be not installed. Please refer to the documentation of "
     "https://huggingface.co/docs/transformers/perf_infer_gpu_one#flashattention-2 to install Flash Attention 2\n",
     "transformers.usage", r"attn_implementation='sdpa'"),
    # https://github.com/wanghao9610/OV-DINO/issues/32 (no route to the Hub from the machine; settled: a proxy or
    # a local copy)
    ("hub-unreachable",
     "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files "
     "and it looks like bert-base-uncased is not the path to a directory containing a file named config.json.\n"
     "Checkout your internet connection or see how to run the library in offline mode at "
     "'https://huggingface.co/docs/transformers/installation#offline-mode'.\n",
     "transformers.hub", r"HF_HUB_OFFLINE=1"),
    # https://github.com/huggingface/peft/issues/506 (Falcon's tokenizer returns token_type_ids; settled:
    # return_token_type_ids=False)
    ("generate-unused-kwargs",
     "ValueError: The following `model_kwargs` are not used by the model: ['token_type_ids'] (note: typos in the "
     "generate arguments will also show up in this list)\n",
     "transformers.usage", r"return_token_type_ids=False"),
]


@pytest.mark.parametrize("name,text,family,fix", CASES, ids=[c[0] for c in CASES])
def test_module_texts_get_their_own_fix(kb, name, text, family, fix):
    root = assert_root(explain.explain_text(text, kb), verdict="root_cause", entry=family, fix_re=fix,
                       confidence="cause")
    assert root["causes"][0]["evidence"], root["causes"][0]


def test_any_programs_index_error_is_no_torch_finding(kb):
    doc = explain.explain_text("IndexError: index 7 is out of range\nepoch 3 loss 0.41\n", kb)
    assert "torch.usage" not in [f["id"] for f in doc["findings"]]


def test_the_same_collate_error_in_a_worker_keeps_the_worker_family_with_the_collate_cause_first(kb):
    # https://github.com/davidhalladay/Frido/issues/9 (raised in a DataLoader worker: usercode.toml's worker entry
    # stays the root, and its collate cause, told by the collate_fn frame, comes first)
    text = (
        "RuntimeError: Caught RuntimeError in DataLoader worker process 0.\n"
        "Original Traceback (most recent call last):\n"
        "  File \"/usr/local/lib/python3.8/dist-packages/torch/utils/data/_utils/worker.py\", line 302, in _worker_loop\n"
        "    data = fetcher.fetch(index)\n"
        "  File \"/usr/local/lib/python3.8/dist-packages/torch/utils/data/_utils/fetch.py\", line 61, in fetch\n"
        "    return self.collate_fn(data)\n"
        "  File \"/usr/local/lib/python3.8/dist-packages/torch/utils/data/_utils/collate.py\", line 139, in collate\n"
        "    raise RuntimeError('each element in list of batch should be of equal size')\n"
        "RuntimeError: each element in list of batch should be of equal size\n"
    )
    root = assert_root(explain.explain_text(text, kb), verdict="root_cause",
                       entry="usercode.dataloader_worker_exception")
    assert "collate_fn" in " ".join(root["causes"][0]["fix"]), root["causes"][0]
