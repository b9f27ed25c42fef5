#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/trainer_messages.json: the refusals of DeepSpeed's runtime config, accelerate's Accelerator and transformers' Trainer / TrainingArguments that the user's call or configuration causes.

Each raise / assert / logger.error of the files below becomes a site with a bounded matcher and the
knowledge family from the RULES table (gpudoctor/data/knowledge/trainer.toml); MSG_FIX gives a
message its own meaning and fix, written from the condition in the source that raises it. Sites no
rule assigns are listed in docs/explain.md, never guessed; warnings are kept as context only.

Usage:
    pip download --no-deps deepspeed accelerate transformers -d /tmp/pyl   (unpack the sdist and the wheels)
    python tools/gen_trainer_messages.py --deepspeed /tmp/pyl/ds/deepspeed-X --accelerate /tmp/pyl/acc \\
        --transformers /tmp/pyl/tf [--record tools/data/trainer_messages_slice.txt] [-o OUT]
    python tools/gen_trainer_messages.py --slice tools/data/trainer_messages_slice.txt -o OUT   (the test)

--older-deepspeed / --older-accelerate / --older-transformers DIR add the messages an older release printed
that the current one no longer does (marked "older": most public threads quote older releases); the slice
keeps them under older/<package>-<version>/.

Sources (read with Python's ast, never imported): deepspeed (https://pypi.org/project/deepspeed/,
Apache-2.0, sdist) deepspeed/runtime/config.py, zero/config.py, precision_config.py, config_utils.py;
accelerate (https://pypi.org/project/accelerate/, Apache-2.0, wheel) accelerate/accelerator.py,
accelerate/utils/dataclasses.py, accelerate/utils/bnb.py, accelerate/utils/deepspeed.py (HfDeepSpeedConfig, which
transformers' --deepspeed reads the config file with); transformers
(https://pypi.org/project/transformers/, Apache-2.0, wheel) transformers/trainer.py,
transformers/training_args.py, transformers/integrations/deepspeed.py. The releases are read from
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
                  "deepspeed/runtime/precision_config.py", "deepspeed/runtime/config_utils.py"],
    "accelerate": ["accelerate/accelerator.py", "accelerate/utils/dataclasses.py", "accelerate/utils/bnb.py",
                   "accelerate/utils/deepspeed.py"],
    "transformers": ["transformers/trainer.py", "transformers/training_args.py",
                     "transformers/integrations/deepspeed.py"],
}
# A package too old or missing: the message names the package and the release it needs
_VERSION = (r"requires? (?:PyTorch|torch|accelerate|transformers|deepspeed|`?torch_xla`?)\s*[>=]|"
            r"(?:PyTorch|DeepSpeed|MLU|MUSA|accelerate|deepspeed)[\w ]{0,20}(?:version )?(?:must be|requires) >=|"
            r"requires deepspeed\s*>=|is not installed|was not found on your system|is not available\. Please install|"
            r"Please upgrade your PyTorch|only available in PyTorch %s and later|not compatible with 8bit quantization|"
            r"Requires accelerate|requires `?accelerate>|deepspeed >= %s|deepspeed>=%s")
# (rule, knowledge entry, {field: regex}); fields: where, text, level (raise | error | warning)
RULES = [
    ("version", "code.package_too_old", {"text": _VERSION}),
    ("ds-batch", "deepspeed.batch_size", {"where": r"^deepspeed/runtime/config\.py", "text": r"[Bb]atch|"
                                                                                           r"[Gg]radient accumulation"}),
    ("hf-ds-mismatch", "deepspeed.hf_config_mismatch", {"text": r"DeepSpeed config values that mismatch|"
                                                                r"without `auto` \(set to correct value\)|"
                                                                r"cannot be set to `%s` when `%s` is set in the DeepSpeed|"
                                                                r"the following accelerate config variables will be "
                                                                r"ignored|neither `hidden_size` nor `hidden_sizes`"}),
    ("ds-config", "deepspeed.config", {"where": r"^deepspeed/runtime/"}),
    ("acc-quantized", "accelerate.quantized_distributed", {"where": r"^accelerate/accelerator\.py",
                                                           "text": r"8-bit (?:or 4-bit )?precision|device_map='auto'|"
                                                                   r"`DTensor` parameters"}),
    ("acc-ds-batch", "deepspeed.batch_size", {"where": r"^accelerate/", "text": r"train_micro_batch_size_per_gpu"}),
    # accelerate/utils/deepspeed.py HfDeepSpeedConfig: the DeepSpeed config file (transformers' --deepspeed reads it here)
    ("acc-ds-config", "deepspeed.config", {"where": r"^accelerate/utils/deepspeed\.py", "text": r"deepspeed config|"
                                                                                            r"entry in the config"}),
    ("acc", "accelerate.config", {"where": r"^accelerate/", "level": r"raise|error"}),
    ("tf-ds", "deepspeed.config", {"where": r"^transformers/integrations/deepspeed\.py"}),
    # transformers 4.x training_args.py: --fp16 / --bf16 where torch sees no CUDA (or other) device
    ("tf-no-device", "transformers.precision_no_gpu", {"where": r"^transformers/", "text": r"Mixed precision training with AMP "
                                                                              r"[^\n]{0,200}can only be used on CUDA"}),
    ("tf-bf16", "cuda.bf16_unsupported", {"where": r"^transformers/", "text": r"doesn't support bf16/gpu"}),
    ("tf", "transformers.trainer", {"where": r"^transformers/", "level": r"raise|error"}),
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
     ["load the model on this process's GPU: device_map={'': PartialState().process_index} (or "
      "{'': torch.cuda.current_device()}), or run one process (python train.py / --num_processes=1) to keep "
      "device_map='auto' (naive model parallelism)"]),
    (r"^You can't train a model that has been loaded in 8-bit (?:or 4-bit )?precision on multiple devices",
     "accelerate/accelerator.py prepare_model(): a bitsandbytes 8-bit / 4-bit model placed on several GPUs "
     "(device_map='auto') cannot be trained with DDP/FSDP; the quantized weights cannot be moved either.",
     ["under accelerate launch / torchrun load it with device_map={'': PartialState().process_index} so each "
      "process holds the whole quantized model on its own GPU; or one process with device_map='auto'"]),
    (r"^You can't train a model that has been loaded in 8-bit (?:or 4-bit )?precision on a different device",
     "accelerate/accelerator.py prepare_model(): the quantized model sits on another GPU than this process's "
     "device (every rank loaded it onto cuda:0), and 8-bit / 4-bit weights cannot be moved.",
     ["load with device_map={'': torch.cuda.current_device()} (or {'': PartialState().process_index}) after the "
      "process group is set up, so rank N loads onto GPU N"]),
    (r"^You can't train a model that has been loaded in 8-bit (?:or 4-bit )?precision with CPU or disk offload",
     "accelerate/accelerator.py prepare_model(): part of the quantized model was offloaded to the CPU or disk "
     "(device_map put layers there because the GPU was full).",
     ["load the whole model on the GPU (device_map={'': <this GPU>}), a smaller model, or 4-bit instead of 8-bit"]),
    (r"^Your model contains `DTensor` parameters, which is incompatible with DDP",
     "accelerate/accelerator.py prepare_model(): transformers loaded the model with a tensor-parallel plan "
     "(device_map='auto' under torchrun gives DTensor parameters), which DDP cannot wrap.",
     ["load with device_map='cuda' (or {'': PartialState().process_index}) instead of 'auto' under distributed "
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
     ["keep one: --bf16 on Ampere and newer, else --fp16"]),
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
            raised.append((node.lineno, node.exc.args[0].id))
    return [(a, fmt) for a, fmt in assigns
            if any(name == a.targets[0].id and line - NEAR <= a.lineno < line for line, name in raised)]


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
        for level, where, fmt in sites_of(m.group(3) if m else path, srcs):
            if fmt in seen:
                continue
            seen.add(fmt)
            rx, literal = knowgen.printf_to_regex(fmt)
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
    return {"header": knowgen.header("deepspeed (https://pypi.org/project/deepspeed/) runtime config, accelerate "
                                     "(https://pypi.org/project/accelerate/) Accelerator and plugins, transformers "
                                     "(https://pypi.org/project/transformers/) Trainer and TrainingArguments",
                                     version, GENERATOR),
            "sites": sites}


def read_roots(roots, older=None):
    """[(path, text)] of FILES under each root; ``older``: {name: root} of an older release, whose files are
    read under 'older/<name>-<version>/<path>' (a file that release does not have yet is skipped)."""
    files = []
    for name in ("deepspeed", "accelerate", "transformers"):
        for g in FILES[name]:
            names = sorted(glob.glob(os.path.join(roots[name], g)))
            if not names:
                raise SystemExit("%s: no file %s (the layout changed?)" % (roots[name], g))
            for n in names:
                with open(n) as f:
                    files.append((os.path.relpath(n, roots[name]), f.read()))
    for name, root in sorted((older or {}).items(), key=lambda kv: ("deepspeed", "accelerate",
                                                                      "transformers").index(kv[0])):
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
    out = "deepspeed %s, accelerate %s, transformers %s" % tuple(
        _version_of(n, roots[n]) for n in ("deepspeed", "accelerate", "transformers"))
    if older:
        out += "; older: " + ", ".join("%s %s" % (n, _version_of(n, older[n]))
                                       for n in ("deepspeed", "accelerate", "transformers") if n in older)
    return out


def write_record(path, version, files):
    """The slice: each statement that holds a message, as `=== path @LINE` and its source lines."""
    with open(path, "w") as f:
        f.write("# Recorded by tools/gen_trainer_messages.py --record: each raise / assert / logger call that holds a\n"
                "# message, as the source has it (=== path @first line).\n")
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
                if any(knowgen.py_message(n)[0] for n in inner):
                    spans.add((node.lineno, node.end_lineno))
            spans.update((a.lineno, a.end_lineno) for a, _ in _named(tree))
            for a, b in sorted(spans):
                body = "\n".join(ln for ln in lines[a - 1:b])
                f.write("=== %s @%d\n%s\n" % (p, a, _dedent(body)))


def _dedent(text):
    import textwrap

    return textwrap.dedent(text)


def main(argv):
    a = knowgen.arguments(__doc__, argv, ("deepspeed", "accelerate", "transformers"), source_opts={
        "deepspeed": {"help": "the unpacked deepspeed sdist (the folder with deepspeed/ and PKG-INFO)"},
        "accelerate": {"help": "the unpacked accelerate wheel"},
        "transformers": {"help": "the unpacked transformers wheel"}},
        extra=[("--record", {"help": "write the slice (with the sources)"}),
               ("--older-deepspeed", {"help": "an older deepspeed sdist, unpacked: the messages it printed that the "
                                               "current one no longer does"}),
               ("--older-accelerate", {"help": "an older accelerate wheel, unpacked"}),
               ("--older-transformers", {"help": "an older transformers wheel, unpacked"})])
    if a.slice:
        files, version = knowgen.read_slice(a.slice)
    else:
        roots = {"deepspeed": a.deepspeed, "accelerate": a.accelerate, "transformers": a.transformers}
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
