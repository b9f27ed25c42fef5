#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/trainer_messages.json: the refusals of DeepSpeed's runtime config, engine and ZeRO optimizers, accelerate's Accelerator, transformers' Trainer / TrainingArguments / from_pretrained / tokenizers / data collators and PEFT's PeftModel / LoRA that the user's call or configuration causes.

Each raise / assert / logger.error of the files below becomes a site with a bounded matcher and the
knowledge family from the RULES table (gpudoctor/data/knowledge/trainer.toml); MSG_FIX gives a
message its own meaning and fix, written from the condition in the source that raises it. Sites no
rule assigns are listed in docs/explain.md, never guessed; warnings are kept as context only.

Usage:
    pip download --no-deps deepspeed accelerate transformers peft -d /tmp/pyl   (unpack the sdist and the wheels)
    python tools/gen_trainer_messages.py --deepspeed /tmp/pyl/ds/deepspeed-X --accelerate /tmp/pyl/acc \\
        --transformers /tmp/pyl/tf --peft /tmp/pyl/peft [--record tools/data/trainer_messages_slice.txt.gz] [-o OUT]
    python tools/gen_trainer_messages.py --slice tools/data/trainer_messages_slice.txt.gz -o OUT   (the test)

--older-deepspeed / --older-accelerate / --older-transformers / --older-peft DIR add the messages an older release printed
that the current one no longer does (marked "older": most public threads quote older releases); the slice
keeps them under older/<package>-<version>/.

Sources (read with Python's ast, never imported): deepspeed (https://pypi.org/project/deepspeed/,
Apache-2.0, sdist) deepspeed/runtime/config.py, zero/config.py, precision_config.py, config_utils.py;
accelerate (https://pypi.org/project/accelerate/, Apache-2.0, wheel) accelerate/accelerator.py,
accelerate/utils/dataclasses.py, accelerate/utils/bnb.py, accelerate/utils/deepspeed.py (HfDeepSpeedConfig, which
transformers' --deepspeed reads the config file with); transformers
(https://pypi.org/project/transformers/, Apache-2.0, wheel) transformers/trainer.py,
transformers/training_args.py, transformers/integrations/deepspeed.py; and read whole for issue 18
(lib-coverage): deepspeed/runtime/engine.py, zero/stage_1_and_2.py, zero/stage3.py;
transformers/modeling_utils.py, tokenization_utils_base.py, data/data_collator.py; peft
(https://pypi.org/project/peft/, Apache-2.0, wheel) peft/peft_model.py, config.py,
tuners/tuners_utils.py, tuners/lora/model.py, tuners/lora/config.py, utils/save_and_load.py. The
regenerated slice read deepspeed 0.19.8, accelerate 1.15.0, transformers 5.24.0, peft 0.21.2 and the
older deepspeed 0.12.6, accelerate 0.25.0, transformers 4.36.2, peft 0.7.1. The releases are read from
the sdist's PKG-INFO and the wheels' dist-info METADATA. --record writes the statements that hold a
message (each `=== path @LINE` block: one statement as the source has it) as the slice.
"""

import ast
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_trainer_messages.py"
FILES = {
    "deepspeed": ["deepspeed/runtime/config.py", "deepspeed/runtime/zero/config.py",
                  "deepspeed/runtime/precision_config.py", "deepspeed/runtime/config_utils.py",
                  # lib-coverage (issue 18): the engine and ZeRO optimizers a training script calls
                  # (deepspeed.initialize -> DeepSpeedEngine; engine.backward / step / save_checkpoint)
                  "deepspeed/runtime/engine.py", "deepspeed/runtime/zero/stage_1_and_2.py",
                  "deepspeed/runtime/zero/stage3.py",
                  # deepspeed.comm (init_distributed), zero.Init / GatheredParameters, zero_to_fp32
                  "deepspeed/comm/comm.py", "deepspeed/runtime/zero/partition_parameters.py",
                  "deepspeed/utils/zero_to_fp32.py"],
    "accelerate": ["accelerate/accelerator.py", "accelerate/utils/dataclasses.py", "accelerate/utils/bnb.py",
                   "accelerate/utils/deepspeed.py",
                   # lib-coverage: prepared DataLoaders, gather / reduce, big-model dispatch, FSDP helpers, save/load_state
                   "accelerate/data_loader.py", "accelerate/utils/operations.py", "accelerate/utils/modeling.py",
                   "accelerate/big_modeling.py", "accelerate/utils/fsdp_utils.py", "accelerate/checkpointing.py",
                   # explain-hfcode32 (issue 18): the process state every Accelerator() shares (AcceleratorState /
                   # PartialState), find_executable_batch_size, the wrapped optimizer
                   "accelerate/state.py", "accelerate/utils/memory.py", "accelerate/optimizer.py"],
    "transformers": ["transformers/trainer.py", "transformers/training_args.py",
                     "transformers/integrations/deepspeed.py",
                     # lib-coverage: from_pretrained / save_pretrained, the tokenizers' __call__ / pad /
                     # apply_chat_template and the data collators
                     "transformers/modeling_utils.py", "transformers/tokenization_utils_base.py",
                     "transformers/data/data_collator.py",
                     # the Hub download under every from_pretrained, the configs, generate(), the Trainer's optimizers
                     "transformers/utils/hub.py", "transformers/configuration_utils.py",
                     "transformers/generation/utils.py", "transformers/generation/configuration_utils.py",
                     "transformers/trainer_optimizer.py",
                     # explain-hfcode32 (issue 18): the Auto classes (config.json's model_type), the model configs'
                     # rope / architecture checks, the loading report (size mismatches of from_pretrained), the fast
                     # tokenizer, the Trainer's helpers and callbacks, the caches and masks, model.load_adapter, and
                     # the forward() checks of three model families whose wording the others copy
                     "transformers/models/auto/configuration_auto.py", "transformers/models/auto/auto_factory.py",
                     "transformers/models/auto/tokenization_auto.py", "transformers/modeling_rope_utils.py",
                     "transformers/utils/loading_report.py", "transformers/tokenization_utils_tokenizers.py",
                     "transformers/trainer_utils.py", "transformers/trainer_pt_utils.py",
                     "transformers/trainer_callback.py", "transformers/trainer_seq2seq.py",
                     "transformers/cache_utils.py", "transformers/masking_utils.py", "transformers/integrations/peft.py",
                     "transformers/models/llama/modeling_llama.py", "transformers/models/gpt2/modeling_gpt2.py",
                     "transformers/models/bert/modeling_bert.py"],
    # lib-coverage: PEFT's get_peft_model / PeftModel and its LoRA tuner (https://pypi.org/project/peft/, Apache-2.0)
    "peft": ["peft/peft_model.py", "peft/config.py", "peft/tuners/tuners_utils.py", "peft/tuners/lora/model.py",
             "peft/tuners/lora/config.py", "peft/utils/save_and_load.py", "peft/tuners/lora/layer.py",
             # explain-hfcode32 (issue 18): get_peft_model's mapping, modules_to_save and the other wrappers
             # (utils/other.py), LoRA on bitsandbytes layers, AutoPeftModel, mixed adapters, the integrations
             "peft/mapping.py", "peft/utils/other.py", "peft/tuners/lora/bnb.py", "peft/auto.py",
             "peft/mixed_model.py", "peft/utils/integrations.py"],
}
PACKAGES = ("deepspeed", "accelerate", "transformers", "peft")
# A package too old or missing: the message names the package and the release it needs
_VERSION = (r"requires? (?:PyTorch|torch|accelerate|transformers|deepspeed|`?torch_xla`?)\s*[>=]|"
            r"(?:PyTorch|DeepSpeed|MLU|MUSA|accelerate|deepspeed)[\w ]{0,20}(?:version )?(?:must be|requires) >=|"
            r"requires deepspeed\s*>=|is not installed|was not found on your system|is not available\. Please install|"
            r"Please upgrade your PyTorch|only available in PyTorch %s and later|not compatible with 8bit quantization|"
            r"Requires accelerate|requires `?accelerate>|deepspeed >= %s|deepspeed>=%s")
# (rule, knowledge entry, {field: regex}); fields: where, text, level (raise | error | warning)
# the lib-coverage modules (issue 18): the files read whole from this release on
_WHOLE = (r"^(?:peft/|deepspeed/runtime/(?:engine|zero/stage_1_and_2|zero/stage3|zero/partition_parameters)\.py|"
          r"deepspeed/(?:comm/comm|utils/zero_to_fp32)\.py|accelerate/(?:data_loader|utils/operations|utils/modeling|"
          r"big_modeling|utils/fsdp_utils|checkpointing)\.py|"
          r"transformers/(?:modeling_utils|tokenization_utils_base|data/data_collator|utils/hub|configuration_utils|"
          r"generation/utils|generation/configuration_utils|trainer_optimizer)\.py|"
          # explain-hfcode32's files (issue 18)
          r"accelerate/(?:state|utils/memory|optimizer)\.py|"
          r"transformers/(?:models/auto/\w+|modeling_rope_utils|utils/loading_report|tokenization_utils_tokenizers|"
          r"trainer_utils|trainer_pt_utils|trainer_callback|trainer_seq2seq|cache_utils|masking_utils|"
          r"integrations/peft|models/\w+/modeling_\w+)\.py)")
# the files explain-hfcode32 added (issue 18)
_HFCODE = (r"^(?:accelerate/(?:state|utils/memory|optimizer)\.py|peft/(?:mapping|utils/other|tuners/lora/bnb|auto|"
           r"mixed_model|utils/integrations)\.py|transformers/(?:models/auto/\w+|modeling_rope_utils|"
           r"utils/loading_report|tokenization_utils_tokenizers|trainer_utils|trainer_pt_utils|trainer_callback|"
           r"trainer_seq2seq|cache_utils|masking_utils|integrations/peft|models/\w+/modeling_\w+)\.py)")
RULES = [
    # their internal invariants (the message asks for a bug report) and words another program prints the same
    # (torch's load_state_dict, Python's AttributeError): no family from these modules
    ("internal", None, {"where": _WHOLE, "text": r"open an issue|report the error|should not happen|shouldn't happen|"
                                                 r"Something went wrong|should not be triggered|file an issue|^Unexpected |"
                                                 r"must be available here|is None$|raise an issue on Git[Hh]ub|"
                                                 r"more than 1 param in ipg bucket|extra-large param|"
                                                 r"either zero or only once|^%s != %s Cannot reduce scatter|"
                                                 r"^expect(?:ed)? param|numels out of %s - something is wrong|"
                                                 r"Cannot partition a param in flight|^No buffer to accumulate|"
                                                 r"should match the size of param|is not yet defined$|"
                                                 r"aligned size %s does not match|parameter alignment paddings"}),
    ("foreign-wording", None, {"where": _WHOLE, "text": r"^Error\(s\) in loading state_dict|^'%s' object has no "
                                                        r"attribute|^%s has no attribute %s$"}),
    ("version", "code.package_too_old", {"text": _VERSION}),
    # explain-hfcode32's files: an optional package their messages ask for, and their internal invariants
    ("hfcode-version", "code.package_too_old", {"where": _HFCODE, "text": r"(?:needs|requires?) [\w`-]{0,40} ?"
                                                                          r"(?:to be )?installed|^You need to install|"
                                                                          r"must be installed|install PEFT|"
                                                                          r"version is too old|requires peft >=|"
                                                                          r"is not available => install|"
                                                                          r"have `sentencepiece` installed"}),
    ("hfcode-internal", None, {"where": _HFCODE, "text": r"^Make sure to implement|^Error with upcasting|"
                                                         r"^Dummy layer don't|verify we should be calling|"
                                                         r"^tuple index out of range|^You must implement a `state`|"
                                                         r"^Abstract|should have an empty 'List options'"}),
    ("ds-batch", "deepspeed.batch_size", {"where": r"^deepspeed/runtime/config\.py", "text": r"[Bb]atch|"
                                                                                           r"[Gg]radient accumulation"}),
    ("hf-ds-mismatch", "deepspeed.hf_config_mismatch", {"text": r"DeepSpeed config values that mismatch|"
                                                                r"without `auto` \(set to correct value\)|"
                                                                r"cannot be set to `%s` when `%s` is set in the DeepSpeed|"
                                                                r"the following accelerate config variables will be "
                                                                r"ignored|neither `hidden_size` nor `hidden_sizes`"}),
    # the engine's and the ZeRO optimizers' checks of the call (lib-coverage): not the config file's keys
    ("ds-usage", "deepspeed.usage", {"where": r"^deepspeed/(?:runtime/(?:engine|zero/stage_1_and_2|zero/stage3|"
                                               r"zero/partition_parameters)|comm/comm|utils/zero_to_fp32)\.py"}),
    ("ds-config", "deepspeed.config", {"where": r"^deepspeed/runtime/"}),
    ("acc-quantized", "accelerate.quantized_distributed", {"where": r"^accelerate/accelerator\.py",
                                                           "text": r"8-bit (?:or 4-bit )?precision|device_map='auto'|"
                                                                   r"`DTensor` parameters"}),
    ("acc-ds-batch", "deepspeed.batch_size", {"where": r"^accelerate/", "text": r"train_micro_batch_size_per_gpu"}),
    # accelerate/utils/deepspeed.py HfDeepSpeedConfig: the DeepSpeed config file (transformers' --deepspeed reads it here)
    ("acc-ds-config", "deepspeed.config", {"where": r"^accelerate/utils/deepspeed\.py", "text": r"deepspeed config|"
                                                                                            r"entry in the config"}),
    # words accelerate/utils/modeling.py raises as transformers' modeling_utils.py does (read first now): theirs
    ("acc-shared-tf", "transformers.usage", {"where": r"^accelerate/utils/modeling\.py",
                                             "text": r"^`dtype` is not a valid dtype|^The safetensors archive passed at|"
                                                     r"doesn't have any device set"}),
    # explain-hfcode32: find_executable_batch_size halved the batch on each out-of-memory error down to 0
    ("acc-oom", "cuda.oom", {"where": r"^accelerate/utils/memory\.py", "text": r"^No executable batch size found"}),
    ("acc", "accelerate.config", {"where": r"^accelerate/", "level": r"raise|error"}),
    ("tf-ds", "deepspeed.config", {"where": r"^transformers/integrations/deepspeed\.py"}),
    # transformers 4.x training_args.py: --fp16 / --bf16 where torch sees no CUDA (or other) device
    ("tf-no-device", "transformers.precision_no_gpu", {"where": r"^transformers/", "text": r"Mixed precision training with AMP "
                                                                              r"[^\n]{0,200}can only be used on CUDA"}),
    ("tf-bf16", "cuda.bf16_unsupported", {"where": r"^transformers/", "text": r"doesn't support bf16/gpu"}),
    # a local checkpoint's index (modeling_utils raised it before hub.py did): the folder, not the Hub
    ("tf-hub-local", "transformers.usage", {"where": r"^transformers/utils/hub\.py",
                                            "text": r"^Can't find a checkpoint index"}),
    ("tf-hub", "transformers.hub", {"where": r"^transformers/utils/hub\.py", "level": r"raise|error"}),
    # explain-hfcode32: config.json names a model_type this release does not know (a newer architecture, or a typo)
    ("tf-unknown-arch", "code.package_too_old", {"where": r"^transformers/models/auto/",
                                                 "text": r"does not recognize this architecture"}),
    ("tf-usage", "transformers.usage", {"where": r"^transformers/(?:modeling_utils|tokenization_utils_base|"
                                                 r"data/data_collator|configuration_utils|generation/utils|"
                                                 r"generation/configuration_utils|"
                                                 # explain-hfcode32's: the model code, its config and tokenizer
                                                 r"models/auto/\w+|modeling_rope_utils|utils/loading_report|"
                                                 r"tokenization_utils_tokenizers|cache_utils|masking_utils|"
                                                 r"integrations/peft|models/\w+/modeling_\w+)\.py",
                                        "level": r"raise|error"}),
    ("tf", "transformers.trainer", {"where": r"^transformers/", "level": r"raise|error"}),
    # FSDP's transformer-layer auto wrap (accelerate <= 0.25 said it in utils/dataclasses.py, peft's fsdp_auto_wrap_policy
    # says it now): the accelerate / FSDP config, not the adapter
    ("fsdp-wrap", "accelerate.config", {"text": r"^Could not find the transformer layer class to wrap"}),
    ("peft", "peft.usage", {"where": r"^peft/", "level": r"raise|error"}),
]

# What one message means and what to do, from the condition in the source that raises it.
MSG_FIX = [
    # "Check batch related parameters. train_batch_size is not equal to ..." has no row: its entry's cause
    # (deepspeed.batch_size) computes the values from the four numbers it prints (explain/dsconfig.py)
    (r"^Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided",
     "deepspeed/runtime/config.py _set_batch_related_parameters(): neither batch size is in the DeepSpeed config "
     "(accelerate fills train_micro_batch_size_per_gpu from the dataloader only when it is 'auto').",
     ["add \"train_micro_batch_size_per_gpu\": <per-GPU batch> (or \"auto\" under the HF Trainer / accelerate) "
      "to the DeepSpeed config"]),
    (r"has to be greater than 0$",
     "deepspeed/runtime/config.py _batch_assertion(): a batch size or gradient_accumulation_steps is 0 or negative "
     "after DeepSpeed derived it: train_batch_size smaller than micro * world size makes the accumulation 0.",
     ["set train_batch_size >= train_micro_batch_size_per_gpu * number of GPUs (a multiple of it), or give "
      "micro batch and gradient_accumulation_steps only"]),
    (r"^You can't train a model that has been loaded with `device_map='auto'` in any distributed mode",
     "accelerate/accelerator.py prepare_model(): a model spread over several GPUs by device_map='auto' (big-model "
     "inference placement) cannot be wrapped in DDP, which needs one whole copy per process.",
     ["load the whole model on each process's own GPU: device_map={'': PartialState().local_process_index} (the "
      "process's index on its machine, accelerate/state.py; process_index counts over all machines), or "
      "{'': torch.cuda.current_device()}; or run one process (python train.py / --num_processes=1) to keep "
      "device_map='auto' (naive model parallelism)"]),
    (r"^You can't train a model that has been loaded in 8-bit (?:or 4-bit )?precision on multiple devices",
     "accelerate/accelerator.py prepare_model(): a bitsandbytes 8-bit / 4-bit model placed on several GPUs "
     "(device_map='auto') cannot be trained with DDP/FSDP; the quantized weights cannot be moved either.",
     ["under accelerate launch / torchrun load it with device_map={'': PartialState().local_process_index} so each "
      "process holds the whole quantized model on its own GPU; or one process with device_map='auto'"]),
    (r"^You can't train a model that has been loaded in 8-bit (?:or 4-bit )?precision on a different device",
     "accelerate/accelerator.py prepare_model(): the quantized model sits on another GPU than this process's "
     "device (every rank loaded it onto cuda:0), and 8-bit / 4-bit weights cannot be moved.",
     ["load with device_map={'': torch.cuda.current_device()} (or {'': PartialState().local_process_index}) after the "
      "process group is set up, so rank N loads onto GPU N"]),
    (r"^You can't train a model that has been loaded in 8-bit (?:or 4-bit )?precision with CPU or disk offload",
     "accelerate/accelerator.py prepare_model(): part of the quantized model was offloaded to the CPU or disk "
     "(device_map put layers there because the GPU was full).",
     ["load the whole model on the GPU (device_map={'': <this GPU>}), a smaller model, or 4-bit instead of 8-bit"]),
    (r"^Your model contains `DTensor` parameters, which is incompatible with DDP",
     "accelerate/accelerator.py prepare_model(): transformers loaded the model with a tensor-parallel plan "
     "(device_map='auto' under torchrun gives DTensor parameters), which DDP cannot wrap.",
     ["load with device_map='cuda' (or {'': PartialState().local_process_index}) instead of 'auto' under distributed "
      "training"]),
    (r"^Please correct the following DeepSpeed config values that mismatch (?:kwargs|TrainingArguments) values",
     "accelerate/utils/dataclasses.py / transformers/integrations/deepspeed.py: a value in the DeepSpeed config "
     "file (batch sizes, gradient accumulation, learning rate, fp16/bf16, gradient clipping) differs from the one "
     "given to the Trainer / accelerate; the message lists each key with both values.",
     ["set those keys to \"auto\" in the DeepSpeed config file (the Trainer / accelerate fill them in), or make "
      "them equal to the TrainingArguments / accelerate values the message shows"]),
    (r"^`--mixed_precision` arg cannot be set to `%s` when `%s` is set in the DeepSpeed config file",
     "accelerate/utils/dataclasses.py DeepSpeedPlugin: accelerate's mixed_precision and the DeepSpeed config's "
     "fp16 / bf16 section disagree.",
     ["use one place: set \"fp16\"/\"bf16\" {\"enabled\": \"auto\"} in the DeepSpeed config, or make "
      "--mixed_precision match it"]),
    (r"^Unknown mixed_precision mode",
     "accelerate/accelerator.py: mixed_precision must be one of no, fp16, bf16, fp8.",
     ["accelerate launch --mixed_precision bf16|fp16|no ... (or mixed_precision: in the accelerate config)"]),
    (r"^bfloat16 and fp16 modes cannot be simultaneously enabled",
     "deepspeed/runtime/config.py: the DeepSpeed config enables both \"fp16\" and \"bf16\".",
     ["keep one: \"bf16\": {\"enabled\": true} on Ampere and newer, else \"fp16\""]),
    (r"^DeepSpeedConfig: Maximum supported ZeRO stage is",
     "deepspeed/runtime/config.py: zero_optimization.stage is above 3.",
     ["set \"zero_optimization\": {\"stage\": 0|1|2|3}"]),
    (r"^(?:FP16|BF16) Mixed precision training with AMP",
     "transformers/training_args.py (4.x) __post_init__: --fp16 / --bf16 (or their _full_eval forms) need a device "
     "torch can use for mixed precision, and torch sees none: a CPU-only torch, a job started without GPUs, or a "
     "driver older than torch's CUDA (torch then warns 'The NVIDIA driver on your system is too old').",
     ["python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())' in the "
      "job's environment: False -> install the CUDA build of torch for the CUDA your driver runs (nvidia-smi's "
      "'CUDA Version'; https://pytorch.org/get-started/locally/) and request GPUs for the job step (srun "
      "--gpus-per-node=N / --gres=gpu:N); or drop --fp16 / --bf16 to train on the CPU"]),
    (r"^Your setup doesn't support bf16/gpu",
     "transformers/training_args.py __post_init__: --bf16 was asked but torch sees no GPU that supports bfloat16 "
     "(is_torch_bf16_gpu_available(): a CUDA build, a GPU of compute capability 8.0 or newer) and use_cpu is not "
     "set. Older releases said 'You need torch>=1.10, using Ampere GPU with cuda>=11.0'.",
     ["on a GPU below compute capability 8.0 (V100, T4, RTX 20xx) use --fp16 instead of --bf16; check that torch "
      "sees the GPU: python -c 'import torch; print(torch.cuda.is_available(), torch.cuda.get_device_capability())' "
      "(False: a CPU-only torch or no GPU in the job); to train on the CPU pass --use_cpu"]),
    (r"^Using --fsdp xxx together with --deepspeed is not possible",
     "transformers/trainer.py: the Trainer got both an FSDP setting and a DeepSpeed config.",
     ["drop one of --fsdp / --deepspeed (and the accelerate config's distributed_type to match)"]),
    (r"^Using fsdp only works in distributed training",
     "transformers/trainer.py: --fsdp was given but the script runs as one process (python train.py).",
     ["start it with torchrun --nproc_per_node <GPUs> train.py ... or accelerate launch, or drop --fsdp"]),
    (r"^At most one of fp16 and bf16 can be True",
     "transformers/training_args.py: both --fp16 and --bf16 are set.",
     ["set only one of them: --bf16 on Ampere and newer, else --fp16; drop the other from the command line or TrainingArguments"]),
    (r"^--tf32 requires Ampere or a newer GPU arch",
     "transformers/training_args.py: --tf32 on a GPU below compute capability 8.0 (or a CPU-only torch).",
     ["drop --tf32 on this GPU (V100, T4: TF32 does not exist there)"]),
    (r"^`auto_find_batch_size` isn't supported yet with DeepSpeed Zero-3",
     "transformers/trainer.py: auto_find_batch_size with ZeRO stage 3.",
     ["set per_device_train_batch_size by hand, or use ZeRO 1/2 or FSDP"]),
    (r"^--load_best_model_at_end requires the save and eval strategy to match",
     "transformers/training_args.py: load_best_model_at_end needs save_strategy == eval_strategy.",
     ["set --save_strategy and --eval_strategy to the same value (steps with save_steps a multiple of eval_steps)"]),
]


# Rows for the remaining sites users meet (issue 18): the DeepSpeed config JSON
# (https://www.deepspeed.ai/docs/config-json/), accelerate's Accelerator / plugins
# (https://huggingface.co/docs/accelerate/package_reference/accelerator) and transformers' Trainer /
# TrainingArguments (https://huggingface.co/docs/transformers/main_classes/trainer), each written from the
# condition that raises it (the file and function in `means`).
_DS_CFG = "the DeepSpeed config file (--deepspeed ds_config.json, or deepspeed_config_file: in the accelerate config)"
MSG_FIX += [
    # deepspeed/runtime/config.py
    (r"^Expected a string path to an existing deepspeed config",
     "deepspeed/runtime/config.py DeepSpeedConfig(): the config given is not an existing file (os.path.exists), a "
     "dict, or base64 JSON: a relative path resolved from another working directory (the launcher's cd on a remote "
     "node), a typo, or a file that exists on the launching node only.",
     ["pass an absolute path on a shared filesystem (--deepspeed /shared/ds_config.json), and check it exists on "
      "every node: ls -l {%1|<the path the message prints>}"]),
    (r"^Duplicate keys in DeepSpeed config",
     "deepspeed/runtime/config_utils.py dict_raise_error_on_duplicate_keys(): the config JSON has the same key twice "
     "in one object (the message lists them); DeepSpeed refuses rather than keep the last one.",
     ["remove the repeated keys from %s (python -m json.tool does not catch duplicates: search the file for each key "
      "listed)" % _DS_CFG]),
    (r"^DeepSpeedConfig: %s is not defined",
     "deepspeed/runtime/config.py _do_error_check(): train_micro_batch_size_per_gpu or gradient_accumulation_steps "
     "is 0/None after DeepSpeed derived the batch sizes.",
     ["give \"train_micro_batch_size_per_gpu\" and \"gradient_accumulation_steps\" (or \"auto\" under the HF Trainer "
      "/ accelerate) in %s" % _DS_CFG]),
    (r"^Invalid dtype for torch autocast",
     "deepspeed/runtime/config.py get_torch_autocast_dtype(): \"torch_autocast\": {\"dtype\": ...} is not a dtype "
     "name DeepSpeed knows (DtypeEnum).",
     ["set \"torch_autocast\": {\"enabled\": true, \"dtype\": \"bfloat16\"} (or \"float16\") in %s" % _DS_CFG]),
    (r"^Invalid module names for torch autocast",
     "deepspeed/runtime/config.py: torch_autocast.lower_precision_safe_modules must be a list of strings (module "
     "class paths such as \"torch.nn.Linear\").",
     ["write \"lower_precision_safe_modules\": [\"torch.nn.Linear\", \"torch.nn.Conv2d\"] in %s" % _DS_CFG]),
    (r"^Invalid communication_data_type",
     "deepspeed/runtime/config.py get_communication_data_type(): \"communication_data_type\" is not fp16, bf16 or "
     "fp32 (older releases spelled bf16 'bfp16').",
     ["set \"communication_data_type\": \"fp32\" | \"fp16\" | \"bf16\" in the DeepSpeed config, or remove it (the "
      "training dtype is then used)"]),
    (r"^Invalid %s\. Supported operations",
     "deepspeed/runtime/config.py get_gradient_allreduce_op(): \"gradient_allreduce_op\" is not one of the "
     "supported reductions the message lists.",
     ["set \"gradient_allreduce_op\" to one of the values listed (the default averages), or remove it"]),
    (r"='sum' is not supported with (?:ZeRO stage 3|ZenFlow|DeepCompile)",
     "deepspeed/runtime/config.py _do_error_check(): gradient_allreduce_op 'sum' works only without ZeRO stage 3, "
     "ZenFlow and DeepCompile.",
     ["remove \"gradient_allreduce_op\": \"sum\" (average, the default), or use ZeRO stage 1/2 without ZenFlow / "
      "DeepCompile"]),
    (r"^(?:Fp16|Bf16)_master_weights_and_grads is only supported with ZeRO Stage|^bf16_optimizer_states is only "
     r"supported with ZeRO",
     "deepspeed/runtime/config.py _do_error_check(): fp16/bf16 master weights and gradients (and bf16 optimizer "
     "states) live in ZeRO's partitioned optimizer: zero_optimization.stage must be 1, 2 or 3 (older releases: 2 "
     "only).",
     ["set \"zero_optimization\": {\"stage\": 2} (or 1/3), or remove fp16_master_weights_and_grads / "
      "bf16_master_weights_and_grads / bf16_optimizer_states"]),
    (r"^bf16_optimizer_states requires bf16_master_weights_and_grads",
     "deepspeed/runtime/config.py: \"bf16\": {\"bf16_optimizer_states\": true} needs "
     "\"bf16_master_weights_and_grads\": true in the same section.",
     ["set both in the \"bf16\" section of the DeepSpeed config, or drop bf16_optimizer_states"]),
    (r"^compute_grad_norm=false is supported only with ZeRO Stage 1 or 2",
     "deepspeed/runtime/zero/config.py: zero_optimization.compute_grad_norm false skips the norm only in the stage "
     "1/2 optimizer.",
     ["remove \"compute_grad_norm\": false, or use \"stage\": 1 or 2"]),
    (r"^Partial offloading only supported for ZeRO Stage 3",
     "deepspeed/runtime/zero/config.py: offload_optimizer.ratio below 1.0 (part of the optimizer offloaded) is "
     "implemented for stage 3 only.",
     ["set \"offload_optimizer\": {\"device\": \"cpu\", \"ratio\": 1.0} or use \"stage\": 3"]),
    (r"^fp16\.loss_scale must be|^fp16\.loss_scale_window must be > 0|^fp16\.min_loss_scale must be > 0",
     "deepspeed/runtime/precision_config.py: the \"fp16\" section's loss_scale is 0 (dynamic) or a positive finite "
     "number, and dynamic scaling needs loss_scale_window and min_loss_scale above 0.",
     ["\"fp16\": {\"enabled\": true, \"loss_scale\": 0, \"loss_scale_window\": 1000, \"min_loss_scale\": 1} (the "
      "documented defaults; \"auto\" under the HF Trainer)"]),
    (r"^%s must be an integer, not bool|^%s must be a finite number \(not inf",
     "deepspeed/runtime/precision_config.py: a number in the \"fp16\" section (initial_scale_power, "
     "loss_scale_window, hysteresis, min_loss_scale) is true/false, inf or NaN.",
     ["write {%1|that key} of the \"fp16\" section as a plain number (the message names it)"]),
    (r"^Checkpoint config contains invalid tag_validation value",
     "deepspeed/runtime/config.py: \"checkpoint\": {\"tag_validation\": ...} is not Ignore, Warn or Fail.",
     ["set \"checkpoint\": {\"tag_validation\": \"Warn\"} (or Ignore / Fail)"]),
    (r"^checkpoint::parallel_write::pipeline_stage value",
     "deepspeed/runtime/config.py: checkpoint.parallel_write.pipeline_stage must be a JSON boolean.",
     ["write \"pipeline_stage\": true or false (no quotes)"]),
    (r"^data_types\.%s must be \"auto\" or a list",
     "deepspeed/runtime/config.py: data_types.keep_in_fp32_modules is neither \"auto\" nor a list of name patterns.",
     ["write \"data_types\": {\"keep_in_fp32_modules\": [\"norm\", ...]} or \"auto\""]),
    (r"^Cannot provide deprecated parameter '%s' and replacing parameter '%s' together",
     "deepspeed/runtime/config_utils.py: the config gives a deprecated key and the key that replaces it (e.g. "
     "cpu_offload and offload_optimizer); the message names both.",
     ["keep only {%2|the new key the message names} in the DeepSpeed config"]),
    (r"^Tried removing deprecated '%s'|^Tried setting value for '%s' with value from deprecated",
     "deepspeed/runtime/config_utils.py: a deprecated key of the DeepSpeed config could not be moved to the key "
     "that replaces it; the exception below says why.",
     ["replace the deprecated key the message names with its new form (https://www.deepspeed.ai/docs/config-json/)"]),
    (r"^Model-Parallel size cannot be less than 1|^NUmber of GPUs per node cannot be less than 1",
     "deepspeed/runtime/config.py (elastic training): model_parallel_size or num_gpus_per_node in the \"elasticity\" "
     "section is below 1.",
     ["set \"elasticity\": {\"model_parallel_size\": >=1, \"num_gpus_per_node\": >=1} or disable elasticity"]),
    (r"^One or more batch related parameters were found in your ds_config",
     "deepspeed/runtime/config.py: with \"elasticity\" enabled DeepSpeed computes the batch sizes itself, and the "
     "config also sets train_batch_size / micro batch / gradient accumulation.",
     ["remove the batch keys from the config, or set \"elasticity\": {\"ignore_non_elastic_batch_info\": true}"]),
    (r"^DeepSpeedZeroConfig: 'stage' must be defined before 'overlap_comm'",
     "deepspeed/runtime/zero/config.py (older releases): zero_optimization has overlap_comm but no stage.",
     ["add \"stage\": N to \"zero_optimization\""]),
    (r"^ZeRO inference only makes sense with ZeRO Stage 3",
     "transformers/integrations/deepspeed.py deepspeed_init(inference=True): evaluation/predict with DeepSpeed and "
     "no training needs zero_optimization.stage 3 (ZeRO 1/2 only shard optimizer state and gradients).",
     ["use \"stage\": 3 in the DeepSpeed config for --do_eval/--do_predict alone, or run evaluation without "
      "--deepspeed"]),
    (r"^\[deepspeed\] failed to resume from checkpoint",
     "transformers/integrations/deepspeed.py deepspeed_load_checkpoint(): --resume_from_checkpoint names a folder "
     "with no DeepSpeed checkpoint (no global_step* subfolder and 'latest' file) that the engine could load.",
     ["ls {%1|<checkpoint>}: it needs 'latest' and global_stepN/ (saved by a DeepSpeed run with the same ZeRO stage and "
      "world size, or convert with zero_to_fp32.py and load the weights without resuming)"]),
    (r"^--adafactor was passed, but also found `optimizer` configured",
     "transformers/integrations/deepspeed.py: --adafactor and an \"optimizer\" section in the DeepSpeed config.",
     ["drop --adafactor, or remove the \"optimizer\" section from the DeepSpeed config"]),
    (r"neither `hidden_size` nor `hidden_sizes` entry",
     "transformers/integrations/deepspeed.py: the \"auto\" values of ZeRO-3's reduce_bucket_size / "
     "stage3_prefetch_bucket_size / stage3_param_persistence_threshold are computed from the model config's "
     "hidden_size, which this model does not have.",
     ["replace those \"auto\" values with numbers in the DeepSpeed config (e.g. reduce_bucket_size 5e8, "
      "stage3_prefetch_bucket_size 5e8, stage3_param_persistence_threshold 1e6)"]),
    (r"^`%s` not found in kwargs\. Please specify `%s` without `auto`",
     "accelerate/utils/dataclasses.py DeepSpeedPlugin.fill_match(): a DeepSpeed config value is \"auto\" and "
     "accelerate has nothing to fill it with (outside the HF Trainer, accelerate fills only the batch size, "
     "gradient accumulation/clipping and mixed precision).",
     ["write the real value for {%1|the key the message names} in the DeepSpeed config file"]),
    (r"^When using `deepspeed_config_file`, the following accelerate config variables will be ignored",
     "accelerate/utils/dataclasses.py DeepSpeedPlugin: the accelerate config has deepspeed_config_file and also "
     "DeepSpeed settings (zero_stage, offload_*, gradient_accumulation_steps, gradient_clipping ...) that only apply "
     "without one.",
     ["remove the keys the message lists from the deepspeed_config: section of the accelerate config (accelerate "
      "config / ~/.cache/huggingface/accelerate/default_config.yaml) and set them in the DeepSpeed JSON"]),
    (r"^Please specify the ZeRO optimization config in the DeepSpeed config",
     "accelerate/utils/dataclasses.py DeepSpeedPlugin: the DeepSpeed config file has no \"zero_optimization\" "
     "section.",
     ["add \"zero_optimization\": {\"stage\": 0|1|2|3} to the DeepSpeed config file"]),
    (r"^Cannot get 16bit model weights because `stage3_gather_16bit_weights_on_model_save`",
     "accelerate/accelerator.py get_state_dict(): with ZeRO-3 the full 16-bit weights are gathered on save only "
     "when zero_optimization.stage3_gather_16bit_weights_on_model_save is true.",
     ["set \"stage3_gather_16bit_weights_on_model_save\": true (accelerate config: zero3_save_16bit_model: true), "
      "or save the sharded checkpoint and convert it with zero_to_fp32.py"]),
    (r"^At least one of the dataloaders passed to `accelerate\.prepare\(\)` has `None` as batch size|"
     r"^When using DeepSpeed,? `accelerate\.prepare\(\)` requires you to pass at least one",
     "accelerate/accelerator.py _prepare_deepspeed(): train_micro_batch_size_per_gpu is \"auto\", and accelerate "
     "reads it from the dataloaders passed to prepare(); none has a batch_size (a batch_sampler, an "
     "IterableDataset, or no dataloader passed).",
     ["set an integer \"train_micro_batch_size_per_gpu\" in the DeepSpeed config, or pass the DataLoader (with "
      "batch_size=) to accelerator.prepare() together with the model"]),
    (r"^You cannot specify an optimizer in the config file and in the code at the same time",
     "accelerate/accelerator.py: the DeepSpeed config has an \"optimizer\" section and the code passes a torch "
     "optimizer to prepare().",
     ["remove \"optimizer\" from the DeepSpeed config, or create accelerate.utils.DummyOptim(params) in the code"]),
    (r"^You cannot create a `DummyOptim` without specifying an optimizer in the config file",
     "accelerate/accelerator.py: DummyOptim stands in for an optimizer the DeepSpeed config defines, and it has none.",
     ["add an \"optimizer\" section to the DeepSpeed config, or pass a real torch optimizer"]),
    (r"^You cannot specify a scheduler in the config file and in the code|^Either specify a scheduler in the "
     r"config file or pass in the `lr_scheduler_callable`|^You can only specify `accelerate\.utils\.DummyScheduler`",
     "accelerate/accelerator.py: a scheduler must come from one place: the DeepSpeed config's \"scheduler\" (with "
     "DummyScheduler and DummyOptim in the code) or the code.",
     ["either remove \"scheduler\" from the DeepSpeed config and pass your scheduler, or keep it and use "
      "DummyOptim + DummyScheduler in the code"]),
    (r"^You can't use same `Accelerator\(\)` instance with multiple models when using DeepSpeed",
     "accelerate/accelerator.py: one DeepSpeed engine per Accelerator; prepare() got two models.",
     ["prepare one model per Accelerator, or several DeepSpeedPlugins (deepspeed_plugins={...}) and "
      "accelerator.state.select_deepspeed_plugin()"]),
    (r"^DeepSpeed and FSDP do not support `clip_grad_value_`",
     "accelerate/accelerator.py clip_grad_value_(): sharded gradients cannot be clipped per value.",
     ["use accelerator.clip_grad_norm_(model.parameters(), max_norm) (or \"gradient_clipping\" in the DeepSpeed "
      "config)"]),
    (r"^The model and the optimizer parameters are not on the same device",
     "accelerate/accelerator.py / transformers/trainer.py: the optimizer was built on the model's parameters before "
     "the model was moved to its device (on TPU/XLA the parameters are replaced when moved).",
     ["create the optimizer after model.to(device), or let prepare() / the Trainer move the model first"]),
    (r"^When using FSDP2, a model and optimizer must be passed together|^FSDP2 preparation should be done via "
     r"`accelerate\.prepare\(\)`|^Only one model is supported when using FSDP2",
     "accelerate/accelerator.py: FSDP2 replaces the model's parameters with DTensors, so the optimizer is rebuilt "
     "on them in the same prepare() call; one model per Accelerator.",
     ["model, optimizer = accelerator.prepare(model, optimizer)   (one call, one model)"]),
    (r"^FSDP2 mapping failed \(missing: %s\)|^Parameters missing after FSDP2 wrapping",
     "accelerate/accelerator.py: after FSDP2 wrapping some parameters could not be mapped back for the optimizer, "
     "usually tied embeddings (tie_word_embeddings=True) whose checkpoint stores the weights separately.",
     ["set model.config.tie_word_embeddings = False after loading (or tie them: model.tie_weights()) before "
      "prepare()"]),
    (r"^Could not find (?:a|the) transformer layer class",
     "accelerate/utils/dataclasses.py FullyShardedDataParallelPlugin: fsdp_transformer_layer_cls_to_wrap names {%1|a} "
     "class that is not in the model (a class name from another architecture).",
     ["set fsdp_transformer_layer_cls_to_wrap to the model's decoder layer class name (print(model) shows it: "
      "LlamaDecoderLayer, GPT2Block, ...), or fsdp_auto_wrap_policy: SIZE_BASED_WRAP"]),
    (r"^Invalid auto wrap policy: %s|^`auto_wrap_policy` must be one of",
     "accelerate/utils/dataclasses.py / transformers/training_args.py: fsdp_auto_wrap_policy is not "
     "TRANSFORMER_BASED_WRAP, SIZE_BASED_WRAP or NO_WRAP.",
     ["fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP (in the accelerate config or fsdp_config)"]),
    (r"^reshard_after_forward set to %s\. This is not supported with FSDP",
     "accelerate/utils/dataclasses.py: FSDP2's fsdp_reshard_after_forward is a bool; FSDP1's takes a sharding "
     "strategy name (FULL_SHARD ...).",
     ["FSDP2 (fsdp_version: 2): fsdp_reshard_after_forward: true|false; FSDP1: fsdp_sharding_strategy: FULL_SHARD"]),
    (r"^FSDP2 does not support LOCAL_STATE_DICT",
     "accelerate/utils/dataclasses.py: fsdp_state_dict_type LOCAL_STATE_DICT exists in FSDP1 only.",
     ["fsdp_state_dict_type: SHARDED_STATE_DICT (or FULL_STATE_DICT) with fsdp_version: 2"]),
    (r"^forward_prefetch is not yet implemented in FSDP2",
     "accelerate/utils/dataclasses.py: fsdp_forward_prefetch is an FSDP1 option.",
     ["remove fsdp_forward_prefetch, or fsdp_version: 1"]),
    (r"^`activation_checkpointing_offload=True` requires",
     "accelerate/utils/dataclasses.py: activation offloading needs fsdp_activation_checkpointing: true and "
     "fsdp_version: 2.",
     ["set fsdp_activation_checkpointing: true and fsdp_version: 2, or drop the offload"]),
    (r"^There are currently no available devices found, must be one of",
     "accelerate/utils/dataclasses.py FullyShardedDataParallelPlugin: FSDP found no GPU (torch.cuda.is_available() "
     "is False: a CPU-only torch, a node without GPUs, CUDA_VISIBLE_DEVICES empty).",
     ["python -c 'import torch; print(torch.cuda.is_available())' in the job; install torch's CUDA build and run on "
      "a GPU node"]),
    (r"^Invalid mixed precision: %s\. Must be one of|^Unknown mixed precision value|^Invalid mixed precision "
     r"policy|^mixed_precision_policy must be an instance",
     "accelerate/utils/dataclasses.py FullyShardedDataParallelPlugin: fsdp's mixed precision is not no / fp16 / bf16 "
     "(or a policy dict of param_dtype / reduce_dtype / buffer_dtype).",
     ["mixed_precision: bf16 in the accelerate config (or --mixed_precision bf16)"]),
    (r"^`cpu_offload` must be an instance of",
     "accelerate/utils/dataclasses.py: fsdp_offload_params is given as an object of the other FSDP version "
     "(OffloadPolicy for FSDP2, CPUOffload for FSDP1).",
     ["use fsdp_offload_params: true in the config, or the class the message names for this fsdp_version"]),
    (r"^Invalid cp_comm_strategy|^Invalid sp_attn_implementation|^when `sp_seq_length_is_variable` is `False`",
     "accelerate/utils/dataclasses.py ParallelismConfig: a context / sequence parallel option has a value the "
     "message lists as not supported.",
     ["use one of the values the message lists (cp_comm_strategy allgather|alltoall; sp_attn_implementation "
      "sdpa or a flash attention kernel), or set PARALLELISM_CONFIG_SP_SEQ_LENGTH"]),
    (r"^Tried to train with `fp8` and auto-detect backend, but no FP8-compatible backend|^FP8 is not available on "
     r"this machine|^Using `fp8` precision requires",
     "accelerate: mixed_precision fp8 needs one of its backends installed: transformer-engine (te), torchao (ao) or "
     "MS-AMP, and an FP8 GPU (Hopper, Ada, Blackwell).",
     ["pip install torchao (or transformer_engine[pytorch]) in the job's environment, or --mixed_precision bf16"]),
    (r"^Passing in an FP8 configuration requires setting `mixed_precision='fp8'`",
     "accelerate/accelerator.py: an FP8 recipe (kwargs_handlers) was given without fp8 mixed precision.",
     ["Accelerator(mixed_precision='fp8', kwargs_handlers=[...]) or --mixed_precision fp8"]),
    (r"^fp16 mixed precision requires a device in",
     "accelerate/accelerator.py: mixed_precision fp16 with native AMP on a device type that has no grad scaler here "
     "(not cuda, xpu, npu, mlu, musa, hpu, sdaa or mps; the message names it), or on a TPU (XLA), where fp16 AMP is "
     "not used.",
     ["on a TPU use --mixed_precision bf16; elsewhere --mixed_precision no, or run on a GPU torch supports"]),
    (r"^bf16 mixed precision requires PyTorch >= 1\.10 and a supported device",
     "accelerate/accelerator.py: mixed_precision bf16 and the GPU torch runs on has no bf16 "
     "(accelerate/utils/imports.py is_bf16_available(): torch.cuda.is_bf16_supported() is False: a GPU below "
     "compute capability 8.0 on a torch that does not emulate it). On the CPU bf16 is accepted.",
     ["python -c 'import torch; print(torch.cuda.get_device_name(), torch.cuda.is_bf16_supported())'; on V100/T4 "
      "use --mixed_precision fp16 (or mixed_precision: fp16 in the accelerate config)"]),
    (r"^You can only pass one of `gradient_accumulation_steps` and `gradient_accumulation_plugin`",
     "accelerate/accelerator.py: Accelerator() got both.",
     ["pass gradient_accumulation_plugin=GradientAccumulationPlugin(num_steps=N) alone, or "
      "gradient_accumulation_steps=N alone"]),
    (r"^You can't customize device placements with DeepSpeed or Megatron-LM",
     "accelerate/accelerator.py prepare(device_placement=...): DeepSpeed and Megatron-LM place the model themselves.",
     ["call accelerator.prepare(...) without device_placement"]),
    (r"^You can't save the model since some parameters are on the meta device",
     "accelerate/accelerator.py save_model(): parts of the model were never loaded (meta device: offloaded with "
     "device_map, or low_cpu_mem_usage loading that did not finish).",
     ["load the model fully on CPU/GPU before saving (no disk offload in device_map), or save through "
      "accelerator.get_state_dict(model)"]),
    (r"^Checkpoint directory %s \(%s\) already exists",
     "accelerate/accelerator.py save_state(): with ProjectConfiguration(automatic_checkpoint_naming=True) the next "
     "checkpoints/checkpoint_N folder already exists (a previous run).",
     ["start from the last one: ProjectConfiguration(..., iteration=N+1), or load_state() it first, or use a new "
      "project_dir"]),
    (r"^Tried to find %s but folder does not exist|^No input_dir provided and automatic checkpoint naming",
     "accelerate/accelerator.py load_state(): the checkpoint folder does not exist on this node (another path, "
     "node-local disk).",
     ["accelerator.load_state('<an existing checkpoint folder on a filesystem all nodes see>')"]),
    (r"^Number of custom checkpoints in folder",
     "accelerate/accelerator.py load_state(): the checkpoint holds another number of custom_checkpoint_N.pkl files "
     "than objects registered with register_for_checkpointing() now.",
     ["register the same objects in the same order as when the checkpoint was saved"]),
    (r"^Provided path \(%s\) should be a directory, not a file",
     "accelerate/accelerator.py save_model(): save_directory names {%1|an existing file}.",
     ["pass a folder path to accelerator.save_model(model, '<folder>')"]),
    (r"^No GPU (?:or Intel XPU )?found\. A GPU (?:or Intel XPU )?is needed for quantization",
     "accelerate/utils/bnb.py: bitsandbytes 8-bit/4-bit loading needs a GPU and torch sees none.",
     ["python -c 'import torch; print(torch.cuda.is_available())' in the job: install torch's CUDA build, run on a "
      "GPU node (request GPUs for the step)"]),
    (r"^Some modules are dispatched on the CPU or the disk\. Make sure you have enough GPU RAM",
     "accelerate/utils/bnb.py: device_map put quantized layers on the CPU or disk because the GPU had too little "
     "free memory.",
     ["more GPUs / a larger GPU, 4-bit instead of 8-bit, max_memory= for the GPUs, or "
      "llm_int8_enable_fp32_cpu_offload=True to keep those layers in fp32 on the CPU"]),
    (r"^You have a version of `bitsandbytes` that is not compatible with (?:8|4)bit quantization",
     "accelerate/utils/bnb.py: the installed bitsandbytes is older than 8-bit / 4-bit loading needs.",
     ["pip install -U bitsandbytes (in the job's environment)"]),
    (r"^load_in_4bit and load_in_8(?:bit)? can't be both",
     "accelerate/utils/dataclasses.py BnbQuantizationConfig: exactly one of load_in_8bit / load_in_4bit must be True.",
     ["BnbQuantizationConfig(load_in_4bit=True, ...) or (load_in_8bit=True, ...)"]),
    (r"^bnb_4bit_quant_type must be in|^bnb_4bit_compute_dtype must be in|^torch_dtype must be in \['fp32'",
     "accelerate/utils/dataclasses.py BnbQuantizationConfig: a value outside the ones the message lists.",
     ["bnb_4bit_quant_type='nf4' (or 'fp4'), bnb_4bit_compute_dtype='bf16' (fp32/fp16/bf16)"]),
    # transformers
    (r"^You have set `args\.eval_strategy` to %s but you didn't pass an `eval_dataset`",
     "transformers/trainer.py: eval_strategy is steps/epoch and the Trainer got no eval_dataset.",
     ["pass eval_dataset=... to Trainer(...), or --eval_strategy no"]),
    (r"^`args\.metric_for_best_model` must be provided",
     "transformers/trainer.py: load_best_model_at_end (or save_strategy 'best') needs the metric that picks the best "
     "checkpoint.",
     ["--metric_for_best_model eval_loss (or a key compute_metrics returns, without or with the eval_ prefix)"]),
    (r"^Trainer: training requires a train_dataset|^Trainer: evaluation requires an eval_dataset",
     "transformers/trainer.py get_train_dataloader() / get_eval_dataloader(): train() or evaluate() was called and "
     "the dataset was not given.",
     ["Trainer(..., train_dataset=..., eval_dataset=...) or evaluate(eval_dataset=...); check that --do_train / "
      "--do_eval match the datasets the script loads"]),
    (r"^No columns in the dataset match the model's forward method signature",
     "transformers/trainer.py _remove_unused_columns(): with remove_unused_columns=True (the default) every dataset "
     "column not named like an argument of model.forward is dropped, and none was left (raw 'text' columns not "
     "tokenized, or a custom model whose forward takes **kwargs).",
     ["tokenize the dataset into input_ids / attention_mask / labels, or --remove_unused_columns False when a custom "
      "collator needs the raw columns"]),
    (r"^The model you have picked \(%s\) cannot be used as is for training",
     "transformers/trainer.py: the model is a bare AutoModel (hidden states only, no head that takes labels and "
     "returns a loss).",
     ["load AutoModelForCausalLM / AutoModelForSequenceClassification / ... for the task instead of AutoModel"]),
    (r"^The train_dataset does not implement __len__",
     "transformers/trainer.py: an IterableDataset (streaming=True) has no length, so the number of steps for the "
     "scheduler is unknown.",
     ["--max_steps N (total optimizer steps) with a streaming / iterable dataset"]),
    (r"^--load_best_model_at_end requires the saving steps to be (?:a|a round) multiple of the evaluation steps",
     "transformers/training_args.py: a checkpoint can be the best only if it is saved at an evaluation, so save_steps "
     "must be a multiple of eval_steps (both absolute or both ratios).",
     ["e.g. --eval_steps 500 --save_steps 1000 (or equal), with --save_strategy and --eval_strategy steps"]),
    (r"^evaluation strategy %s requires either non-zero --eval_steps|^logging strategy %s requires non-zero "
     r"--logging_steps|^Setting `strategy` as 'steps' requires a positive value",
     "transformers/training_args.py: a 'steps' strategy with its steps value 0.",
     ["give --eval_steps / --logging_steps / --save_steps N (> 0), or use the 'epoch' strategy"]),
    (r"^--(?:logging|eval|save)_steps must be an integer if bigger than 1",
     "transformers/training_args.py: a value above 1 is a step count and must be whole; a value in (0, 1) is a "
     "ratio of the total steps.",
     ["--save_steps 500 (or a ratio such as 0.1)"]),
    (r"^`fsdp=%s` is only available with FSDP1|^Unknown `fsdp` option",
     "transformers/training_args.py: --fsdp takes full_shard, shard_grad_op, hybrid_shard, no_shard, offload, "
     "auto_wrap; some exist in FSDP1 only.",
     ["--fsdp \"full_shard auto_wrap\" (FSDP2: set fsdp_config's version 2 and its reshard_after_forward)"]),
    (r"^`--fsdp offload` can't work on its own|^`--fsdp full_shard` is not compatible with `--fsdp shard_grad_op`",
     "transformers/training_args.py: --fsdp takes one sharding strategy, optionally with offload / auto_wrap.",
     ["--fsdp \"full_shard offload auto_wrap\" (one of full_shard / shard_grad_op)"]),
    (r"^`fsdp_config\['activation_checkpointing'\]` .* can't both be set|^The activation_checkpointing in FSDP "
     r"config and the gradient_checkpointing",
     "transformers/trainer.py: FSDP's activation checkpointing and --gradient_checkpointing both wrap the layers.",
     ["keep fsdp_config activation_checkpointing: true and drop --gradient_checkpointing (or the reverse without FSDP)"]),
    (r"^save_only_model option is not compatible with FSDP state dict type 'SHARDED_STATE_DICT'|^%s can't be used "
     r"with `save_only_model` along with `load_best_model_at_end`",
     "transformers/trainer.py: save_only_model with sharded FSDP / DeepSpeed checkpoints cannot reload the best "
     "model at the end.",
     ["drop --save_only_model, or fsdp_state_dict_type FULL_STATE_DICT, or drop --load_best_model_at_end"]),
    (r"^Passing `optimizers` is not allowed if (?:Deepspeed or )?PyTorch FSDP is enabled",
     "transformers/trainer.py: under FSDP (and DeepSpeed in older releases) the optimizer must be built after the "
     "model is wrapped.",
     ["pass optimizer_cls_and_kwargs=(torch.optim.AdamW, {...}) or --optim, or subclass Trainer.create_optimizer"]),
    (r"^Using fsdp only works in distributed training|^Currently --debug underflow_overflow is not supported under DP",
     "transformers/trainer.py: the option needs one process per GPU (torchrun / accelerate launch); "
     "python train.py on several GPUs uses DataParallel.",
     ["torchrun --nproc_per_node <GPUs> train.py ... (or accelerate launch)"]),
    (r"^You cannot perform fine-tuning on purely quantized models",
     "transformers/trainer.py: a 4-bit/8-bit model has no trainable parameters; it needs adapters.",
     ["model = peft.get_peft_model(model, LoraConfig(...)) (after prepare_model_for_kbit_training) before Trainer"]),
    (r"^Tried to use `fp16` but it is not supported on cpu",
     "transformers/trainer.py: --fp16 and the Trainer runs on the CPU (no GPU seen by torch, or --use_cpu).",
     ["python -c 'import torch; print(torch.cuda.is_available())'; drop --fp16 on the CPU"]),
    (r"^Your setup doesn't support bf16/",
     "transformers/training_args.py: --bf16 on a device that lacks it.",
     ["--fp16 instead of --bf16 on this device, or a torch build with bf16 for it"]),
    (r"^--save_safetensors=%s requires safetensors",
     "transformers/training_args.py: safetensors is not installed.",
     ["pip install safetensors, or --save_safetensors False"]),
    (r"^Tried to use an already configured `Accelerator` or `PartialState` that was not initialized for DeepSpeed",
     "transformers/training_args.py: a PartialState/Accelerator was created before TrainingArguments without "
     "DeepSpeed, then --deepspeed was passed.",
     ["create TrainingArguments (with deepspeed=...) before any Accelerator/PartialState, or "
      "accelerator_config={'use_configured_state': False}"]),
    (r"^--dataloader_prefetch_factor can only be set when",
     "transformers/training_args.py: prefetch_factor applies to DataLoader worker processes.",
     ["--dataloader_num_workers N (> 0) with --dataloader_prefetch_factor, or drop it"]),
    (r"^warmup_ratio must lie in range|^Got warmup_steps = %s, Expected value warmup_steps >= 0",
     "transformers/training_args.py: warmup is a ratio in [0, 1] or a non-negative number of steps.",
     ["--warmup_ratio 0.03 or --warmup_steps 100"]),
    (r"^lr_scheduler_type (?:reduce_lr_on_plateau|greedy) requires an eval strategy",
     "transformers/training_args.py: this scheduler steps on evaluation metrics.",
     ["--eval_strategy steps|epoch (and an eval_dataset), or another --lr_scheduler_type"]),
]

MSG_FIX += [
    (r"^No valid checkpoint found in output directory",
     "transformers/trainer.py train(): resume_from_checkpoint=True looks for the last checkpoint-<step> folder in "
     "output_dir and there is none (a first run, another output_dir, or checkpoints on a node-local disk).",
     ["pass the folder itself (--resume_from_checkpoint {%1|<output_dir>}/checkpoint-<step>), or drop "
      "--resume_from_checkpoint for a first run; ls {%1|<output_dir>} on the node that runs rank 0"]),
    (r"^Can't find a valid checkpoint at",
     "transformers/trainer.py _load_from_checkpoint(): the resume folder has no weights file the Trainer knows "
     "(model.safetensors / pytorch_model.bin / their sharded index / an adapter, or a DeepSpeed/FSDP checkpoint of the "
     "same setup).",
     ["point --resume_from_checkpoint at a checkpoint-<step> folder the Trainer saved (ls {%1|it}: the weights, "
      "trainer_state.json, optimizer.pt), with the same DeepSpeed / FSDP setup that saved it"]),
    (r"^The model did not return a loss from the inputs",
     "transformers/trainer.py compute_loss(): the model returned no 'loss': the batch has no 'labels' (or the "
     "label_names the model needs), e.g. a dataset whose label column is named otherwise, or removed by "
     "remove_unused_columns.",
     ["give the batch a 'labels' column (DataCollatorForLanguageModeling(mlm=False) for causal LM, rename the label "
      "column to 'labels'), or --label_names <name>; a custom model must return a loss when given labels"]),
    (r"^The batch received was empty",
     "transformers/trainer.py: a training batch had no keys after the unused columns were removed: the dataset has no "
     "column the model's forward() takes.",
     ["tokenize into input_ids / attention_mask / labels, or --remove_unused_columns False for a custom collator"]),
    (r"^The `metric_for_best_model` training argument is set to '%s', which is not found",
     "transformers/trainer.py: metric_for_best_model names {%1|a metric} that evaluate() did not return (compute_metrics "
     "returns other keys, or there is no compute_metrics and only eval_loss exists).",
     ["--metric_for_best_model <one of the metrics the message lists, without 'eval_'> (eval_loss: 'loss'), or return "
      "that key from compute_metrics"]),
    (r"^args\.max_steps must be set to a positive value if dataloader does not have a length",
     "transformers/trainer.py: a streaming / iterable dataset has no length, so the number of steps is unknown.",
     ["--max_steps N"]),
    (r"^Evaluation hit an out-of-memory error",
     "transformers/trainer.py: evaluation ran out of GPU memory; auto_find_batch_size only shrinks the training "
     "batch.",
     ["--per_device_eval_batch_size <smaller>, --eval_accumulation_steps N, or --prediction_loss_only"]),
    (r"^Trainer cannot instantiate unsupported optimizer",
     "transformers/trainer.py get_optimizer_cls_and_kwargs(): --optim names {%1|an optimizer} this release does not know.",
     ["--optim adamw_torch (python -c 'from transformers.training_args import OptimizerNames; "
      "print([o.value for o in OptimizerNames])' lists them)"]),
    (r"^`min_num_params` and `transformer_layer_cls_to_wrap` are mutually exclusive",
     "transformers/training_args.py: fsdp_config gives both auto-wrap policies (by size and by layer class).",
     ["keep one in fsdp_config: transformer_layer_cls_to_wrap (the decoder layer class) or min_num_params"]),
    (r"^--deepspeed requires Accelerate to be installed|^Using the `Trainer` with `PyTorch` requires `accelerate>=",
     "transformers/training_args.py: the Trainer runs on accelerate, and it is missing or older than this "
     "transformers needs (the message gives the release).",
     ["pip install -U 'accelerate>={%1|<the release named>}' (or pip install 'transformers[torch]') in the job's "
      "environment, the same on every node"]),
    (r"^torchao with FSDP2 and cpu_ram_efficient_loading is not supported",
     "accelerate/accelerator.py: FP8 through torchao under FSDP2 cannot load the weights on rank 0 only.",
     ["fsdp_cpu_ram_efficient_loading: false in the accelerate config (or --fsdp_cpu_ram_efficient_loading false)"]),
    (r"^MS-AMP is not supported for ZeRO Stage 3",
     "accelerate/utils/dataclasses.py: FP8 through MS-AMP works with ZeRO 0-2.",
     ["zero_stage: 2 (or fp8 through TransformerEngine: fp8_backend te)"]),
    (r"^When `zero3_init_flag` is set, it requires Transformers",
     "accelerate/utils/dataclasses.py: zero3_init_flag builds the model partitioned through transformers' "
     "HfDeepSpeedConfig.",
     ["pip install transformers, or zero3_init_flag: false in the accelerate config"]),
    (r"^`min_num_params` must be an integer",
     "accelerate/utils/dataclasses.py: fsdp_min_num_params (SIZE_BASED_WRAP) must be a whole number.",
     ["fsdp_min_num_params: 100000000 (no quotes, no 1e8)"]),
    (r"^If passing a string for `device_map`, please choose",
     "accelerate/utils/bnb.py: device_map is a string other than the placement strategies accelerate knows.",
     ["device_map='auto' (or a dict {'': <GPU index>})"]),
    # ---- lib-coverage (issue 18): whole modules of transformers (modeling_utils, tokenization_utils_base,
    # data/data_collator), peft (peft_model, config, tuners_utils, lora) and DeepSpeed's engine / ZeRO optimizers,
    # each row written from the statement that raises it and the documentation of the call it checks
    # (https://huggingface.co/docs/transformers/main_classes/model, .../main_classes/tokenizer,
    # https://huggingface.co/docs/peft/package_reference/lora, https://deepspeed.readthedocs.io/en/latest/training.html).
    # -- transformers/tokenization_utils_base.py, data/data_collator.py
    (r"^Asking to pad but the tokenizer does not have a padding token|"
     r"^You are attempting to pad samples but the tokenizer you are using \(%s\) does not have a pad token|"
     r"^Using pad_token, but it is not set yet",
     "transformers/tokenization_utils_base.py _get_padding_truncation_strategies() / data_collator.py: padding was "
     "asked for (padding=True, a padding data collator, the Trainer's default collator) and the tokenizer has no pad "
     "token (most decoder-only tokenizers: GPT-2, Llama, Mistral ship none).",
     ["tokenizer.pad_token = tokenizer.eos_token (the message's own advice; with padding_side='right' for training), "
      "or tokenizer.add_special_tokens({'pad_token': '[PAD]'}) and then model.resize_token_embeddings(len(tokenizer))"]),
    (r"^Unable to create tensor, you should probably activate truncation and/or padding",
     "transformers/tokenization_utils_base.py BatchEncoding.convert_to_tensors(): the examples of a batch have "
     "different lengths (return_tensors='pt' without padding), often the labels or another column that no collator "
     "pads.",
     ["tokenizer(..., padding=True, truncation=True, max_length=N) or a padding collator "
      "(DataCollatorWithPadding; DataCollatorForSeq2Seq pads labels too); drop columns the model does not take "
      "(remove_unused_columns=True, or dataset.remove_columns([...]))"]),
    (r"^Cannot use chat template functions because tokenizer\.chat_template is not set",
     "transformers/tokenization_utils_base.py: apply_chat_template was called on a tokenizer whose "
     "tokenizer_config.json has no chat_template (a base model's tokenizer; transformers 4.43+ no longer falls back "
     "to a default template).",
     ["load the tokenizer of the instruct / chat variant of the model, or set tokenizer.chat_template = '<a Jinja "
      "template>' before calling apply_chat_template (https://huggingface.co/docs/transformers/chat_templating)"]),
    (r"^apply_chat_template requires jinja2",
     "transformers: apply_chat_template renders the template with jinja2, which is missing or older than 3.0.",
     ["pip install -U 'jinja2>=3.1' in the job's environment"]),
    (r"^continue_final_message and add_generation_prompt are not compatible|"
     r"^continue_final_message is not compatible with return_assistant_tokens_mask|"
     r"^`return_assistant_tokens_mask=True` requires|^Cannot apply chat template to an empty conversation|"
     r"^This model has multiple chat templates with no default specified|^Invalid chat template name",
     "transformers/tokenization_utils_base.py apply_chat_template(): its options exclude each other, the "
     "conversation is empty, or the tokenizer has several named templates and none was chosen.",
     ["add_generation_prompt=True to start a new assistant turn or continue_final_message=True to extend the last "
      "one, not both; pass a non-empty list of {'role', 'content'} messages; chat_template='<name>' for "
      "tokenizers with several templates"]),
    (r"^Padding side should be selected between|^Truncation side should be selected between|"
     r"^invalid truncation strategy|^Invalid padding strategy",
     "A tokenizer got a padding / truncation side or strategy it does not know.",
     ["padding_side='left' or 'right'; padding=True|'longest'|'max_length'; truncation=True|'longest_first'|"
      "'only_first'|'only_second'"]),
    (r"^Truncation and padding are both activated but truncation length \(%s\) is not a multiple of pad_to_multiple_of",
     "A tokenizer call pads to a multiple of pad_to_multiple_of and truncates to a max_length that is not such a "
     "multiple.",
     ["max_length = a multiple of pad_to_multiple_of (e.g. 512 with 8), or drop pad_to_multiple_of"]),
    (r"^You need to specify either `text` or `text_target`|^text input must of type `str`|"
     r"^when tokenizing batches of text, `text_pair` must be|^batch length of `text`: %s does not match",
     "The tokenizer got no text, or a value that is not a string / list of strings (None or a number in a dataset "
     "column, a column name typo in the map function).",
     ["filter or fix the rows: dataset.filter(lambda x: isinstance(x['text'], str)); pass the right column "
      "(tokenizer(batch['text'], ...)); text and text_pair of the same batch length"]),
    (r"^Using (?:bos|eos|unk|sep|cls|mask)_token, but it is not set yet|^Cannot set a non-string value as the|"
     r"^Special token %s has to be either str or AddedToken|^Key %s is not a (?:valid )?special token|"
     r"^Tokens? %s for key %s should",
     "A special token was used but the tokenizer defines none of that kind, or was set to something that is not a "
     "string / AddedToken, or under a name that is not a special-token key.",
     ["tokenizer.add_special_tokens({'<kind>_token': '<token string>'}) (bos/eos/unk/sep/pad/cls/mask) and "
      "model.resize_token_embeddings(len(tokenizer)) when the vocabulary grew"]),
    (r"^Unable to load vocabulary from file|^Calling %s\.from_pretrained\(\) with the path to a single file or url",
     "AutoTokenizer / a tokenizer's from_pretrained could not read the vocabulary it was pointed at (a file path "
     "instead of the model folder, or a damaged / Git LFS pointer vocabulary file).",
     ["pass the folder (or Hub id) that holds tokenizer_config.json and the vocabulary files; git lfs pull in a "
      "cloned model repository"]),
    (r"does not have a mask token which is necessary for masked language modeling",
     "DataCollatorForLanguageModeling(mlm=True) (its default) got a tokenizer without a mask token, i.e. a causal "
     "LM's tokenizer.",
     ["DataCollatorForLanguageModeling(tokenizer, mlm=False) for causal language modeling (the message's own "
      "advice)"]),
    (r"^mlm_probability should be between 0 and 1|^Whole word masking can only be used with mlm=True|"
     r"^The sum of mask_replace_prob and random_replace_prob|^(?:mask|random)_replace_prob should be between|"
     r"^return_tensors must be one of",
     "DataCollatorForLanguageModeling got probabilities outside [0, 1], whole-word masking without mlm, or a "
     "return_tensors it does not support.",
     ["mlm_probability=0.15, mask_replace_prob + random_replace_prob <= 1, whole_word_mask only with mlm=True, "
      "return_tensors='pt'"]),
    # -- transformers/modeling_utils.py: from_pretrained's files
    (r"but there is a file for (?:TensorFlow|Flax) weights|^We found a TensorFlow checkpoint at",
     "from_pretrained found only TensorFlow / Flax weights in the folder or repository, no PyTorch ones.",
     ["from_pretrained(path, from_tf=True) / from_flax=True (the message's own advice; needs TensorFlow / Flax "
      "installed), or load a repository that has PyTorch / safetensors weights"]),
    (r"but there is a file without the variant %s",
     "from_pretrained(variant=...) asked for weights of a variant (fp16, ema ...) the folder does not have.",
     ["variant=None (the message's own advice), or the variant that the folder lists"]),
    (r"and thus cannot be loaded with `safetensors`",
     "from_pretrained(use_safetensors=True) and the folder has no .safetensors weights.",
     ["use_safetensors=None/False (the message's own advice), or convert and save with "
      "model.save_pretrained(path, safe_serialization=True)"]),
    (r"^%s does not appear to have a file named|^Error no file named %s",
     "from_pretrained got a folder or Hub repository without the weights file it looks for (model.safetensors, "
     "pytorch_model.bin or their .index.json): a DeepSpeed / FSDP checkpoint folder (global_stepN) instead of a "
     "saved model, an unfinished download, or a path one level off.",
     ["point it at the folder that holds config.json and the weights (ls it); for a DeepSpeed ZeRO checkpoint run "
      "its zero_to_fp32.py and save_pretrained the result; for a Trainer checkpoint the checkpoint-N folder"]),
    (r"^Can't load the model for '%s'|^Can't load tokenizer for '%s'|^Can't load the configuration of '%s'",
     "from_pretrained could not find the model / tokenizer: the name is neither a local folder with the files nor "
     "a Hub repository this process can read (a typo, a local folder of the same name shadowing the Hub id, no "
     "network or HF_HUB_OFFLINE=1 with an empty cache, a gated / private repository without a token).",
     ["check the path exists and holds config.json (or tokenizer files); rename a local folder that shadows the Hub "
      "id; on nodes without internet download first (huggingface-cli download <id>) and share HF_HOME; "
      "huggingface-cli login for gated models"]),
    (r"You seem to have cloned a repository without having git-lfs installed",
     "The model folder holds Git LFS pointer files instead of the weights: it was cloned without git-lfs.",
     ["git lfs install && git lfs pull in the folder (the message's own advice), or huggingface-cli download <id>"]),
    (r"^Unable to load weights from pytorch checkpoint file|^The state dictionary of the model you are trying to "
     r"load is corrupted|^Unable to locate the file %s which is necessary|^Can't find a checkpoint index|"
     r"^The safetensors archive passed at %s does not contain the valid metadata|^Incompatible safetensors file|"
     r"^Cannot load safetensors of unknown dtype|^The transformers file in the config seems to be incorrect",
     "from_pretrained could not read the weights: a truncated or damaged file (an interrupted download or save, a "
     "full disk), an index that names shards that are missing, or a file written by another library.",
     ["download again (from_pretrained(..., force_download=True) or delete the model from the HF cache: "
      "huggingface-cli delete-cache) and compare file sizes with the repository; re-save with save_pretrained"]),
    (r"^Loading a (?:TensorFlow|Flax) model in PyTorch, requires both",
     "from_pretrained(from_tf=True / from_flax=True) needs TensorFlow / Flax installed to convert the weights.",
     ["pip install tensorflow (or flax), or load PyTorch weights of the model"]),
    # -- transformers/modeling_utils.py: attention implementations
    (r"the package for FlashAttention%s doesn't seem to be installed|the package flash_attn seems to be not installed|"
     r"you need flash_attn package version to be greater|Flash Attention 2 is not available|"
     r"FlashAttention%s requires at least version|^Kernels are not available",
     "from_pretrained(attn_implementation='flash_attention_2' / _3) and the flash-attn package is missing or too old "
     "in this environment (it is a separate compiled package, built for one torch / CUDA).",
     ["pip install flash-attn --no-build-isolation (a wheel built for this torch and CUDA), or "
      "attn_implementation='sdpa' (torch's own fused attention, no extra package)"]),
    (r"FlashAttention%s requires compute capability >= %s",
     "flash_attention_2 needs an Ampere or newer GPU (compute capability 8.0+); this GPU is older (V100, T4).",
     ["attn_implementation='sdpa' (or 'eager') on this GPU"]),
    (r"FlashAttention%s is not available on CPU|You are attempting to use Flash Attention (?:%s|2\.0) with a model "
     r"(?:not initialized on GPU|dispatched on CPU or disk)",
     "flash_attention_2 runs on the GPU only and the model was loaded on the CPU (no device_map, or layers "
     "offloaded to CPU / disk), or no GPU is visible.",
     ["load on the GPU: from_pretrained(..., attn_implementation='flash_attention_2', dtype=torch.bfloat16, "
      "device_map='cuda'), or attn_implementation='sdpa' when the model must stay on the CPU"]),
    (r"does not support Flash Attention|does not support an attention implementation through "
     r"torch\.nn\.functional\.scaled_dot_product_attention|does not support an attention implementation through "
     r"torch's flex_attention|^Specified `attn_implementation=\"%s\"` is not supported|"
     r"is not a valid attention implementation registered|^Requested Flash Attention %s which is not supported|"
     r"^Both attn_implementation=\"%s\" and `use_flash_attention_2=True`",
     "from_pretrained(attn_implementation=...) asked for an attention implementation this model class does not "
     "have (or gave two ways at once).",
     ["attn_implementation='eager' or another that the message lists (drop use_flash_attention_2=True, the old "
      "spelling)"]),
    (r"does not support gradient checkpointing|is not compatible with gradient checkpointing|"
     r"does not support activation checkpointing",
     "gradient_checkpointing_enable() / TrainingArguments(gradient_checkpointing=True) on a model class that does "
     "not implement it.",
     ["gradient_checkpointing=False for this model (reduce the batch or sequence length instead), or a model class "
      "that supports it"]),
    # -- transformers/modeling_utils.py: quantized models, device_map, dtype
    (r"^`\.half\(\)` is not supported for quantized model|^`\.float\(\)` is not supported for quantized model|"
     r"^Calling `cuda\(\)` is not supported for `(?:8-bit|4-bit)|^`\.to` is not supported for `4-bit` or `8-bit`|"
     r"^You cannot cast a (?:bitsandbytes|GPTQ) model in a new `dtype`|^Casting a Quark quantized model",
     "A model loaded quantized (bitsandbytes 8/4-bit, GPTQ) was moved or cast afterwards (.cuda(), .to(...), "
     ".half()); from_pretrained already placed and typed it.",
     ["drop the .cuda() / .to() / .half() call; choose the placement and dtype at load time: "
      "from_pretrained(..., quantization_config=..., device_map={'': local_rank}, dtype=torch.bfloat16)"]),
    (r"^When passing device_map as a string, the value needs to be|^You can't pass device_map as a negative int|"
     r"^Passing along a `device_map` requires `low_cpu_mem_usage=True`|does not support `device_map='%s'`",
     "from_pretrained got a device_map it cannot use: an unknown string, a negative index, or 'auto' on a model "
     "class without _no_split_modules.",
     ["device_map='auto' | 'cuda' | 'cpu' | {'': local_rank} (one whole copy per process under DDP)"]),
    (r"^DeepSpeed Zero-3 is not compatible with `low_cpu_mem_usage=True` or with passing a `device_map`",
     "from_pretrained under DeepSpeed ZeRO-3 (the Trainer's --deepspeed / accelerate's zero3_init_flag) partitions "
     "the weights while loading; device_map / low_cpu_mem_usage place them another way.",
     ["drop device_map= and low_cpu_mem_usage= from from_pretrained when training with ZeRO-3"]),
    (r"^If you want to offload some keys to `cpu` or `disk`, you need to set|^Some modules are dispatched on the "
     r"CPU or the disk\. Make sure you have enough GPU RAM",
     "device_map='auto' put part of an 8-bit / 4-bit model on the CPU or disk because it does not fit the GPU "
     "memory; quantized layers cannot run there.",
     ["a GPU with more free memory, 4-bit instead of 8-bit, or BitsAndBytesConfig(llm_int8_enable_fp32_cpu_offload="
      "True) with a device_map that keeps the quantized layers on the GPU (the message's advice)"]),
    (r"^You can't pass `load_in_8bit` or any other `BitsAndBytesConfig` argument as a kwarg|"
     r"^The model is already quantized with %s\. You can't quantize it again|"
     r"^Invalid type for `quantization_config`",
     "from_pretrained got quantization twice (load_in_8bit= together with quantization_config=, or a config for an "
     "already quantized checkpoint) or a quantization_config of the wrong type.",
     ["pass only quantization_config=BitsAndBytesConfig(load_in_4bit=True, ...); load a pre-quantized checkpoint "
      "without one"]),
    (r"^GPU is required to (?:quantize or run quantize model|run AWQ quantized model)|"
     r"^Loading a GPTQ quantized model requires|^Loading an AWQ quantized model requires auto-awq|"
     r"^You need a version of auto_gptq",
     "Loading a GPTQ / AWQ quantized model needs a visible GPU and its quantization packages.",
     ["run on a node with a GPU visible to the process (CUDA_VISIBLE_DEVICES), and pip install the packages the "
      "message names (optimum, auto-gptq / gptqmodel, autoawq)"]),
    (r"^You are calling `save_pretrained` on a 4-bit converted model|^The model is quantized with %s and is not "
     r"serializable|^You cannot save an AWQ model that uses fused modules|^You are calling `save_pretrained` to a "
     r"8-bit converted model",
     "save_pretrained of a quantized base model that this transformers / bitsandbytes cannot serialise.",
     ["save only the trained adapter (PeftModel.save_pretrained), or merge into an unquantized copy of the base "
      "model and save that; upgrade bitsandbytes / transformers for 4-bit serialisation"]),
    (r"^Multiple active adapters detected, saving multiple active adapters is not supported",
     "save_pretrained on a model with several active PEFT adapters.",
     ["model.set_adapter(name) and save_pretrained for each adapter in turn (the message's own advice)"]),
    (r"^Parameter config in `%s\(config\)` should be an instance of class `Pretrained?Config`",
     "A model class was called with something that is not a config (a model name string or a dict).",
     ["Model.from_pretrained('<name or path>') for weights, or Model(AutoConfig.from_pretrained('<name>')) for a "
      "fresh model (the message's own advice)"]),
    (r"^`dtype` can be one of|^`dtype` provided as a `str` can only be|^`torch_dtype` can be either `torch\.dtype`|"
     r"^`dtype` is not a valid dtype|^Can't instantiate %s model under dtype=%s since it is not a floating point",
     "from_pretrained got a dtype / torch_dtype that is not a torch floating dtype or 'auto' (a string like "
     "'bf16', or an integer dtype).",
     ["dtype=torch.bfloat16 (or 'auto' / 'bfloat16' / 'float16'); torch_dtype= in transformers before 4.56"]),
    (r"^`token` and `use_auth_token` are both specified",
     "from_pretrained got the Hub token twice (use_auth_token is the old name).",
     ["pass only token=..."]),
    # -- transformers/utils/hub.py (the Hub download every from_pretrained goes through; https://huggingface.co/docs/
    # transformers/installation#offline-mode, https://huggingface.co/docs/huggingface_hub/guides/manage-cache)
    (r"^We couldn't connect to '%s' to load|^There was a specific connection error when "
     r"trying to load",
     "transformers/utils/hub.py cached_files(): the Hub could not be reached and the files are not in the local "
     "cache: compute nodes without internet (usual on clusters), a proxy / firewall, or HF_HOME pointing at an "
     "empty cache on this node.",
     ["download once where there is internet (huggingface-cli download <model id>, into an HF_HOME every node "
      "mounts), then run the job with HF_HUB_OFFLINE=1 and the same HF_HOME; or pass the local folder path to "
      "from_pretrained"]),
    (r"is a gated repository\. Make sure to request access|^You are trying to access a gated repo",
     "The model is gated on the Hub: this account has not been granted access, or the job runs without a token.",
     ["request access on the model's page, then give the job a token: huggingface-cli login (its token file in "
      "HF_HOME) or export HF_TOKEN=<token> in the job script"]),
    (r"is not a local folder and is not a valid model identifier listed on|"
     r"is not a local folder or a valid repository name on",
     "from_pretrained got a name that is neither an existing local folder (a relative path resolved against the "
     "job's working directory) nor a Hub repository this token can see (a typo, or a private repository).",
     ["give the absolute path of the model folder, or the exact Hub id (owner/name); for a private repository "
      "huggingface-cli login / HF_TOKEN"]),
    (r"is not a valid git identifier \(branch name, tag name or commit id\)",
     "from_pretrained(revision=...) names a branch, tag or commit the repository does not have.",
     ["revision='main' or a commit / tag listed on the model page"]),
    (r"^PermissionError at %s when downloading %s\. Check cache directory permissions",
     "The Hugging Face cache folder is not writable by this user (a shared HF_HOME created by another user) or "
     "another process holds its lock while downloading the same files.",
     ["export HF_HOME to a folder this user owns (or fix the shared cache's group permissions); download once before "
      "the launch instead of from every rank"]),
    (r"^%s does not appear to have %s\. Checkout 'https://huggingface\.co/%s/tree/%s' for available files",
     "The Hub repository (or the subfolder asked for) lacks the file from_pretrained looks for (config.json, the "
     "weights, the tokenizer files).",
     ["open the repository's file list (the message's link) and pass subfolder= / the repository that holds the "
      "files"]),
    (r"^`size` is not in a valid format\. Use an integer followed by the unit",
     "save_pretrained(max_shard_size=...) got a size it cannot parse.",
     ["max_shard_size='5GB' (an integer and a unit, the message's own form)"]),
    # -- transformers/configuration_utils.py, generation/configuration_utils.py
    (r"^It looks like the config file at '%s' is not a valid JSON file",
     "config.json (or generation_config.json) is not JSON: a Git LFS pointer, an HTML error page saved in its "
     "place, or a truncated download.",
     ["download the model again (huggingface-cli download <id>, or delete it from the HF cache) and check the file "
      "with python -m json.tool config.json"]),
    (r"^`problem_type=\"single_label_classification\"` requires `num_labels > 1`",
     "A sequence-classification config has one label with single_label_classification.",
     ["num_labels=2 for binary classification, or problem_type='regression' (the message's own advice)"]),
    (r"^The `output_attentions` attribute is not supported when using the `attn_implementation` set to",
     "output_attentions=True needs the eager attention; the model runs sdpa / flash attention.",
     ["from_pretrained(..., attn_implementation='eager') when attention weights are needed (the message's own "
      "advice)"]),
    (r"^The embed_dim \(%s\) is not a multiple of the number of attention heads",
     "The model config's hidden size is not a multiple of num_attention_heads.",
     ["choose hidden_size and num_attention_heads so that hidden_size % num_attention_heads == 0"]),
    (r"^%s accepts only keyword arguments, but found `%s` positional args",
     "A config class was called with positional arguments.",
     ["pass keywords: Config(hidden_size=..., num_hidden_layers=...)"]),
    # -- transformers/generation/utils.py (generate()), https://huggingface.co/docs/transformers/main_classes/text_generation
    (r"^The following `model_kwargs` are not used by the model",
     "generate() got keyword arguments the model's forward does not take: a typo in a generation argument, or a "
     "tokenizer output key the model has no input for (token_type_ids for most decoder-only models).",
     ["pass only what the model takes: model.generate(input_ids=enc['input_ids'], attention_mask="
      "enc['attention_mask'], ...) or tokenizer(..., return_token_type_ids=False); fix the misspelt argument"]),
    (r"^Greedy methods \(do_sample != True\) without beam search do not support `num_return_sequences`|"
     r"^`num_return_sequences` \(%s\) has to be smaller or equal to `num_beams`|"
     r"^num_return_sequences has to be 1 when doing assisted generate",
     "generate(num_return_sequences=n) needs sampling or at least n beams.",
     ["do_sample=True (with temperature / top_p) or num_beams >= num_return_sequences"]),
    (r"^`max_new_tokens` must be greater than 0|^`early_stopping` must be a boolean or 'never'|"
     r"^Argument `%s` is not a valid argument of `GenerationConfig`|^GenerationConfig is invalid|"
     r"^Invalid `cache_implementation`|^Invalid value for `do_sample`",
     "A generation setting is outside what GenerationConfig takes (the message names it), or was put in "
     "GenerationConfig though it is an argument of generate().",
     ["max_new_tokens >= 1, do_sample True/False, early_stopping True/False/'never', cache_implementation one the "
      "message lists; pass non-config arguments to generate() directly (the message's own advice)"]),
    (r"^`streamer` cannot be used with beam search",
     "generate(streamer=...) works with num_beams=1 only.",
     ["num_beams=1 when streaming (the message's own advice)"]),
    (r"^`attention_mask` passed to `generate` must be 2D|^inputs must be a 1D or 2D tensor|"
     r"^You passed `inputs_embeds` and `input_ids` to `\.generate\(\)`|^`inputs`: %s` were passed alongside",
     "generate() got inputs of the wrong shape, or the same input twice (inputs and input_ids, input_ids and "
     "inputs_embeds).",
     ["pass input_ids (batch, seq) and a 2-D attention_mask from the tokenizer (return_tensors='pt'), one input "
      "form only"]),
    (r"^`bos_token_id` has to be defined when no `input_ids` are provided|"
     r"^`decoder_start_token_id` or `bos_token_id` has to be defined",
     "generate() got no input_ids and the generation config has no start token to begin from.",
     ["pass input_ids (the prompt), or set model.generation_config.bos_token_id / decoder_start_token_id"]),
    (r"requires `trust_remote_code=True` in your `generate` call",
     "generate(custom_generate=...) loads code from the Hub and needs trust_remote_code.",
     ["generate(..., trust_remote_code=True) if you trust that repository (the message's own advice)"]),
    (r"^There are one or more stop strings, either in the arguments to `generate`",
     "stop_strings need the tokenizer to find them in the output.",
     ["generate(..., stop_strings=[...], tokenizer=tokenizer)"]),
    (r"^You have modified the pretrained model configuration to control generation",
     "Generation parameters were set on model.config, which generate() no longer reads.",
     ["set them on model.generation_config (or pass them to generate())"]),
    # -- transformers/trainer_optimizer.py (TrainingArguments(optim=...))
    (r"^Layer-?wise %s does not support (?:DDP|gradient accumulation)",
     "A layer-wise optimizer (GaLore / APOLLO *_layerwise) steps inside backward, so it works in one process and "
     "without gradient accumulation.",
     ["the non-layerwise optim (e.g. galore_adamw), or one process with gradient_accumulation_steps=1"]),
    (r"^You need to define `optim_target_modules` to use %s optimizers|^`optim_target_modules` must be a list|"
     r"^No target modules found for %s",
     "TrainingArguments(optim='galore_*' / 'apollo_*') needs optim_target_modules naming the layers it projects.",
     ["optim_target_modules=['attn', 'mlp'] (names or a regex matching modules of print(model)), or "
      "'all-linear'"]),
    (r"^You need to install `[\w-]+` in order to use|^Please install grokadamw|^Please install https://github\.com/"
     r"pytorch/torchdistx",
     "TrainingArguments(optim=...) names an optimizer from a package that is not installed.",
     ["pip install the package the message names in the job's environment, or another optim (adamw_torch)"]),
    # -- deepspeed/runtime/engine.py, zero/stage_1_and_2.py, zero/stage3.py: more of their checks (lib-coverage 6)
    (r"^Loss scaling is required for this configuration, but backward\(\) was called directly",
     "loss.backward() was called on a DeepSpeed model with fp16 loss scaling: the loss was never scaled.",
     ["engine.backward(loss), or engine.scale(loss).backward() (the message's own advice)"]),
    (r"^You are using ZeRO-Offload with a client provided optimizer",
     "ZeRO-Offload (offload_optimizer: cpu) got a client torch optimizer, which runs slowly on the CPU; DeepSpeed "
     "refuses it by default.",
     ["use deepspeed.ops.adam.DeepSpeedCPUAdam or an \"optimizer\" section in the config; or set "
      "\"zero_force_ds_cpu_optimizer\": false to keep it (the message's own advice)"]),
    (r"^The deprecated version of ZeRO Stage 1 is not supported in deepspeed >= 0\.5\.9",
     "The config asks for the pre-0.5.9 ZeRO stage 1 implementation (a config written for an old DeepSpeed).",
     ["drop the old stage-1 options and use \"zero_optimization\": {\"stage\": 1}, or the DeepSpeed release the "
      "config was written for (the message's own advice)"]),
    (r"^Training data must be a torch Dataset",
     "deepspeed.initialize(training_data=...) got something that is not a torch.utils.data.Dataset (a DataLoader "
     "or a list).",
     ["pass the Dataset (DeepSpeed builds the loader), or leave training_data out and iterate your own DataLoader"]),
    (r"^unsupported mix of model_dtype=%s and grad_accum_dtype=%s|^unsupported mix of model dtype and gradient "
     r"accumulation type|^Bfloat16 wrapper must use a gradient accumulation type of fp32|"
     r"^data_types\.param_dtype='%s' conflicts with the enabled precision mode",
     "The config's data_types (grad_accum_dtype / param_dtype) do not fit the enabled precision (bf16 / fp16) and "
     "ZeRO stage.",
     ["\"data_types\": {\"grad_accum_dtype\": \"fp32\"} with bf16 (or omit data_types); param_dtype only matching "
      "the enabled fp16 / bf16 section (the message's own advice)"]),
    (r"^DeepSpeed %s optimizer requires dynamic loss scaling",
     "A DeepSpeed optimizer (1-bit Adam, Lamb ...) needs fp16's dynamic loss scaling and the config fixes the "
     "scale.",
     ["\"fp16\": {\"enabled\": true, \"loss_scale\": 0} (0 = dynamic)"]),
    (r"^Amp and ZeRO are not currently compatible|^Cannot enable both amp with|^Model data type and gradient "
     r"accumulation data type must be equal to use Amp|^Unable to import apex/amp",
     "The config enables NVIDIA Apex amp together with ZeRO or fp16 / bf16, or Apex is missing.",
     ["drop the \"amp\" section and use \"fp16\" / \"bf16\" (DeepSpeed's own mixed precision)"]),
    (r"^(?:1bit-Adam|0/1 Adam|1bit-Lamb) is not compatible with ZeRO",
     "The 1-bit / 0-1 optimizers of DeepSpeed cannot be combined with ZeRO.",
     ["\"zero_optimization\": {\"stage\": 0} with them, or Adam / Lamb with ZeRO"]),
    (r"^%s is enabled but the following parameters have dtype that is not %s",
     "fp16 / bf16 is enabled but some parameters have another dtype (the model was cast by hand, or modules were "
     "added after deepspeed.zero.Init).",
     ["leave the casting to DeepSpeed (do not .half() / .bfloat16() parts of the model yourself), or build the "
      "whole model inside zero.Init(config_dict_or_path=ds_config)"]),
    (r"^zero_optimization\.compute_grad_norm=false (?:requires gradient_clipping=0|does not support)|"
     r"^Cannot load a checkpoint with gradient clipping into zero_optimization\.compute_grad_norm=false",
     "zero_optimization.compute_grad_norm=false skips the gradient norm, which gradient clipping and optimizer "
     "offload need.",
     ["set \"gradient_clipping\": 0 and no offload_optimizer with compute_grad_norm=false, or leave "
      "compute_grad_norm at its default (true)"]),
    (r"must be set to True for MoE\. Other code paths are not tested with MoE|"
     r"^The model has moe layers, but None of the param groups are marked as MoE",
     "ZeRO stage 2 with MoE layers needs contiguous_gradients and reduce_scatter on, and the expert parameters in a "
     "param group marked 'moe'.",
     ["\"contiguous_gradients\": true, \"reduce_scatter\": true; split the params with "
      "deepspeed.moe.utils.split_params_into_different_moe_groups_for_optimizer (the message's advice)"]),
    (r"gradient_predivide_factor != 1\.0 is not yet supported with|^pre-scale gradients is not yet supported with|"
     r"supports %s communication_data_type with reduce scatter enabled",
     "With reduce_scatter on, ZeRO does not support gradient_predivide_factor, prescale_gradients or that "
     "communication_data_type.",
     ["drop gradient_predivide_factor / prescale_gradients, use a communication_data_type the message lists, or "
      "\"reduce_scatter\": false"]),
    (r"containing optimizer global state is missing! Cannot proceed|^Empty ds_version in checkpoint|"
     r"^State dicts of all partitions must have the same step value|"
     r"^The ZeRO checkpoint parameter-alignment layout does not match|^Invalid for universal checkpoint: %s does not",
     "load_checkpoint found an incomplete or mixed ZeRO checkpoint: shards missing or from different steps / "
     "runs, a layout saved with other settings, or a universal checkpoint that was never converted.",
     ["load a complete checkpoint tag saved by one run with the same ZeRO settings; for another world size convert "
      "it with ds_to_universal.py first; load_module_only=True to restart the optimizer"]),
    (r"^client_state contains reserved checkpoint keys?",
     "save_checkpoint(client_state=...) uses a key DeepSpeed stores itself.",
     ["rename that key of client_state (e.g. prefix it with your project name)"]),
    (r"^Failed saving model checkpoint to %s with tag %s|^save_dir must be a non-empty string",
     "save_checkpoint could not write the checkpoint (no save_dir, or the folder is not writable / the disk is "
     "full).",
     ["pass a save_dir every rank can write to (shared storage), and check df -h / quota there"]),
    (r"Invalid to reduce Param %s with None gradient",
     "ZeRO stage 1/2 found a trainable parameter without a gradient when reducing (the forward did not use it).",
     ["\"zero_optimization\": {\"ignore_unused_parameters\": true}, or freeze the unused parameters"]),
    (r"^ZeRO-3 does not yet support checkpointing with NVMe offloading|"
     r"^Elasticity is not currently supported with model parallelism",
     "This DeepSpeed release does not support the combination the message names.",
     ["turn one of the two features off in the DeepSpeed config (the message names them), or upgrade DeepSpeed"]),
    # -- transformers/modeling_utils.py, tokenization_utils_base.py: more of their checks (lib-coverage 6)
    (r"cannot be instantiated under `dtype=%s` as it's not a floating-point dtype|"
     r"^Cannot set `%s` as torch's default as it's not a floating-point dtype",
     "from_pretrained(dtype=...) got an integer or bool dtype.",
     ["dtype=torch.bfloat16 / torch.float16 / 'auto' (quantize with a quantization_config instead)"]),
    (r"^The weights trying to be saved contained shared tensors %s which are not properly defined",
     "save_pretrained (safetensors) found tensors that share memory but are not declared as tied weights of the "
     "model class (weights tied by hand, or a custom head).",
     ["declare the tie (the class's _tied_weights_keys / model.tie_weights()), clone the tensor that should not be "
      "shared, or save_pretrained(..., safe_serialization=False)"]),
    (r"^Asking to pad the embedding matrix to a multiple of|^Old embeddings are of type|"
     r"^Old language model head is of type",
     "resize_token_embeddings got a non-integer pad_to_multiple_of, or the model's embeddings / LM head are not "
     "nn.Embedding / nn.Linear (a quantized or custom layer).",
     ["model.resize_token_embeddings(len(tokenizer), pad_to_multiple_of=64) with an int; resize before "
      "quantizing or wrapping the model"]),
    (r"is not available when using (?:Python based|non-fast) tokenizers|^You cannot use ``already_has_special_tokens"
     r"=False`` with this tokenizer|^Unable to create tensor returning overflowing tokens of different lengths",
     "The call needs a fast (Rust) tokenizer (word_ids(), offsets, overflowing tokens) and a Python tokenizer was "
     "loaded.",
     ["AutoTokenizer.from_pretrained(name, use_fast=True) (pip install tokenizers), or avoid that method"]),
    (r"^Unable to convert output to (?:PyTorch|TensorFlow|JAX|MLX) tensors format, \w+ is not installed",
     "tokenizer(..., return_tensors=...) asked for tensors of a framework this environment lacks.",
     ["return_tensors='pt' with torch installed in the job's environment (python -c 'import torch')"]),
    (r"^Some items in the output dictionary have a different batch size than others",
     "BatchEncoding got columns with different numbers of examples (a collator mixing padded and unpadded fields).",
     ["give every field the same batch length (pad them together with tokenizer.pad(...) / a data collator)"]),
    (r"^Unable to load tokenizer model from SPM",
     "A SentencePiece tokenizer file could not be read (sentencepiece / protobuf missing, or the vocabulary is not "
     "a SentencePiece model).",
     ["pip install sentencepiece protobuf, and point the tokenizer at the model's own tokenizer.model"]),
    (r"^Only fast tokenizers \(instances of PreTrainedTokenizerFast\) can be saved in non legacy format",
     "save_pretrained(legacy_format=False) on a Python (slow) tokenizer.",
     ["save_pretrained(path) (legacy format) or load the fast tokenizer (use_fast=True)"]),
    (r"^We need to remove %s to truncate the input but the second sequence has a length|"
     r"^Not possible to return overflowing tokens for pair of sequences with the `longest_first`|"
     r"^Asking to return token_type_ids while setting add_special_tokens to False",
     "A tokenizer call on a pair of texts asks for a truncation or output that strategy cannot give.",
     ["truncation='only_first' (or 'longest_first' without return_overflowing_tokens); add_special_tokens=True "
      "when asking for token_type_ids"]),
    (r"^Flash Attention 2 and BetterTransformer API are not compatible|^PyTorch SDPA requirements in Transformers "
     r"are not met",
     "flash_attention_2 was combined with BetterTransformer, or sdpa was asked for with torch older than 2.1.1.",
     ["model.reverse_bettertransformer() before using flash attention (the message's advice); pip install "
      "'torch>=2.1.1' for sdpa"]),
    (r"^The current `device_map` had weights offloaded to the disk\. Please provide an `offload_folder`|"
     r"^You are attempting to load an AWQ model with a device_map that contains a CPU or disk device",
     "device_map put weights on the disk (or CPU for AWQ): the model does not fit the GPUs.",
     ["from_pretrained(..., offload_folder='<folder>') (the message's advice), more / larger GPUs, or a quantized "
      "model; AWQ models only on GPUs"]),
    (r"^You have a version of `bitsandbytes` that is not compatible with 4bit|"
     r"^Converting into 4-bit or 8-bit weights from tf/flax weights",
     "4-bit / 8-bit loading needs a recent bitsandbytes and PyTorch weights.",
     ["pip install -U bitsandbytes; load a repository with PyTorch / safetensors weights"]),
    # -- accelerate: data_loader.py, utils/operations.py, utils/modeling.py, big_modeling.py, utils/fsdp_utils.py,
    # checkpointing.py (lib-coverage; https://huggingface.co/docs/accelerate/package_reference/accelerator)
    (r"^Cannot apply desired operation due to shape mismatches\. All shapes across devices must be valid",
     "accelerate's gather / reduce / broadcast (with ACCELERATE_DEBUG_MODE) found tensors of different shapes on "
     "the processes: variable-length outputs (generated tokens, per-sample predictions) gathered without padding.",
     ["accelerator.pad_across_processes(t, dim=1, pad_index=pad_id) before accelerator.gather_for_metrics(t)",
      "when the shapes come from the batches themselves, pad every batch to one length (tokenizer(..., "
      "padding='max_length', max_length=N) or a padding collate_fn)"]),
    (r"^One or more of the tensors passed to (?:%s|`gather`) were not on the",
     "A tensor passed to accelerate's gather / reduce is on another device than the Accelerator's.",
     ["move it first: t.to(accelerator.device) (the message's own advice)"]),
    (r"needs to be a round multiple of the number of processes",
     "split_batches=True splits each batch across the processes, so the batch size must divide by the number of "
     "processes.",
     ["a batch size that is a multiple of num_processes, or split_batches=False (each process gets its own "
      "batch_size)"]),
    (r"^You can't use batches of different size with `dispatch_batches=True`",
     "dispatch_batches=True (the default for IterableDatasets) sends slices of one batch from process 0, which "
     "needs batches of equal size.",
     ["DataLoaderConfiguration(dispatch_batches=False) (the message's advice), or drop_last=True"]),
    (r"^In order to use `split_batches==True` you must have a `batch_size` attribute|^You need to use "
     r"`even_batches=False` when the batch sampler has no batch size|"
     r"^Using `dispatch_batches=True` requires `put_on_device=True`",
     "accelerate's prepare() cannot split or dispatch this DataLoader as configured.",
     ["build the DataLoader with batch_size= (not only a custom batch_sampler), or split_batches=False; "
      "dispatch_batches with put_on_device=True"]),
    (r"^StatefulDataLoader is not available",
     "use_stateful_dataloader=True needs torchdata 0.8 or newer.",
     ["pip install 'torchdata>=0.8.0', or DataLoaderConfiguration(use_stateful_dataloader=False)"]),
    (r"^Cannot pickle a prepared model with automatic mixed precision",
     "A model prepared with mixed precision was pickled (torch.save(model) / deepcopy).",
     ["accelerator.unwrap_model(model) first, and save its state_dict (the message's own advice)"]),
    (r"^We need an `offload_dir` to dispatch this model|^At least one of the model submodule will be offloaded to "
     r"disk, please pass along an `offload_folder`|^You are trying to offload the whole model to the disk",
     "device_map='auto' puts part of the model on the disk (it does not fit the GPUs and CPU memory) and no "
     "offload folder was given.",
     ["offload_folder='<fast local disk folder>' (the message's advice), or more GPUs / a smaller or quantized "
      "model"]),
    (r"^You can't move a model that has some modules offloaded to cpu or disk",
     "A model dispatched by device_map with CPU / disk offload was moved with .to() / .cuda().",
     ["do not move a dispatched model; load it without device_map (or device_map={'': 0}) when it fits one GPU"]),
    (r"^The device_map provided does not give any device for the following parameters|"
     r"^The `device_map` does not contain the module|^Device %s is not recognized, available devices are",
     "A hand-written device_map misses some modules / parameters or names a device accelerate does not know.",
     ["cover every module (infer_auto_device_map(model, max_memory=...) builds one), with devices given as GPU "
      "integers, 'cpu' or 'disk'"]),
    (r"^`checkpoint` should be the path to a file containing a whole state dict|"
     r"is not a folder containing a `\.index\.json` file|containing more than one `\.index\.json` file",
     "load_checkpoint_and_dispatch / load_checkpoint_in_model got a path that is not a state-dict file, a sharded "
     "index or a folder with exactly one index.",
     ["pass the model folder with one *.index.json (or the single weights file); delete stray index files"]),
    (r"^Set the `sync_module_states` flag to `True` so that model states are synced across processes",
     "FSDP's cpu_ram_efficient_loading loads the weights on rank 0 only, so the other ranks need "
     "sync_module_states.",
     ["fsdp_sync_module_states: true in the accelerate config (the message's own advice)"]),
    (r"^Parameter '%s' found in sharded model state dict but missing from full state dict",
     "Loading a full state dict into an FSDP2 model: the checkpoint lacks parameters the model has (another "
     "model, or keys with another prefix).",
     ["load the checkpoint of this model (compare the keys; strip a 'module.' / '_orig_mod.' prefix)"]),
    (r"^Unsupported optimizer map location passed",
     "accelerator.load_state(map_location=...) got a value other than None, 'cpu' or 'on_device'.",
     ["load_state(path, map_location='cpu') or 'on_device'"]),
    (r"^Cannot find the batch size from empty|^Can only find the batch size of tensors",
     "accelerate could not read the batch size from a batch (empty, or no tensors in it).",
     ["return tensors (or dicts / lists of tensors) from the DataLoader, and no empty batches"]),
    # -- peft (peft/tuners/tuners_utils.py, tuners/lora/, peft_model.py, config.py)
    (r"^Target modules %s not found in the base model",
     "peft/tuners/tuners_utils.py inject_adapter(): no module of the base model matches LoraConfig.target_modules "
     "(names of another architecture, e.g. q_proj / v_proj on a GPT-2 whose attention is c_attn, or a model "
     "wrapped before get_peft_model).",
     ["set target_modules to names print(model) shows (e.g. ['c_attn'] for GPT-2, ['q_proj', 'v_proj'] for Llama), "
      "or target_modules='all-linear'"]),
    (r"^Please specify `target_modules` (?:or `target_parameters`)?\s?in `peft_config`|"
     r"^No `target_modules` passed but also no `target_parameters` found|^All modules were excluded|"
     r"^No modules were targeted for adaptation|^target_modules should (?:be a list or set of strings|not contain)|"
     r"^Invalid type %s found in target_modules",
     "get_peft_model: the LoraConfig targets nothing: target_modules is missing (PEFT knows defaults only for the "
     "architectures in its mapping), empty, of the wrong type, or every target is excluded.",
     ["LoraConfig(target_modules=[...names from print(model)...]) or target_modules='all-linear'; check "
      "exclude_modules / modules_to_save do not cover them"]),
    (r"^Target module %s is not supported\. Currently, only the following modules are supported",
     "LoRA was asked to wrap a module type it cannot adapt (target_modules matched a whole block or a custom layer, "
     "not a Linear / Embedding / Conv).",
     ["name the Linear layers inside the block (e.g. 'self_attn.q_proj', not 'self_attn'), or "
      "target_modules='all-linear'"]),
    (r"^Adapter %s does not exist|^Adapter %s not found|^Trying to infer with non-existing adapter|"
     r"^Found no adapter matching the names in|^Adapter with name '%s' already exists|"
     r"^You passed an invalid `selected_adapters` arguments",
     "A PeftModel call named an adapter that is not loaded (or loaded one under a name in use).",
     ["list the loaded ones (model.peft_config.keys()); load_adapter(path, adapter_name='<new name>') before "
      "set_adapter / delete_adapter / merge"]),
    (r"^Cannot merge LORA layers when the model is gptq quantized|^Cannot merge LORA layers when base model "
     r"layers are replicated|^Cannot delete adapter\(s\) %s while they are merged",
     "merge_and_unload / delete_adapter on a model where LoRA weights cannot be folded (GPTQ base, replicated "
     "layers) or are folded already.",
     ["merge into an unquantized (fp16 / bf16) copy of the base model; unmerge_adapter() before delete_adapter"]),
    (r"^Invalid task type: '%s'\. Must be one of|^The %s config that is trying to be loaded is missing required keys|"
     r"^The input config must be a PeftConfig|^Unknown PEFT type passed",
     "PEFT got a config it cannot use: a task_type outside its TaskType list, an adapter_config.json written by "
     "another PEFT release (missing keys), or not a PeftConfig object.",
     ["task_type='CAUSAL_LM' | 'SEQ_2_SEQ_LM' | 'SEQ_CLS' | 'TOKEN_CLS' ...; load adapters with the PEFT release "
      "that saved them (pip show peft; adapter_config.json names it)"]),
    (r"^Can't find weights for %s in %s or in the Hugging Face Hub",
     "PeftModel.from_pretrained / load_adapter found no adapter_model.safetensors / adapter_model.bin at the path "
     "(a training output folder instead of the checkpoint, or an unfinished save).",
     ["point it at the folder with adapter_config.json and adapter_model.safetensors (the Trainer's checkpoint-N)"]),
    (r"^Multiple invocations of PEFT forward hooks before \.backward\(\) with enabled gradient checkpointing",
     "PEFT's forward hooks ran twice before backward with gradient checkpointing on.",
     ["disable gradient checkpointing or call forward once per backward (the message's own advice)"]),
    (r"does not work with gradient checkpointing\.$",
     "This PEFT method cannot be combined with gradient checkpointing.",
     ["gradient_checkpointing=False with this PEFT method"]),
    (r"^`layers_to_transform` cannot be used when `target_modules` is a str|"
     r"^`layers_pattern` cannot be used when `target_modules` is a str|"
     r"^When `layers_pattern` is specified, `layers_to_transform` must also be specified|"
     r"^`loftq_config` must be specified when `init_lora_weights` is 'loftq'|"
     r"^The argument lora_bias=True is (?:only supported|not supported for DoRA)|^DoRA does not support megatron_core",
     "LoraConfig combines options that exclude each other (the message names them).",
     ["give target_modules as a list when using layers_to_transform / layers_pattern (both together); "
      "loftq_config=LoftQConfig(...) with init_lora_weights='loftq'; lora_bias only without DoRA"]),
    (r"supports only 1 adapter with bias\. When using multiple adapters",
     "Several LoRA adapters were added with bias != 'none'.",
     ["bias='none' for all adapters (the message's own advice)"]),
    (r"^Model does not support past key values which are required for prefix tuning",
     "Prefix tuning needs a model that takes past_key_values.",
     ["use LoRA (or prompt tuning) for this architecture"]),
    # -- peft/tuners/lora/layer.py (the LoRA layers: update_layer, merge / unmerge; lib-coverage)
    (r"^NaNs detected in the merged weights\. The adapter %s seems to be broken",
     "merge / merge_and_unload(safe_merge=True) found NaN in the merged weights: the adapter's weights hold NaN / "
     "Inf (training diverged, often fp16 without loss scaling) or it was trained for another base model.",
     ["check the adapter (any(torch.isnan(p).any() for p in model.parameters())); retrain with bf16 / a lower lr, "
      "and merge into the exact base model it was trained on (load the base in float16 / bfloat16 / float32)"]),
    (r"^`r` should be a positive integer value but the value passed is",
     "LoraConfig(r=...) is 0, negative or not an integer (a rank_pattern entry too).",
     ["LoraConfig(r=8, lora_alpha=16, ...): a positive integer rank"]),
    (r"^Impossible to merge LoRA with `lora_bias=True` because the base layer has no bias",
     "An adapter trained with lora_bias=True cannot be merged into a base layer without a bias.",
     ["keep the adapter unmerged, or train with lora_bias=False when it must be merged"]),
    (r"^Unsupported data type for the base layer|^Please initialize (?:PiSSA|CorDA|MiCA) under float32, float16, or "
     r"bfloat16",
     "A LoRA initialisation (PiSSA / CorDA / MiCA, which decompose the base weights) or the layer met a base weight "
     "of a dtype it cannot use (a quantized or integer weight).",
     ["load the base model in float32 / float16 / bfloat16 for that initialisation and quantize the residual model "
      "afterwards (the message's advice), or init_lora_weights=True"]),
    (r"does not support mixed adapter batches|does not support mixed batch inference",
     "forward(adapter_names=[...]) (several adapters in one batch) on a layer type that cannot do it.",
     ["one adapter per batch: model.set_adapter(name), without adapter_names"]),
    (r"does not support DoRA \(yet\), please set use_dora to False|^Merging is not supported for _ConvNd layers with "
     r"groups > 1|^Targeting a %s with groups=%s and rank %s",
     "The targeted layer type does not support the chosen LoRA option (DoRA, merging grouped convolutions, a rank "
     "not divisible by the conv groups).",
     ["use_dora=False for that layer (the message's advice), keep grouped-conv adapters unmerged, or a rank "
      "divisible by groups"]),
    (r"^Unknown initialization init_lora_weights=",
     "LoraConfig(init_lora_weights=...) got a value PEFT does not know.",
     ["init_lora_weights=True (default), False, 'gaussian', 'pissa', 'olora', 'loftq' ... as the LoraConfig docs "
      "list for this PEFT release"]),
    # -- deepspeed/runtime/engine.py, zero/stage_1_and_2.py, zero/stage3.py
    (r"^DeepSpeed requires the LOCAL_RANK environment variable",
     "deepspeed.initialize found no LOCAL_RANK: the script was started with plain python (or srun) rather than by "
     "a launcher that sets it.",
     ["start it with deepspeed / torchrun / accelerate launch; under srun export LOCAL_RANK=$SLURM_LOCALID (and "
      "RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) or call deepspeed.init_distributed() first"]),
    (r"^LOCAL_RANK \(%s\) != OMPI_COMM_WORLD_LOCAL_RANK|^Mismatch in local rank setting, args\.local_rank=%s but",
     "deepspeed.initialize got two different local ranks: --local_rank from the command line (or mpirun's "
     "OMPI_COMM_WORLD_LOCAL_RANK) disagrees with LOCAL_RANK.",
     ["use one launcher and let it set the rank (do not pass --local_rank by hand); read "
      "int(os.environ['LOCAL_RANK']) in the script"]),
    (r"^You are using an untested ZeRO Optimizer",
     "ZeRO got a client optimizer DeepSpeed has not tested with it (anything but its own Adam / AdamW / Lamb / "
     "Adagrad).",
     ["add \"zero_allow_untested_optimizer\": true to the DeepSpeed config (the message's own advice), or define the "
      "optimizer in the config's \"optimizer\" section"]),
    (r"^loss must be a scalar tensor",
     "engine.backward(loss) got a loss with more than one element (not reduced).",
     ["reduce it first: engine.backward(loss.mean())"]),
    (r"^must provide optimizer during init in order to use (?:backward|step|scale)|^zero stage %s requires an optimizer",
     "The DeepSpeed engine was built without an optimizer (no optimizer= and no \"optimizer\" section) and training "
     "calls need one (ZeRO stages 1-3 always do).",
     ["deepspeed.initialize(model=model, model_parameters=model.parameters(), optimizer=opt) or an \"optimizer\" "
      "section in the config"]),
    (r"has already been reduced\. Gradient computed twice for this partition",
     "ZeRO stage 1/2's gradient hook saw a second gradient for one parameter in one backward: the parameter is used "
     "twice in a way autograd reports separately (reentrant activation checkpointing re-running a block, or two "
     "backward calls before step).",
     ["gradient checkpointing with use_reentrant=False (transformers: gradient_checkpointing_kwargs="
      "{'use_reentrant': False}); one engine.backward per engine.step; ZeRO stage 1 / 3 to compare"]),
    (r"This assert indicates that your module has parameters that\s*were not used in producing loss",
     "ZeRO found trainable parameters without a gradient after backward: the forward did not use them (a branch "
     "not taken, an unused head).",
     ["\"zero_optimization\": {\"ignore_unused_parameters\": true} (the message's own advice), or freeze the unused "
      "parameters (requires_grad=False)"]),
    (r"^The checkpoint being loaded used a DP world size of %s but the current world size is %s",
     "load_checkpoint of a ZeRO checkpoint saved with another number of data-parallel ranks: its optimizer state is "
     "partitioned per rank.",
     ["resume with the same number of GPUs, or convert it with DeepSpeed's ds_to_universal.py and load with "
      "\"checkpoint\": {\"load_universal\": true}; load_module_only=True to restart the optimizer"]),
    (r"^'max_grad_norm' is not supported as an optimizer parameter",
     "The DeepSpeed config's optimizer params contain max_grad_norm.",
     ["remove it from the optimizer params and set \"gradient_clipping\": <value> at the top level (the message's "
      "own advice)"]),
    (r"^Parameter with name: %s occurs multiple times in optimizer\.param_groups",
     "A parameter is in two param groups of the client optimizer (tied weights listed twice, overlapping "
     "weight-decay groups).",
     ["build disjoint groups (by name, deduplicated) before deepspeed.initialize"]),
    (r"^no_sync context manager is incompatible with gradient partitioning logic of ZeRO stage|"
     r"^It is illegal to call Engine\.step\(\) inside no_sync context manager|^no_sync context manager reentry",
     "engine.no_sync() (gradient accumulation without all-reduce) cannot be used with ZeRO 2/3, which partition "
     "gradients as they arrive; or step() ran inside it.",
     ["let DeepSpeed accumulate: \"gradient_accumulation_steps\": N in the config and call engine.backward / "
      "engine.step every micro-batch (it steps at the boundary)"]),
    (r"^Type (?:fp16|bf16) is not supported on your device|^Cannot use fp16 without accelerator|"
     r"^Accelerator is not detected, cannot perform low precision training",
     "The DeepSpeed config enables fp16 / bf16 on a device without it: bf16 on a pre-Ampere GPU, or no GPU "
     "visible to DeepSpeed's accelerator.",
     ["\"fp16\": {\"enabled\": true} instead of bf16 on V100 / T4; check the process sees a GPU (python -c 'import "
      "torch; print(torch.cuda.is_available())')"]),
    (r"^Client Optimizer \(type = %s is not instantiated but Client LR Scheduler|^Client Optimizer is of unexpected "
     r"type|is not a supported DeepSpeed Optimizer|^DeepSpeed does not recognize LR scheduler",
     "deepspeed.initialize got an optimizer / scheduler it cannot take: a scheduler object without an optimizer "
     "object, an optimizer class instead of an instance, or a config name it does not know.",
     ["pass an instantiated torch optimizer (optimizer=opt) with its scheduler, or names DeepSpeed documents "
      "(\"type\": \"AdamW\", \"WarmupLR\" ...: https://www.deepspeed.ai/docs/config-json/)"]),
    (r"^Direct calls to tensor\.backward\(\) are not supported in this configuration",
     "loss.backward() was called on a DeepSpeed model where only engine.backward works (ZeRO stage 0 or an older "
     "torch).",
     ["engine.backward(loss) (the message's own advice)"]),
    (r"^Train batch size must be divisible by micro-batch data parallelism",
     "train_batch_size is not a multiple of train_micro_batch_size_per_gpu x the data-parallel size.",
     ["train_batch_size = micro batch x gradient_accumulation_steps x data-parallel GPUs (or set it \"auto\" under "
      "the Trainer / accelerate)"]),
    (r"^consolidated_16bit_state_dict is only applicable|^this function requires ZeRO-3 mode",
     "A ZeRO-3-only call (consolidating the 16-bit weights) ran with another stage.",
     ["with stage 0-2 use engine.module.state_dict() directly; the consolidation is for ZeRO-3"]),
    (r"^Native DeepSpeed MoE is not supported with ZeRO Stage 3|^MoE not supported with Stage 3",
     "DeepSpeed's MoE layers cannot run under ZeRO stage 3.",
     ["zero_optimization.stage 1 or 2 with MoE (the message's advice)"]),
    (r"^ZeRO-3 elastic checkpointing is deprecated and unsupported|^ZeRO-3 does not yet support elastic checkpointing",
     "The DeepSpeed config enables elastic checkpointing with ZeRO-3.",
     ["\"zero_optimization\": {\"elastic_checkpoint\": false}; for another GPU count use Universal Checkpointing"]),
    # -- deepspeed/comm/comm.py, utils/zero_to_fp32.py, runtime/zero/partition_parameters.py (zero.Init,
    # GatheredParameters; https://deepspeed.readthedocs.io/en/latest/zero3.html)
    (r"^DeepSpeed backend not set, please initialize it using init_process_group|"
     r"^Distributed backend is not initialized\. Please set dist_init_required|"
     r"^Parameters cannot be scattered without initializing deepspeed\.comm",
     "A deepspeed.comm call (or deepspeed.zero.Init partitioning a model) ran before DeepSpeed's process group "
     "existed: the model was built under ZeRO-3 (zero.Init, or from_pretrained with a ZeRO-3 config) before "
     "deepspeed.init_distributed / deepspeed.initialize, the code set up torch.distributed.init_process_group itself "
     "(DeepSpeed's own backend stays unset), or the script was not started by a launcher.",
     ["call deepspeed.init_distributed() first, in place of torch.distributed.init_process_group "
      "(deepspeed.initialize(..., dist_init_required=True) for the engine); "
      "with the HF Trainer create TrainingArguments(deepspeed=...) before from_pretrained; start with deepspeed / "
      "torchrun"]),
    (r"^MPI rank %s does not match torch rank|^MPI world size %s does not match torch world size",
     "deepspeed.init_distributed(auto_mpi_discovery) found MPI's rank / size different from RANK / WORLD_SIZE "
     "in the environment (two launchers, or variables set by hand).",
     ["start with one launcher and let it set the variables (mpirun without exporting RANK / WORLD_SIZE, or "
      "deepspeed / torchrun without mpirun)"]),
    (r"^can't find model states file at|^can't find %s files in directory|^Unable to find 'latest' file at|"
     r"^Directory '%s' doesn't exist|is not a zero checkpoint$|is not a model state checkpoint$|^unknown zero stage",
     "zero_to_fp32.py (or get_fp32_state_dict_from_zero_checkpoint) was pointed at a folder that is not a DeepSpeed "
     "ZeRO checkpoint: the folder must hold 'latest' and the global_stepN subfolder with *_model_states.pt and "
     "*_optim_states.pt.",
     ["python zero_to_fp32.py <checkpoint dir with 'latest'> <output> (or --tag global_stepN when 'latest' is "
      "missing); with the HF Trainer the dir is output_dir/checkpoint-N"]),
    (r"^Expected %s of '\*_optim_states\.pt' under '%s' but found %s files",
     "The ZeRO checkpoint holds another number of optimizer-state shards than the world size it records: an "
     "interrupted save, shards of two runs in one folder, or files copied in part.",
     ["use a complete checkpoint (another global_stepN / tag), or copy the whole folder again; save to a fresh "
      "folder per run"]),
    (r"^Cannot free a ZeRO-3 parameter while it is still active in submodules|"
     r"^Detected in-place modification of ZeRO-3 parameters inside GatheredParameters with modifier_rank=None|"
     r"^Parameter %s is on %s but broadcast requires it to be on %s",
     "ZeRO-3 parameters were changed inside deepspeed.zero.GatheredParameters without modifier_rank (each rank "
     "changed its own copy), or moved off the GPU inside it.",
     ["with deepspeed.zero.GatheredParameters(params, modifier_rank=0): modify on rank 0 (the message's own "
      "advice), keeping the parameters on the accelerator"]),
    (r"\"offload_param\" must be defined in DeepSpeed Config if remote device|"
     r"\"nvme_path\" in DeepSpeed Config cannot be None|^'device' in DeepSpeed Config cannot be %s if remote device",
     "deepspeed.zero.Init(remote_device=...) asks for parameter offload that the config's offload_param section "
     "does not set up (no section, device mismatch, no nvme_path for NVMe).",
     ["\"zero_optimization\": {\"offload_param\": {\"device\": \"cpu\" (or \"nvme\" with \"nvme_path\": ...)}} "
      "matching remote_device, or zero.Init without remote_device"]),
    (r"^Invalid data type %s, allowed values are \[torch\.half, torch\.bfloat16, torch\.float\]|"
     r"^bfloat16 and fp16 cannot be enabled at once",
     "deepspeed.zero.Init got a dtype other than half / bfloat16 / float, or a config with fp16 and bf16 both on.",
     ["zero.Init(dtype=torch.bfloat16) (or from the config's bf16 / fp16 section, only one of them enabled)"]),
    (r"^allgather_bucket_size must be a multiple of nccl_start_alignment_factor",
     "zero_optimization.allgather_bucket_size is not a multiple of the alignment NCCL needs.",
     ["a round bucket size: \"allgather_bucket_size\": 500000000 (an integer multiple of the factor in the message)"]),
    (r"^Master weights feature requires %s Offload with DeepSpeedCPUAdam|^Hybrid Optimizer Only Supports "
     r"DeepSpeedCPUAdam|^Offloading is supported only for DeepSpeed FusedAdam",
     "A ZeRO offload option needs DeepSpeed's own optimizer (DeepSpeedCPUAdam for CPU offload), not a client one.",
     ["define the optimizer in the config's \"optimizer\" section (DeepSpeed builds DeepSpeedCPUAdam for "
      "offload_optimizer: cpu), or turn the offload option off"]),
]


# explain-hfcode32 (issue 18): the files read from this round on (FILES' explain-hfcode32 comments), each row written
# from the condition that raises the message in transformers 5.24.0 / accelerate 1.15.0 / peft 0.21.2 (the file and
# function in `means`); docs: https://huggingface.co/docs/transformers/main_classes/model,
# https://huggingface.co/docs/accelerate/package_reference/state, https://huggingface.co/docs/peft/developer_guides/lora
MSG_FIX += [
    # transformers/utils/loading_report.py log_state_dict_report(); modeling_utils.py from_pretrained
    (r"^You set `ignore_mismatched_sizes` to `False`, thus raising an error",
     "transformers/utils/loading_report.py log_state_dict_report(): from_pretrained found checkpoint weights whose "
     "shapes differ from the model built from the config (the LOAD REPORT above lists each key as MISMATCH with both "
     "shapes): a config value given to from_pretrained (num_labels, vocab_size, hidden_size ...) that the checkpoint "
     "was not trained with, and ignore_mismatched_sizes is False.",
     ["to train a new head (another num_labels): from_pretrained(..., num_labels=N, ignore_mismatched_sizes=True); "
      "otherwise drop the overriding config value (load with the checkpoint's own config.json) and, for added tokens, "
      "call model.resize_token_embeddings(len(tokenizer)) after loading"]),
    (r"^We encountered some issues during automatic conversion of the weights",
     "transformers/utils/loading_report.py: the weight conversion from_pretrained applies to this checkpoint "
     "(renamed / fused keys) failed for the keys the report marks CONVERSION.",
     ["load the checkpoint with the transformers release that saved it (config.json's transformers_version), or "
      "re-save it with save_pretrained there"]),
    # transformers/models/auto/configuration_auto.py AutoConfig.from_pretrained / auto_factory.py
    (r"^The checkpoint you are trying to load has model type `%s` but Transformers does not recognize",
     "transformers/models/auto/configuration_auto.py AutoConfig.from_pretrained(): config.json's model_type is not "
     "in this transformers release's CONFIG_MAPPING: an architecture newer than the installed transformers, or a "
     "misspelt model_type.",
     ["pip install -U transformers (a release that knows the model_type {%1|of config.json}; the model card names "
      "the release it needs), or pip install git+https://github.com/huggingface/transformers for one not released "
      "yet; or correct model_type in config.json; trust_remote_code=True only for a repository that ships its "
      "own modeling code"]),
    (r"^Unrecognized model in %s\. Should have a `model_type` key",
     "transformers/models/auto/configuration_auto.py: the folder's config.json has no model_type and its name holds "
     "no known architecture: the path is not a full model (a PEFT adapter folder with adapter_config.json, a "
     "DeepSpeed global_step folder, a tokenizer-only folder) or its config.json was written by hand.",
     ["point from_pretrained at the folder save_pretrained wrote (config.json with \"model_type\"); for a LoRA "
      "adapter load the base model first, then PeftModel.from_pretrained(base, '{%1|adapter folder}')"]),
    (r"^Unrecognized configuration class %s for this kind of AutoModel|"
     r"^Unrecognized configuration class %s to build an AutoTokenizer",
     "transformers/models/auto/auto_factory.py _BaseAutoModelClass: this Auto class has no model for that "
     "architecture (an encoder such as BERT given to AutoModelForCausalLM, a seq2seq model to "
     "AutoModelForSequenceClassification ...); the message lists the model types it takes.",
     ["use the Auto class of the model's task (AutoModelForCausalLM for decoder LMs, AutoModelForSeq2SeqLM for "
      "T5/BART, AutoModelForMaskedLM for BERT), or a checkpoint whose model_type the message lists"]),
    (r"^Unrecognized model identifier: %s\. Should contain one of",
     "transformers/models/auto/configuration_auto.py AutoConfig.for_model(): the model_type string is not one of "
     "this release's architectures.",
     ["pass a model_type the message lists (or upgrade transformers for a newer one)"]),
    (r"^Tokenizer class '?%s'? (?:specified in the tokenizer config was not found|does not exist or is not currently "
     r"imported)",
     "transformers/models/auto/tokenization_auto.py: tokenizer_config.json's tokenizer_class is not a class this "
     "transformers release has (a newer tokenizer, or one that needs sentencepiece / tiktoken).",
     ["pip install -U transformers sentencepiece tiktoken; or load a tokenizer.json-based folder; "
      "trust_remote_code=True only for a repository that ships its own tokenizer code"]),
    (r"^Couldn't instantiate the backend tokenizer from one of",
     "transformers/tokenization_utils_tokenizers.py: the folder has no tokenizer.json and the slow tokenizer "
     "(sentencepiece / tiktoken vocabulary) could not be converted: a library missing or a vocabulary file absent.",
     ["pip install sentencepiece tiktoken protobuf, or save the tokenizer with tokenizer.save_pretrained(dir) "
      "where it loads (writes tokenizer.json)"]),
    # transformers/modeling_rope_utils.py (config.rope_parameters / rope_scaling)
    (r"^Missing required keys in `rope_parameters` for 'rope_type'='%s': %s",
     "transformers/modeling_rope_utils.py _check_received_keys(): the config's rope_parameters (rope_scaling in "
     "older configs) names a rope_type without the keys that type needs (linear / dynamic: factor; yarn: factor, "
     "original_max_position_embeddings; llama3: factor, low_freq_factor, high_freq_factor ...).",
     ["add {%2|the keys the message lists} to rope_parameters, e.g. rope_parameters={'rope_type': 'linear', "
      "'factor': 2.0} (or rope_scaling in config.json), or remove the rope_type to keep the default rotary "
      "embedding"]),
    (r"^RoPE requires an even rotary dimension",
     "transformers/modeling_rope_utils.py: head_dim * partial_rotary_factor is odd (rotary embedding rotates "
     "pairs of dimensions).",
     ["choose head_dim (hidden_size / num_attention_heads) and partial_rotary_factor so that their product is even"]),
    (r"^Unknown RoPE scaling type",
     "transformers (4.x) models/llama/modeling_llama.py _init_rope(): rope_scaling['type'] is not linear / dynamic "
     "in that release (newer types need a newer transformers).",
     ["rope_scaling={'type': 'linear' | 'dynamic', 'factor': F}, or pip install -U transformers for yarn / llama3"]),
    # the model code: config sizes and forward() arguments
    (r"^The hidden size \(?%s\)? is not a multiple of the number of attention heads|^hidden_size must be divisible "
     r"by num_heads|^`embed_dim` must be divisible by num_heads|^The embed_dim \(%s\) is not a multiple of the "
     r"number of attention",
     "transformers model config / attention __init__: hidden_size (embed_dim) must be num_attention_heads * "
     "head_dim; the config gives a hidden size that the number of heads does not divide.",
     ["set hidden_size to a multiple of num_attention_heads (or num_attention_heads to a divisor of hidden_size) in "
      "the config: {%1|hidden_size} / {%2|num_attention_heads} must be a whole number"]),
    (r"^You must specify exactly one of input_ids or inputs_embeds|^You cannot specify both input_ids and "
     r"inputs_embeds at the same time|^You have to (?:specify|provide) either input_ids or inputs_embeds",
     "the model's forward() (transformers' LlamaModel / GPT2Model / BertModel ..., peft/utils/other.py) takes "
     "input_ids or inputs_embeds, exactly one: the batch carries both, or neither (a collator or "
     "remove_unused_columns dropped input_ids, or the batch was passed positionally).",
     ["call model(input_ids=batch['input_ids'], attention_mask=batch['attention_mask'], labels=...) with only "
      "one of input_ids / inputs_embeds; check the batch's keys (print(batch.keys())) and keep input_ids in the "
      "dataset (remove_unused_columns / the collator)"]),
    (r"^Cannot handle batch sizes > 1 if no padding token is defined",
     "transformers models/*ForSequenceClassification forward(): the last non-padding token is found through "
     "config.pad_token_id, which is None (GPT-2 / Llama tokenizers have no pad token).",
     ["tokenizer.pad_token = tokenizer.eos_token; model.config.pad_token_id = tokenizer.pad_token_id (before "
      "training)"]),
    (r"^The PAD token should be defined for generation|^Pad_token_id must be set in the configuration of the model",
     "transformers: padding inside generate / Seq2SeqTrainer needs config.pad_token_id (or the generation "
     "config's), which is None.",
     ["model.config.pad_token_id = tokenizer.pad_token_id (tokenizer.pad_token = tokenizer.eos_token when it has "
      "none); or pass pad_token_id= to generate()"]),
    # transformers/trainer_utils.py, trainer_callback.py
    (r"^You cannot perform fine-tuning on purely quantized models",
     "transformers/trainer_utils.py validate_quantization_for_training(): the Trainer got a 4-/8-bit quantized "
     "model with no trainable adapter; quantized weights cannot be trained.",
     ["model = prepare_model_for_kbit_training(model); model = get_peft_model(model, LoraConfig(...)) (peft) "
      "before Trainer(model=model, ...)"]),
    (r"^You cannot fine-tune quantized model with `torch\.compile\(\)`",
     "transformers/trainer_utils.py: a quantized model wrapped by torch.compile was given to the Trainer.",
     ["pass the model before torch.compile (drop torch.compile / torch_compile=True for quantized fine-tuning)"]),
    (r"^EarlyStoppingCallback requires (?:metric_for_best_model|load_best_model_at_end)",
     "transformers/trainer_callback.py EarlyStoppingCallback.on_train_begin(): early stopping compares each "
     "evaluation's metric_for_best_model and needs load_best_model_at_end=True.",
     ["TrainingArguments(load_best_model_at_end=True, metric_for_best_model='eval_loss', eval_strategy='steps', "
      "save_strategy='steps') with the callback"]),
    (r"^EarlyStoppingCallback requires IntervalStrategy of steps or epoch",
     "transformers/trainer_callback.py: early stopping runs at evaluations; eval_strategy is 'no'.",
     ["TrainingArguments(eval_strategy='steps' (with eval_steps) or 'epoch', ...)"]),
    # accelerate/utils/memory.py find_executable_batch_size
    (r"^No executable batch size found, reached zero",
     "accelerate/utils/memory.py find_executable_batch_size(): the decorated function ran out of memory (or "
     "another error should_reduce_batch_size() counts as such) at every batch size it halved to, down to 1: one "
     "example does not fit; the exception above it is the first out-of-memory error.",
     ["reduce the memory of one example: a shorter max_length, gradient_checkpointing=True, bf16/fp16, an 8-bit "
      "optimizer, LoRA instead of full fine-tuning; or shard the model over more GPUs (ZeRO-3 / FSDP)"]),
    (r"^Batch size was passed into `%s` as the first argument when called",
     "accelerate/utils/memory.py: a function decorated with find_executable_batch_size was called with a batch "
     "size; the decorator passes it.",
     ["call {%2|the function}() without the batch size argument"]),
    # accelerate/state.py PartialState / AcceleratorState
    (r"^AcceleratorState has already been initialized and cannot be changed",
     "accelerate/state.py AcceleratorState.__init__(): this process already created an Accelerator (or the "
     "Trainer / an accelerate utility did) with other settings, and the state is shared by the whole process: a "
     "second Accelerator(...) with another mixed_precision / cpu setting, or a notebook that ran the cell twice.",
     ["create one Accelerator per process with the settings you want, before anything else builds one (the "
      "Trainer builds its own: pass bf16/fp16 through TrainingArguments instead); in a notebook restart the "
      "kernel; between tests AcceleratorState._reset_state(True)"]),
    (r"^The `PartialState` or `Accelerator` must be initialized before calling this function|"
     r"^Please make sure to properly initialize your accelerator via `accelerator = Accelerator\(\)`|"
     r"object has no attribute `%s`\. This happens if `(?:Partial|Accelerator)State\._reset_state\(\)` was called",
     "accelerate/state.py: an accelerate function (or a state attribute) was used before Accelerator() / "
     "PartialState() set up this process (or after the state was reset).",
     ["create accelerator = Accelerator() at the start of the script, before the call that raised"]),
    (r"^Tried to launch on distributed with multinode, but `MASTER_ADDR` env was not set|"
     r"^Looks like distributed multinode run but MASTER_ADDR env not set",
     "accelerate/state.py PartialState: WORLD_SIZE says several processes on several machines but MASTER_ADDR "
     "is not in the environment (a launcher that does not set it, or an sbatch script that forgot it).",
     ["export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1) and MASTER_PORT, or start "
      "with accelerate launch --main_process_ip <machine 0> / torchrun --rdzv-endpoint <host:port>"]),
    (r"^Using `cp_size ?> ?1` requires FSDP2|^`cp_size > 1` specified in the `parallelism_config`, but no "
     r"`fsdp_plugin`",
     "accelerate/state.py: context parallelism (parallelism_config cp_size > 1) is implemented on FSDP2 only.",
     ["use FSDP2 (fsdp_version: 2 in the accelerate config / FullyShardedDataParallelPlugin(fsdp_version=2)), or "
      "cp_size 1"]),
    # peft/utils/other.py (modules_to_save, trainable tokens), peft/auto.py, transformers/integrations/peft.py
    (r"^Only one adapter can be set at a time for (?:modules_to_save|%s)|^Attempted to set multiple \(%s\) adapters "
     r"at once for",
     "peft/utils/other.py ModulesToSaveWrapper / AuxiliaryTrainingWrapper.set_adapter(): modules_to_save (and "
     "trainable token) copies are per adapter, so only one adapter can be active for them.",
     ["set_adapter('<one name>') (a single adapter) when the config has modules_to_save, or drop modules_to_save "
      "from all but one adapter"]),
    (r"^%s cannot be applied to modules of type %s",
     "peft/utils/other.py: modules_to_save / trainable_token_indices named a module of a type that wrapper does not "
     "take (trainable tokens need an nn.Embedding).",
     ["name the embedding layer itself (print(model) shows it: embed_tokens / wte) or move the module to "
      "modules_to_save"]),
    (r"^The embedding layer is already marked to be trained fully",
     "peft/utils/other.py: the same embedding is in modules_to_save (trained whole) and in trainable_token_indices "
     "(only some rows).",
     ["keep it in one of them: modules_to_save=[..., 'embed_tokens'] or trainable_token_indices"]),
    (r"^self\.model\.config\.pad_token_id has to be defined",
     "peft/utils/other.py (sequence classification): the base model's config has no pad_token_id.",
     ["model.config.pad_token_id = tokenizer.pad_token_id (tokenizer.pad_token = tokenizer.eos_token when it has "
      "none)"]),
    (r"^Expected target PEFT class: %s, but you have asked for|^Cannot use `AutoPeftModel` with a task type|"
     r"^Cannot infer the auto class from the config",
     "peft/auto.py AutoPeftModel.from_pretrained(): the adapter's adapter_config.json task_type names another "
     "PeftModel class than the AutoPeftModelFor<Task> called.",
     ["use the AutoPeftModelFor<Task> of the adapter's task_type (AutoPeftModelForCausalLM for CAUSAL_LM), or "
      "PeftModel.from_pretrained(base_model, path)"]),
    (r"^Adapter\(s\) %s not found, available adapters|^Adapter with name %s not found\. Please pass the correct "
     r"adapter name|^Following adapter\(s\) could not be found|^The following adapter\(s\) are not present and cannot "
     r"be deleted|^No adapter loaded\. Please load an adapter first",
     "peft/mixed_model.py / transformers/integrations/peft.py: set_adapter / delete_adapter / enable_adapters named "
     "an adapter that is not loaded (the message lists the loaded ones).",
     ["model.load_adapter(path, adapter_name='<name>') first, then use one of the names the message lists"]),
    (r"^Adapter with name %s already exists\. Please use a different name",
     "transformers/integrations/peft.py load_adapter(): an adapter of that name is already loaded on the model.",
     ["load_adapter(path, adapter_name='<a new name>'), or delete_adapter('<name>') first"]),
    (r"^Could not find the transformer layer class to wrap in the model",
     "accelerate (<= 0.25) FullyShardedDataParallelPlugin / peft/utils/other.py fsdp_auto_wrap_policy(): the FSDP "
     "transformer-layer wrap policy names a class (fsdp_transformer_layer_cls_to_wrap, FSDP_TRANSFORMER_CLS_TO_WRAP) "
     "that no module of this model has (the name of another architecture's decoder layer).",
     ["set fsdp_transformer_layer_cls_to_wrap to this model's layer class (print(model): LlamaDecoderLayer, "
      "Qwen2DecoderLayer, GPT2Block ...), or leave it empty so the model's _no_split_modules is used"]),
    (r"^adapter model file not found in %s",
     "transformers/integrations/peft.py load_adapter(): the adapter folder has adapter_config.json but no "
     "adapter_model.safetensors / .bin (an interrupted save, or a checkpoint folder saved without the adapter).",
     ["point at the folder the PeftModel's save_pretrained wrote (adapter_config.json and adapter_model.safetensors)"]),
]


NEAR = 40  # a `raise X(name)` takes the messages assigned to that name up to this many lines above it


def _named(tree):
    """[(assignment node, its format)] of the messages raised through a variable: `msg = "..."` (or an f-string)
    then `raise X(msg)` within NEAR lines below (transformers' training_args.py: error_message = "Your setup
    doesn't support bf16/gpu..."; raise ValueError(error_message)). Nearness stands for the function's scope,
    so that a slice of statements resolves as the whole file does."""
    assigns, raised = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            fmt = knowgen.py_format(node.value)
            if fmt:
                assigns.append((node, " ".join(fmt.split())))
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args and \
                isinstance(node.exc.args[0], ast.Name):
            raised.append((node.lineno, node.exc.args[0].id, False))
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args and \
                isinstance(node.exc.args[0], ast.Call) and isinstance(node.exc.args[0].func, ast.Attribute) and \
                node.exc.args[0].func.attr == "format" and isinstance(node.exc.args[0].func.value, ast.Name):
            # explain-hfcode32: `err = "... `{flag}` ..."; raise ValueError(err.format(flag=...))` (accelerate/state.py
            # AcceleratorState._check_initialized): str.format's fields are the message's conversions
            raised.append((node.lineno, node.exc.args[0].func.value.id, True))
    out = []
    for a, fmt in assigns:
        hits = [fmt_call for line, name, fmt_call in raised if name == a.targets[0].id and line - NEAR <= a.lineno < line]
        if hits:
            out.append((a, re.sub(r"\{[^{}]{0,40}\}", "%s", fmt) if all(hits) else fmt))
    return out


def sites_of(path, srcs):
    """(level, where, format) of one file's messages (``srcs``: the file, or the slice's blocks of it)."""
    out, trees = set(), []
    for src in srcs:
        out.update((level, line, fmt) for level, line, fmt in knowgen.py_messages(src))
        try:
            trees.append(ast.parse(src))
        except SyntaxError:
            pass
    # the raise statements may sit in other blocks than their assignments: resolve over the whole file
    merged = ast.Module(body=[n for t in trees for n in t.body], type_ignores=[])
    out.update(("raise", a.lineno, fmt) for a, fmt in _named(merged))
    for level, line, fmt in sorted(out, key=lambda s: (s[1], s[0], s[2])):
        yield level, "%s:%d" % (path, line), fmt


def build(files, version):
    sites, seen = [], set()
    by_path = {}
    for path, src in files:
        by_path.setdefault(path, []).append(src)
    for path, srcs in by_path.items():
        m = re.match(r"older/([a-z]+)-([^/]+)/(.+)$", path)
        # a message that spans lines gets its first line as matcher, in the modules read whole only (_WHOLE): the
        # sites read before keep their matchers
        firsts = knowgen.py_first_lines(srcs) if re.search(_WHOLE, m.group(3) if m else path) else {}
        for level, where, fmt in sites_of(m.group(3) if m else path, srcs):
            if fmt in seen:
                continue
            seen.add(fmt)
            rx, literal = knowgen.matcher(fmt, firsts.get(int(where.rsplit(":", 1)[1])))
            site = {"id": "trainer.%s%s" % ("%s_%s_" % (m.group(1), knowgen.slug(m.group(2))) if m else "",
                                            knowgen.slug(where)),
                    "where": where, "level": level, "text": fmt}
            if m:  # printed by that older release only (the current one reworded or dropped it)
                site["older"] = "%s %s" % (m.group(1), m.group(2))
            if knowgen.unanchored(site, rx, literal, 16):
                sites.append(site)
                continue
            if level == "warning":
                site.update({"re": rx, "family": None, "rule": "a warning, not an error"})
                sites.append(site)
                continue
            rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
            site.update({"re": rx, "family": family, "rule": rule})
            knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header("deepspeed (https://pypi.org/project/deepspeed/) runtime config, engine and ZeRO "
                                     "optimizers, accelerate (https://pypi.org/project/accelerate/) Accelerator and "
                                     "plugins, transformers (https://pypi.org/project/transformers/) Trainer, "
                                     "TrainingArguments, from_pretrained, tokenizers and data collators, peft "
                                     "(https://pypi.org/project/peft/) PeftModel and LoRA",
                                     version, GENERATOR),
            "sites": sites}


def read_roots(roots, older=None):
    """[(path, text)] of FILES under each root; ``older``: {name: root} of an older release, whose files are
    read under 'older/<name>-<version>/<path>' (a file that release does not have yet is skipped)."""
    files = []
    for name in PACKAGES:
        for g in FILES[name]:
            names = sorted(glob.glob(os.path.join(roots[name], g)))
            if not names:
                raise SystemExit("%s: no file %s (the layout changed?)" % (roots[name], g))
            for n in names:
                with open(n) as f:
                    files.append((os.path.relpath(n, roots[name]), f.read()))
    for name, root in sorted((older or {}).items(), key=lambda kv: PACKAGES.index(kv[0])):
        prefix = "older/%s-%s/" % (name, _version_of(name, root))
        for g in FILES[name]:
            for n in sorted(glob.glob(os.path.join(root, g))):
                with open(n) as f:
                    files.append((prefix + os.path.relpath(n, root), f.read()))
    return files


def _version_of(name, root):
    return knowgen.package_version([os.path.join(root, "PKG-INFO")] if name == "deepspeed" else
                                   sorted(glob.glob(os.path.join(root, "%s-*.dist-info" % name, "METADATA"))))


def release_of(roots, older=None):
    out = ", ".join("%s %s" % (n, _version_of(n, roots[n])) for n in PACKAGES)
    if older:
        out += "; older: " + ", ".join("%s %s" % (n, _version_of(n, older[n])) for n in PACKAGES if n in older)
    return out


_RECORD_HEAD = ("# Recorded by tools/gen_trainer_messages.py --record: each raise / assert / logger call that holds a\n"
                "# message, as the source has it (=== path @first line).\n")


def write_record(path, version, files, head=_RECORD_HEAD, holds=lambda n: knowgen.py_message(n)[0], more=None):
    """The slice: each statement that holds a message, as `=== path @LINE` and its source lines. ``holds(node)``: a
    statement or call holds a message; ``more(tree)``: the (first, last) line spans a generator reads besides
    (tools/gen_lightning_messages.py: its message formats); a message assigned to a name, then raised (_named), is
    recorded too."""
    import textwrap

    with knowgen.open_write(path) as f:
        f.write(head)
        f.write("#! version %s\n" % version)
        for p, src in files:
            try:
                tree = ast.parse(src)
            except SyntaxError:
                continue
            lines = src.splitlines()
            spans = set()
            for node in ast.walk(tree):
                if not isinstance(node, ast.stmt) or isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.If,
                                                                       ast.For, ast.While, ast.With, ast.Try,
                                                                       ast.AsyncFunctionDef)):
                    continue
                inner = [node] + [n for n in ast.walk(node) if isinstance(n, ast.Call)]
                if any(holds(n) for n in inner):
                    spans.add((node.lineno, node.end_lineno))
            if more is not None:
                spans.update(more(tree))
            spans.update((a.lineno, a.end_lineno) for a, _ in _named(tree))
            for a, b in sorted(spans):
                f.write("=== %s @%d\n%s\n" % (p, a, textwrap.dedent("\n".join(lines[a - 1:b]))))


def main(argv):
    a = knowgen.arguments(__doc__, argv, PACKAGES, source_opts={
        "deepspeed": {"help": "the unpacked deepspeed sdist (the folder with deepspeed/ and PKG-INFO)"},
        "accelerate": {"help": "the unpacked accelerate wheel"},
        "transformers": {"help": "the unpacked transformers wheel"},
        "peft": {"help": "the unpacked peft wheel"}},
        extra=[("--record", {"help": "write the slice (with the sources)"}),
               ("--older-deepspeed", {"help": "an older deepspeed sdist, unpacked: the messages it printed that the "
                                               "current one no longer does"}),
               ("--older-accelerate", {"help": "an older accelerate wheel, unpacked"}),
               ("--older-transformers", {"help": "an older transformers wheel, unpacked"}),
               ("--older-peft", {"help": "an older peft wheel, unpacked"})])
    if a.slice:
        files, version = knowgen.read_slice(a.slice)
    else:
        roots = {"deepspeed": a.deepspeed, "accelerate": a.accelerate, "transformers": a.transformers, "peft": a.peft}
        older = {n: getattr(a, "older_" + n) for n in roots if getattr(a, "older_" + n)}
        files, version = read_roots(roots, older), release_of(roots, older)
        if a.record:
            write_record(a.record, version, files)
    doc = build(files, version)
    if not a.slice:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], "release")
    return knowgen.emit("trainer_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
