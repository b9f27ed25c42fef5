#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/hflibs_messages.json: what Hugging Face `datasets` (load_dataset, map /
filter / remove_columns, streaming and IterableDataset shards, the cache), TRL (SFTTrainer / DPOTrainer / GRPOTrainer
and their configs, the dataset-format checks, the vLLM server and colocation) and bitsandbytes (its CUDA setup: the
native library not found or not loadable, a CUDA runtime missing; its optimizers and quantized layers) refuse.

Read from the three wheels (PyPI), never executed (tools/wheelmsgs.py): every `raise X("...")`, `assert ..., "..."`
and logger .error / .warning call of FILES, and a message built in a variable first and then raised. Besides, for
bitsandbytes, what its CUDA setup prints, read from the code that prints it:
  - the setup log of bitsandbytes <= 0.41 (cuda_setup/main.py: CUDASetup.add_log_entry(msg, is_warning=...),
    printed when the library fails to load: 'CUDA SETUP: Required library version not found: ...');
  - the error texts bitsandbytes >= 0.44 builds in cextension.py's _format_* methods (ErrorHandlerMockBNBNativeLibrary:
    'Attempted to use bitsandbytes native library functionality but it's not available.', '... SETUP ERROR: Missing
    dependency: ...'), one site per line of literal text;
  - Python's AttributeError when the native library was not loaded (bitsandbytes <= 0.41 sets `lib = None` and each
    C call `lib.cadam32bit_grad_fp32(...)` then fails): "'NoneType' object has no attribute '<name>'" for each `lib.<c
    function>` the older functional.py calls.
Each becomes a bounded matcher assigned to a knowledge family (knowledge/hflibs.toml, code.package_too_old,
errno.enospc) by RULES: by its words first, then by the part of the library that raises it (ctx-*); MSG_FIX gives a
message its own meaning and fix, written from the condition that raises it. Warnings are context only; a raise no
rule assigns is listed, never guessed.

Usage:
    pip download --no-deps --only-binary :all: datasets trl bitsandbytes -d /tmp/w
    pip download --no-deps --only-binary :all: datasets==2.21.0 trl==0.12.2 bitsandbytes==0.41.1 -d /tmp/w
    pip download --no-deps --only-binary :all: trl==0.16.0 -d /tmp/w; pip download ... trl==0.17.0 -d /tmp/w
    pip download --no-deps --only-binary :all: bitsandbytes==0.43.3 -d /tmp/w
    python tools/gen_hflibs_messages.py --datasets /tmp/w/datasets-5.2.0-py3-none-any.whl \\
        --trl /tmp/w/trl-1.16.0-py3-none-any.whl --bitsandbytes /tmp/w/bitsandbytes-0.50.2-...whl \\
        --older-datasets /tmp/w/datasets-2.21.0-py3-none-any.whl --older-trl /tmp/w/trl-0.12.2-py3-none-any.whl \\
        --older-trl /tmp/w/trl-0.16.0-py3-none-any.whl --older-trl /tmp/w/trl-0.17.0-py3-none-any.whl \\
        --older-bitsandbytes /tmp/w/bitsandbytes-0.43.3-...whl \\
        --older-bitsandbytes /tmp/w/bitsandbytes-0.41.1-py3-none-any.whl [--record tools/data/hflibs_messages_slice.txt]
    python tools/gen_hflibs_messages.py --slice tools/data/hflibs_messages_slice.txt -o OUT   (the test)

Sources: datasets (https://pypi.org/project/datasets/, Apache-2.0; https://github.com/huggingface/datasets,
src/datasets/), trl (https://pypi.org/project/trl/, Apache-2.0; https://github.com/huggingface/trl, trl/),
bitsandbytes (https://pypi.org/project/bitsandbytes/, MIT; https://github.com/bitsandbytes-foundation/bitsandbytes,
bitsandbytes/). The regenerated table read datasets 5.2.0, trl 1.16.0, bitsandbytes 0.50.2 and the older datasets
2.21.0 (the last 2.x, which most threads quote), trl 0.12.2 (SFTConfig's first releases), 0.16.0 and 0.17.0
(GRPOTrainer's 2025 wordings: 'The global train batch size ...', then 'The effective train batch size ...') and
bitsandbytes 0.43.3 (2024: 'Could not load bitsandbytes native library') and 0.41.1 (the CUDA SETUP log of 2023's
threads). Docs: https://huggingface.co/docs/datasets/process (map, batched, num_proc, remove_columns), https://huggingface.co/docs/datasets/stream, https://huggingface.co/docs/datasets/loading,
https://huggingface.co/docs/trl/sft_trainer#dataset-format-support, https://huggingface.co/docs/trl/grpo_trainer,
https://huggingface.co/docs/trl/vllm_integration, https://huggingface.co/docs/bitsandbytes/main/en/installation.
"""

import ast
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_hflibs_messages.py"
DISTS = ("datasets", "trl", "bitsandbytes")
FILES = {
    "datasets": (r"^datasets/(?:arrow_dataset|dataset_dict|iterable_dataset|load|builder|data_files|fingerprint|"
                 r"arrow_writer|combine|distributed|splits|info|arrow_reader|utils/(?:py_utils|sharding|file_utils|"
                 r"info_utils)|formatting/formatting|features/features)\.py$"),
    "trl": (r"^trl/(?:trainer/(?:sft|dpo|grpo|reward|rloo|kto|ppo|orpo|base)_(?:trainer|config)|trainer/utils|"
            r"data_utils|chat_template_utils|generation/vllm_(?:client|generation)|extras/vllm_client|models/utils|"
            r"scripts/vllm_serve|import_utils)\.py$"),
    "bitsandbytes": (r"^bitsandbytes/(?:cextension|cuda_specs|__init__|__main__|diagnostics/(?:cuda|main|utils)|"
                     r"cuda_setup/main|functional|nn/modules|autograd/_functions|optim/optimizer|"
                     r"backends/cuda/ops)\.py$"),
}

# a package too old or missing: the message names the package (and the release) it needs
_VERSION = (r"requires? (?:transformers|peft|torch|vllm|accelerate|datasets|jmespath)\s*(?:>=|version)|"
            r"requires `?(?:transformers|peft|torch|vllm|accelerate)>=|is not installed|needs to be installed|"
            r"is required for `|Please install (?:it|vLLM|`?\w+`? with)|library is not installed|"
            r"must be installed|pip install -U peft|is not available and `use_vllm`|requires the jmespath")
# the CUDA setup of bitsandbytes: its native library (libbitsandbytes_cuda<ver>.so) and the CUDA runtime it needs
_BNB_SETUP = (r"CUDA Setup failed|CUDA SETUP: (?:Setup Failed|Required library version not found|Problem:|"
              r"CUDA detection failed|CUDA 10\.0 not supported|Something unexpected happened)|"
              r"native library functionality but it's not available|SETUP ERROR: Missing dependency|"
              r"runtime libraries were not found in the LD_LIBRARY_PATH|VERSION MISMATCH|"
              r"Forgot to compile the bitsandbytes library|binary not found at|binary found at|"
              r"not available in CPU-only version|failed to load backend|library load error|"
              r"Failed to load CPU-only bitsandbytes library|^'NoneType' object has no attribute 'c|"
              r"^%s=%s: value must be digits only|Native code method attempted to call|"
              r"^Could not load bitsandbytes native library")
# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level. The first that matches wins.
RULES = [
    # their internal invariants and words Python itself prints for any object
    ("internal", None, {"text": r"^Abstract method|doesn't implement %?\w+ yet|needs to be overridden|"
                                r"is supposed to be used|^Call get_instance\(\) instead|internal error|"
                                r"^Unexpected tokenization|Please override the `|^parse_response returned None|"
                                r"^State must contain|Something when wrong"}),
    # Python's own wordings (a module's / an object's AttributeError) and torch.optim.Optimizer.load_state_dict's,
    # which bitsandbytes' Optimizer8bit copies: another program prints the same words
    ("foreign-wording", None, {"text": r"^'%s' object has no attribute|^descriptor '__init__'|"
                                       r"^module %s has no attribute %s$|^loaded state dict has a different number of "
                                       r"parameter groups|^loaded state dict contains a parameter group that doesn't "
                                       r"match the size of optimizer's group"}),
    ("bnb-setup", "bitsandbytes.setup", {"where": r"^bitsandbytes/", "text": _BNB_SETUP}),
    ("version", "code.package_too_old", {"text": _VERSION, "level": r"^(?:raise|error)$"}),
    # the disk the cache is on (builder.py _check_disk_space before download_and_prepare)
    ("ds-disk", "errno.enospc", {"where": r"^datasets/", "text": r"^Not enough disk space"}),
    # load_dataset / load_from_disk: the name, the data files, the Hub, the builder's configs and splits, the cache
    ("ds-load", "datasets.load", {"where": r"^datasets/(?:load|builder|data_files|arrow_reader|info|"
                                           r"utils/(?:file_utils|info_utils))\.py:",
                                  "level": r"^(?:raise|error)$"}),
    ("ds-load-disk", "datasets.load", {"where": r"^datasets/(?:arrow_dataset|dataset_dict)\.py:",
                                       "text": r"^No such files?: |load_from_disk|^Directory %s is neither"}),
    # map / filter / select / columns / formats / features / shards / splits: the call's own arguments
    ("ctx-datasets", "datasets.usage", {"where": r"^datasets/", "level": r"^(?:raise|error)$"}),
    # TRL and the vLLM server it generates with (vllm_mode='server': trl vllm-serve; 'colocate')
    ("trl-vllm", "trl.vllm", {"where": r"^trl/(?:generation/|extras/vllm_client|scripts/vllm_serve)",
                              "level": r"^(?:raise|error)$"}),
    ("trl-vllm-config", "trl.vllm", {"where": r"^trl/", "text": r"vLLM server|vllm_mode|vllm_server|"
                                                                r"vllm_tensor_parallel_size"}),
    # the dataset a TRL trainer was given: its columns and format (prompt / completion / chosen / rejected /
    # messages / text), the chat template that formats it
    ("trl-dataset", "trl.dataset", {"where": r"^trl/",
                                    "text": r"dataset|[Ee]xamples?\b|columns?\b|conversational|chat template|"
                                            r"'messages'|'text'|[Ii]nvalid role|image placeholders|"
                                            r"`?dataset_text_field|formatting_func"}),
    ("ctx-trl", "trl.config", {"where": r"^trl/", "level": r"^(?:raise|error)$"}),
    # bitsandbytes' quantized layers, optimizers and kernels checking their inputs
    ("ctx-bnb", "bitsandbytes.usage", {"where": r"^bitsandbytes/", "level": r"^(?:raise|error)$"}),
]

_OFFLINE = ("download once where there is network (hf download <repo> --repo-type dataset, or load_dataset there) "
            "into an HF_HOME / HF_DATASETS_CACHE every node mounts, then run with HF_HUB_OFFLINE=1 "
            "HF_DATASETS_OFFLINE=1")
_BNB_DIAG = "python -m bitsandbytes   (prints the CUDA version torch uses, the libraries it found and what failed)"

# What one message means and what to do: [(regex over the text, means, [fix])], written from the condition in the
# source that raises it (the version it was read from is in the header; older wordings are matched too).
MSG_FIX = [
    # ---- datasets: Dataset.map / filter (arrow_dataset.py, iterable_dataset.py)
    (r"^One of the subprocesses has abruptly died during map operation",
     "datasets/utils/py_utils.py iflatmap_unordered: a worker process of Dataset.map(num_proc=N) ended without "
     "returning (multiprocess's pool lost it): most often the kernel's OOM killer (N copies of the function's memory, "
     "a tokenizer or a model loaded in each), or a crash of native code in the mapped function.",
     ["lower num_proc (and batch_size / writer_batch_size) so that N workers fit in the host's memory; dmesg -T | "
      "grep -i 'killed process' shows an OOM kill", "run the map once with num_proc=None to see the function's own "
      "error (the message's advice: disable multiprocessing)"]),
    (r"When using `batched=True`, make sure provided `function` returns a `dict` of types like",
     "Dataset.map(batched=True): the function must return a dict whose values are lists (or arrays) of one length per "
     "batch: it returned a dict with a scalar or another type as a value.",
     ["return {column: [value per example]} from the batched function (e.g. {'input_ids': tok(batch['text'])"
      "['input_ids']}), or use batched=False for a function that returns one example's values"]),
    (r"^Provided `function` which is applied to all elements of table returns a variable of type %s\. Make sure "
     r"provided `function` returns a variable of type `dict`|^Provided `function` which is applied to %s returns a "
     r"variable of type",
     "Dataset.map's function must return a dict (column -> value(s)) or None; it returned another type (a list, a "
     "tensor, a string, a BatchEncoding of an unexpected type).",
     ["return a dict from the function: return {'text': ..., 'labels': ...} (or dict(tokenizer(...))); use "
      "Dataset.filter for a function that returns a bool"]),
    (r"^Column lengths mismatch: columns %s have length %s while %s has length %s",
     "A batched map / IterableDataset map returned columns of different lengths: a batched function that changes "
     "the number of examples (chunking, tokenizing with overflow) must return every column at the new length, so the "
     "input columns it keeps are of the old length.",
     ["map(..., batched=True, remove_columns=ds.column_names) when the function returns a different number of rows "
      "(e.g. group_texts / return_overflowing_tokens), so that only the new columns are kept"]),
    (r"^Column to remove %s not in the dataset|^Input column %s not in the dataset|^Column name %s not in the "
     r"dataset|^Columns? %s not in the dataset|^Column %s not found in dataset|^Column '%s' doesn't exist",
     "A column named in remove_columns / input_columns / select_columns / rename_column / the format is not in "
     "this dataset: an earlier map already removed or renamed it, another split has other columns, or the name is "
     "misspelled. The message lists the dataset's current columns.",
     ["name columns the dataset has (print(ds.column_names)); remove_columns=ds.column_names (per split: "
      "ds['train'].column_names) removes exactly what is there"]),
    (r"^Loading a streaming dataset in parallel with `num_proc` is not implemented",
     "load_dataset(..., streaming=True, num_proc=N): a streaming dataset is read lazily and cannot be prepared by "
     "worker processes.",
     ["drop num_proc with streaming=True; read it in parallel with torch.utils.data.DataLoader(ds, num_workers=N) "
      "(each worker reads its own shards: ds.num_shards >= N)"]),
    (r"^Unable to shard a dataset of size %s into %s shards|^Cannot split an iterable dataset with num_shards=%s "
     r"across world_size=%s|^Cannot iterate with strategy='shards'",
     "The dataset has fewer shards (files) or rows than the parts it is split into: each node / rank needs at least "
     "one shard with strategy='shards' (datasets.distributed.split_dataset_by_node).",
     ["split by examples instead (split_dataset_by_node without strategy='shards'), or write the data as more "
      "files: ds.to_iterable_dataset(num_shards=<a multiple of world_size>) / save it in >= world_size parquet files"]),
    (r"^Sharding is ambiguous for this dataset",
     "A generator-based dataset (Dataset.from_generator / IterableDataset) got gen_kwargs with several lists of "
     "different lengths; datasets shards over a list and cannot tell which.",
     ["pass the list to shard over as the only list in gen_kwargs (the others as tuples or inside one object)"]),
    (r"^There was an overflow with type %s\. Try to reduce writer_batch_size",
     "Arrow arrays are limited to 2 GB per chunk: a batch of map / from_generator output was larger (long texts, "
     "images, big token lists).",
     ["map(..., writer_batch_size=100) (or smaller; the message's advice), and batch_size as small"]),
    (r"^Couldn't write column '%s': its type in this file is null",
     "The first values written for a column were all None, so Arrow typed it null and a later value does not fit.",
     ["give the column's type: map(..., features=Features({...})) / from_generator(features=...), or return a "
      "typed value (not None) in the first examples"]),
    (r"^TMPDIR is set to '%s' but",
     "datasets puts temporary cache files (keep_in_memory maps, fingerprints) under TMPDIR, which names a folder "
     "that does not exist or is not a directory on this node.",
     ["mkdir -p \"$TMPDIR\" on every node (the job's prolog), or unset TMPDIR"]),
    (r"^Using `\.(?:map|filter|select|sort|shuffle|train_test_split)`? (?:in batched mode )?on a dataset with "
     r"attached indexes",
     "The dataset has a FAISS / Elasticsearch index attached, which this operation would invalidate.",
     ["ds.drop_index('<index name>') first, run the operation, then add the index again (the message's advice)"]),
    (r"^test_size=%s should be either positive|^train_size=%s should be either positive|^With n_samples=%s, "
     r"test_size=%s and train_size=%s, the resulting train set will be empty|^The sum of t(?:est|rain)_size",
     "train_test_split got sizes that do not fit the number of rows (a float must be in (0, 1), an int below the "
     "number of rows).",
     ["train_test_split(test_size=0.1) (a fraction) or an int smaller than len(ds)"]),
    (r"^The least populated class in %s column has only 1 member",
     "train_test_split(stratify_by_column=...) needs at least two rows of every class.",
     ["drop (or merge) the classes with one row, or split without stratify_by_column"]),
    (r"^Class encoding is only supported for %s column|^Stratifying by column is only supported for %s column",
     "The column is not a ClassLabel (strings or ints): stratify / align_labels need class ids.",
     ["ds = ds.class_encode_column('<column>') first"]),
    # ---- datasets: load_dataset / load_from_disk (load.py, builder.py, data_files.py)
    (r"^Dataset scripts are no longer supported, but found %s",
     "datasets 4.0 removed loading scripts (<name>.py in the dataset repository); this dataset still has one.",
     ["load the dataset's Parquet conversion: load_dataset('<repo>', revision='refs/convert/parquet'), or a "
      "script-free copy of it, or pip install 'datasets<4' (which runs the script with trust_remote_code=True)"]),
    (r"^`trust_remote_code` is not supported anymore",
     "datasets 4.0 removed loading scripts and with them trust_remote_code; the call still passes it.",
     ["remove trust_remote_code=... from load_dataset (a dataset that needs a script: pin 'datasets<4')"]),
    (r"^You are trying to load a dataset that was saved using `save_to_disk`",
     "load_dataset was pointed at a folder written by Dataset.save_to_disk (Arrow files with state.json), which "
     "only load_from_disk reads.",
     ["datasets.load_from_disk('<folder>') (the message's advice)"]),
    (r"^Directory %s is neither a `Dataset` directory nor a `DatasetDict` directory|^No such files?: '%s'",
     "load_from_disk (or Dataset / DatasetDict.load_from_disk) found no state.json / dataset_dict.json in the "
     "folder: not a save_to_disk folder (raw files are read with load_dataset), a split's subfolder mixed up with "
     "the DatasetDict's, or a path missing on this node.",
     ["point load_from_disk at the folder save_to_disk wrote (with dataset_dict.json for a DatasetDict, "
      "state.json for one Dataset); raw json/csv/parquet files: load_dataset('json', data_files=...)"]),
    (r"^Config name is missing\.",
     "The dataset has several configurations (subsets) and load_dataset was not told which one.",
     ["load_dataset('<name>', '<config>') with one of the configs the message lists (datasets.get_dataset_config_"
      "names('<name>'))"]),
    (r"^BuilderConfig '?%s'? not found\. Available: |^BuilderConfig %s not found",
     "The configuration (second argument / name=) is not one of this dataset's.",
     ["a config the message lists as available: load_dataset('<name>', '<config>')"]),
    (r"^Bad split: %s\. Available splits: |^Unknown split ",
     "split= names a split this dataset does not have (e.g. 'validation' where there is only 'train').",
     ["split= one of the available splits the message lists; slice one: split='train[:10%]'"]),
    (r"^Checksums didn't match",
     "The downloaded files differ from the checksums recorded for the dataset: the files changed upstream, or a "
     "partial / corrupted download sits in the cache.",
     ["load_dataset(..., download_mode='force_redownload'); if the source changed on purpose: "
      "verification_mode='no_checks' (the message's advice)"]),
    (r"^Loading a dataset cached in a %s is not supported|^Loading a streaming dataset cached in a %s is not "
     r"supported",
     "datasets <= 2.14.5 checks the cache's filesystem class, and fsspec 2023.9 changed the name it reports for "
     "the local one ('LocalFileSystem' is no longer recognised), so even a local cache is refused.",
     ["pip install -U datasets (2.14.6+ reads the new name; https://github.com/huggingface/datasets/issues/6352), or pin "
      "fsspec==2023.6.0 with the old datasets"]),
    (r"^Dataset '%s' is a gated dataset on the Hub|gated dataset",
     "The dataset is gated on the Hub: the user must accept its conditions and the job must send a token.",
     ["accept the conditions on the dataset's Hub page, then hf auth login (or export HF_TOKEN=<token>) on the "
      "node the job runs on"]),
    (r"^Dataset '%s' doesn't exist on the Hub|^Couldn't find any data file at %s\. Couldn't find '%s' on the Hugging "
     r"Face Hub|^Couldn't find a dataset script at|^Couldn't find '%s' on the Hugging Face Hub|"
     r"^Revision '%s' doesn't exist for dataset",
     "The name is neither a local folder (relative to the working directory of the job) nor a dataset the Hub "
     "knows (a typo, a private dataset without a token, a revision that does not exist).",
     ["check the id on https://huggingface.co/datasets/<id>; a local path must exist on every node (absolute "
      "path); private: hf auth login / HF_TOKEN"]),
    (r"^Couldn't reach '%s' on the Hub|^Couldn't reach the Hugging Face Hub for dataset|^Couldn't reach %s \(",
     "The node could not reach the Hub (compute nodes without internet, a proxy, the Hub down) and the dataset is "
     "not in the local cache.",
     [_OFFLINE]),
    (r"^Couldn't find any data file at %s\.$|^Unable to find '%s'|^No \(supported\) data files found|"
     r"^Empty 'data_files'|doesn't contain data files matching the patterns",
     "data_files / data_dir matched no file: a relative path read from another working directory, a glob that "
     "matches nothing on this node, or a folder that is not on a filesystem this node mounts.",
     ["pass absolute paths that exist on every node (ls them in the job), e.g. load_dataset('json', "
      "data_files={'train': '/shared/data/train-*.jsonl'})"]),
    (r"^Please specify the data files or data directory to load for the %s dataset builder",
     "A packaged builder (json, csv, parquet, text, imagefolder) was called without data_files / data_dir.",
     ["load_dataset('<builder>', data_files='<path or glob>') (or data_dir=)"]),
    (r"^Dataset %s is not cached in %s",
     "Offline (HF_DATASETS_OFFLINE / HF_HUB_OFFLINE=1) load_dataset found no cached copy of the dataset in this "
     "cache folder.",
     [_OFFLINE + " (the same cache_dir / HF_DATASETS_CACHE the job uses)"]),
    # ---- TRL: the vLLM server and colocation (generation/vllm_client.py, vllm_generation.py)
    (r"^The vLLM server can't be reached at %s after %s seconds|^Server is not up after %s seconds",
     "GRPOTrainer(use_vllm=True, vllm_mode='server') generates with a separate `trl vllm-serve` process and found "
     "none at the configured host:port (not started, another host / port, a firewall, or still loading).",
     ["start it first on its own GPUs: CUDA_VISIBLE_DEVICES=7 trl vllm-serve --model <model> (then train on the "
      "others: accelerate launch --num_processes 7 ...), with vllm_server_base_url (or vllm_server_host / port) "
      "pointing at it; or vllm_mode='colocate' to generate inside the training processes"]),
    (r"^tensor_parallel_size \(%s\) must divide world size \(%s\) evenly",
     "vllm_mode='colocate' groups the training processes by vllm_tensor_parallel_size; the number of processes "
     "is not a multiple of it.",
     ["vllm_tensor_parallel_size = a divisor of the number of training processes (1 by default), or launch a "
      "multiple of it"]),
    (r"^vllm_mode must be either 'server' or 'colocate'",
     "GRPOConfig(vllm_mode=...) takes 'server' or 'colocate' only.",
     ["vllm_mode='server' (with trl vllm-serve) or vllm_mode='colocate'"]),
    (r"does not expose its development endpoints|has no weight-transfer engine",
     "The vLLM server TRL generates with was not started by trl vllm-serve (or lacks the options TRL needs to "
     "push the trained weights to it).",
     ["start the server with trl vllm-serve --model <model> (it sets them), or restart vllm serve with the option "
      "the message names"]),
    # ---- TRL: the trainers' configs (grpo_config.py, sft_config.py, dpo_config.py, *_trainer.py)
    (r"must be (?:evenly )?divisible by the number of generations|must be divisible by num_generations|"
     r"^generation_batch_size \(%s\) must be divisible by the global batch size",
     "GRPO scores each prompt's num_generations completions together, so every generation batch must hold whole "
     "groups: per_device_train_batch_size x processes (x steps_per_generation) must be a multiple of "
     "num_generations.",
     ["choose num_generations among the divisors of per_device_train_batch_size x num_processes (the message "
      "lists the valid values in older TRL), or raise per_device_train_batch_size / gradient_accumulation_steps"]),
    (r"^GRPO requires at least 2 generations per prompt|^RLOO requires at least 2 generations",
     "The group-relative advantage compares each completion with the others of its prompt: one generation per "
     "prompt has nothing to compare with.",
     ["num_generations >= 2 (the default is 8 in recent TRL)"]),
    (r"^Number of reward weights \(%s\) must match number of reward functions",
     "GRPOConfig(reward_weights=[...]) has another length than reward_funcs.",
     ["one weight per reward function, in the same order (or leave reward_weights unset: all 1.0)"]),
    (r"^The reward function '%s' returned %s rewards, but %s were expected",
     "A custom reward function returned a list of another length than the completions it got.",
     ["return one float (or None) per completion: return [score(c) for c in completions]"]),
    (r"^The input examples must contain either 'messages' for conversational data or 'text'|"
     r"^Unexpected input keys in examples",
     "SFTTrainer's dataset has neither a 'text' nor a 'messages' column (nor prompt / completion): it does not "
     "know which column to train on.",
     ["rename the column (ds.rename_column('content', 'text')), set SFTConfig(dataset_text_field='<column>'), or "
      "pass formatting_func=...; supported formats: https://huggingface.co/docs/trl/sft_trainer#dataset-format-"
      "support"]),
    (r"^You passed `quantization_config` to the trainer, but your model is already instantiated",
     "The trainer can only quantize a model it loads itself (model given as a name).",
     ["pass the model id string with quantization_config, or load the model yourself with "
      "from_pretrained(..., quantization_config=BitsAndBytesConfig(...)) and drop the trainer's argument"]),
    (r"does not support `nn\.DataParallel`, which `Trainer` uses when several GPUs are visible",
     "One process saw several GPUs, so the Trainer wraps the model in nn.DataParallel, which this trainer cannot "
     "use.",
     ["launch one process per GPU: accelerate launch train.py / torchrun --nproc_per_node=<GPUs> train.py, or "
      "CUDA_VISIBLE_DEVICES=0 python train.py for one GPU"]),
    (r"^`model` and `ref_model` cannot be the same object",
     "DPO needs a frozen reference model distinct from the trained one.",
     ["omit ref_model (the trainer makes a copy, or uses the base weights under PEFT) (the message's advice)"]),
    (r"^When packing is enabled, `max_length` can't be `None`",
     "Packing concatenates examples into blocks of max_length tokens; with max_length=None there is no block size.",
     ["SFTConfig(packing=True, max_length=<e.g. 2048>)"]),
    (r"^You passed a `PeftModel` instance together with a `peft_config`",
     "The model already carries a PEFT adapter and peft_config asks for another one.",
     ["pass the base model with peft_config, or the PeftModel without peft_config (merge_and_unload() first to "
      "stack a new adapter on merged weights)"]),
    (r"^The specified `(?:pad|eos)_token` \('%s'\) is not found in the vocabulary",
     "The config names a pad / eos token that the tokenizer's vocabulary does not have.",
     ["set it to a token the tokenizer has (e.g. pad_token=tokenizer.eos_token), or add it: "
      "tokenizer.add_special_tokens({...}) and model.resize_token_embeddings(len(tokenizer))"]),
    (r"^You set `assistant_only_loss=True`, but the dataset is not conversational|^You're using "
     r"`assistant_only_loss=True`, but at least one example has no assistant tokens",
     "assistant_only_loss needs conversational data ('messages') and a chat template that marks the assistant's "
     "turns with Jinja's generation ... endgeneration block tags (the tokenizer's return_assistant_tokens_mask).",
     ["use a 'messages' dataset and a chat template with generation / endgeneration block tags (or assistant_only_loss=False); "
      "https://huggingface.co/docs/trl/sft_trainer#train-on-assistant-messages-only"]),
    # ---- bitsandbytes: its CUDA setup (cextension.py, cuda_setup/main.py)
    (r"^CUDA Setup failed despite GPU being available|^CUDA SETUP: Setup Failed!|^CUDA SETUP: CUDA detection failed",
     "bitsandbytes <= 0.42 could not load the libbitsandbytes_cuda<ver>.so for the CUDA version it detected (torch's, "
     "or BNB_CUDA_VERSION): no binary of that version in the wheel, or the CUDA runtime (libcudart.so) it needs not "
     "on LD_LIBRARY_PATH.",
     ["pip install -U bitsandbytes (0.43+ ships binaries for every CUDA torch uses and finds torch's own runtime)",
      _BNB_DIAG + "; then export BNB_CUDA_VERSION=<a version the wheel ships> or add the CUDA runtime's folder to "
      "LD_LIBRARY_PATH"]),
    (r"^CUDA SETUP: Required library version not found: %s",
     "bitsandbytes <= 0.41 has no libbitsandbytes_cuda<ver>.so for the CUDA version it detected (it names the file).",
     ["pip install -U bitsandbytes, or export BNB_CUDA_VERSION=<a version among the wheel's "
      "libbitsandbytes_cuda*.so> with that CUDA runtime on LD_LIBRARY_PATH"]),
    (r"^CUDA SETUP: Problem: The main issue seems to be that the main CUDA (?:runtime )?library was not detected",
     "bitsandbytes <= 0.41 found no libcudart.so (or libcuda.so) in LD_LIBRARY_PATH, the conda prefix or the "
     "linker cache.",
     ["export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:<folder of libcudart.so> (find / -name 'libcudart.so*' 2>/dev/null) "
      "or sudo ldconfig (the message's advice); newer bitsandbytes uses torch's runtime: pip install -U "
      "bitsandbytes"]),
    (r"^'NoneType' object has no attribute 'c",
     "bitsandbytes <= 0.41 sets its native library to None when the CUDA setup fails (the 'CUDA SETUP' lines "
     "above say why), and the first C call (an 8-bit optimizer step, a quantization) then fails on None.",
     ["read the 'CUDA SETUP' lines above it; pip install -U bitsandbytes (0.43+); or " + _BNB_DIAG]),
    (r"native library functionality but it's not available|Native code method attempted to call|"
     r"VERSION MISMATCH|Forgot to compile the bitsandbytes library|binary found at|binary not found at",
     "bitsandbytes could not load its native library (libbitsandbytes_cuda<ver>.so) for the CUDA version torch "
     "reports (or BNB_CUDA_VERSION asks for): the wheel ships no binary of that version, or a source checkout was "
     "not compiled.",
     ["pip install -U bitsandbytes (a wheel with binaries for torch's CUDA); unset BNB_CUDA_VERSION, or set it to a "
      "version the message lists as available", _BNB_DIAG]),
    (r"SETUP ERROR: Missing dependency: %s|runtime libraries were not found in the LD_LIBRARY_PATH",
     "The native library loads a CUDA runtime library (the message names it) that the linker cannot find.",
     ["install the CUDA runtime of that major version (pip install nvidia-cuda-runtime-cu<major>, or the toolkit) "
      "and add its lib folder to LD_LIBRARY_PATH (the message's advice)"]),
    (r"not available in CPU-only version of bitsandbytes|Failed to load CPU-only bitsandbytes library",
     "Only the CPU build of bitsandbytes loaded: torch sees no CUDA (a CPU-only torch wheel, no GPU visible) or the "
     "CUDA binary failed to load.",
     ["python -c 'import torch; print(torch.version.cuda, torch.cuda.is_available())' must print a CUDA version "
      "and True; install a CUDA torch, or run where a GPU is visible"]),
    (r"^bitsandbytes: failed to load backend %s",
     "A bitsandbytes backend plugin (the entry point named in the message) raised on import.",
     ["read the error after it; pip install -U bitsandbytes <the backend package>, or uninstall the backend "
      "package you do not use"]),
    (r"^Loading a quantized checkpoint into non-quantized Linear8bitLt is not supported",
     "An 8-bit state dict was loaded into a Linear8bitLt whose weights are still on the CPU (not quantized yet).",
     ["module.cuda() (or .to('cuda')) before module.load_state_dict() (the message's advice); with transformers "
      "use from_pretrained(..., quantization_config=BitsAndBytesConfig(load_in_8bit=True))"]),
    (r"^Input tensors need to be on the same (?:device|GPU)",
     "A bitsandbytes kernel got tensors on different devices: a quantized model split over GPUs with its input on "
     "another device, or a quantized module moved after quantization.",
     ["put the inputs on the model's device (inputs.to(model.device)); load quantized models with device_map="
      "{'': local_rank} under DDP"]),
]


def _log_entries(tree):
    """(level, line, format) of bitsandbytes <= 0.41's setup log: each `<x>.add_log_entry(msg[, is_warning])` call
    (cuda_setup/main.py: printed, or warned when is_warning=True, once the library fails to load)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "add_log_entry" and node.args:
            fmt = knowgen.py_format(node.args[0])
            warning = any(k.arg == "is_warning" and isinstance(k.value, ast.Constant) and k.value.value
                          for k in node.keywords) or \
                (len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value)
            if fmt and fmt.strip():
                yield ("warning" if warning else "error"), node.lineno, " ".join(fmt.split())


def _formatter_lines(tree):
    """(level, line, format) of each line of literal text in the error formatters of cextension.py (a method named
    _format_*error*: the RuntimeError text ErrorHandlerMockBNBNativeLibrary raises when a native call is made)."""
    for fn in ast.walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and re.match(r"_format_\w*error", fn.name)):
            continue
        doc = fn.body[0].value if fn.body and isinstance(fn.body[0], ast.Expr) else None
        for node in ast.walk(fn):
            if node is not doc and isinstance(node, (ast.JoinedStr, ast.Constant)) and \
                    isinstance(getattr(node, "value", None), (str, list)):
                fmt = knowgen.py_format(node)
                for line in (fmt or "").split("\n"):
                    line = " ".join(line.split())
                    if knowgen.specific_enough(line, need=4, names=False):
                        yield "raise", node.lineno, line


def _none_lib_calls(tree):
    """(level, line, format) of Python's AttributeError for each `lib.c<name>` of bitsandbytes <= 0.41's functional.py,
    which sets `lib = None` when its CUDA setup fails (cextension.py)."""
    seen = set()
    # a reference inside an `if` test is guarded (0.43: `if lib and lib.compiled_with_cuda:`), never raised
    guarded = {id(n) for t in ast.walk(tree) if isinstance(t, (ast.If, ast.IfExp, ast.While)) for n in ast.walk(t.test)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "lib" and \
                re.match(r"c[a-z]\w{4,}$", node.attr) and node.attr not in seen and id(node) not in guarded:
            seen.add(node.attr)
            yield "raise", node.lineno, "'NoneType' object has no attribute '%s'" % node.attr


# a release whose cextension.py leaves `lib` None when the setup fails (0.41.1: `if lib is None and
# torch.cuda.is_available(): ... raise RuntimeError(...)`; 0.43: `except Exception as e: lib = None`; later releases
# put an ErrorHandlerMockBNBNativeLibrary there)
_NONE_LIB = re.compile(r"\blib is None\b|^\s*lib = None\b", re.M)


def extra_sites(path, srcs, none_lib=False):
    """(level, line, format, kind) of what bitsandbytes prints outside raise / logger calls (see the docstring);
    ``none_lib``: whether this release's native library may be None (_NONE_LIB)."""
    out = set()
    for src in srcs:
        try:
            tree = ast.parse(textwrap.dedent(src))
        except SyntaxError:
            continue
        if path == "bitsandbytes/cuda_setup/main.py":
            out.update(x + ("log",) for x in _log_entries(tree))
        elif path == "bitsandbytes/cextension.py":
            out.update(x + ("fmt",) for x in _formatter_lines(tree))
        elif path == "bitsandbytes/functional.py" and none_lib:
            out.update(x + ("nonelib",) for x in _none_lib_calls(tree))
    return sorted(out, key=lambda s: (s[1], s[2]))


def build(files, version):
    sites, seen, ids = [], set(), set()
    sites += wheelmsgs.py_sites(files, "hflibs.", RULES, MSG_FIX, seen, ids)
    groups = wheelmsgs.group(files)
    for path, srcs in groups.items():
        m = re.match(r"older/([a-z_]+)-([^/]+)/(.+)$", path)
        real = m.group(3) if m else path
        none_lib = any(_NONE_LIB.search(src) for src in groups.get(path[:len(path) - len(real)] +
                                                                   "bitsandbytes/cextension.py", []))
        for level, line, fmt, kind in extra_sites(real, srcs, none_lib):
            if fmt in seen:
                continue
            seen.add(fmt)
            site = wheelmsgs.site_for("hflibs." + ("%s_%s_" % (m.group(1), knowgen.slug(m.group(2))) if m
                                                         else "") + kind + "_", ids, level, "%s:%d" % (real, line),
                                      fmt, RULES, MSG_FIX, older=m and "%s %s" % (m.group(1), m.group(2)))
            if kind in ("log", "fmt") and site.get("family") not in (None, "bitsandbytes.setup"):
                # a line of the setup message's guidance or progress ('CUDA SETUP: Solution 1): ...', 'Loading
                # binary ...'): the lines that name the failure assign it
                site.update({"family": None, "rule": "a line of the setup message's guidance, not its failure"})
                site.pop("means", None)
                site.pop("fix", None)
            sites.append(site)
    return {"header": knowgen.header("datasets (https://pypi.org/project/datasets/), trl "
                                     "(https://pypi.org/project/trl/), bitsandbytes "
                                     "(https://pypi.org/project/bitsandbytes/)", version, GENERATOR,
                                     "raise/assert/logger messages of datasets' loading, Dataset / IterableDataset "
                                     "operations and cache, TRL's trainers, configs, dataset checks and vLLM client, "
                                     "bitsandbytes' CUDA setup (its setup log, its error formatters, the None library's "
                                     "AttributeError), quantized layers and optimizers; families from the RULES table "
                                     "of the generator"),
            "sites": sites}


def read(wheels, older=None):
    """([(path, text)], version) of the three wheels and of the older releases ``older`` ({dist: [wheel, ...]}),
    whose files are read under 'older/<dist>-<version>/<path>', in the order given."""
    files, versions = [], []
    for dist in DISTS:
        f, v = wheelmsgs.from_wheel(wheels[dist], FILES[dist], dist)
        files += f
        versions.append(v)
    olds = []
    for dist in DISTS:
        for wheel in (older or {}).get(dist) or ():
            f, v = wheelmsgs.from_wheel(wheel, FILES[dist], dist)
            files += [("older/%s-%s/%s" % (dist, v.split()[1], p), src) for p, src in f]
            olds.append(v)
    return files, "; ".join(versions) + ("; older: " + "; ".join(olds) if olds else "")


def _keep_lines(files, doc):
    """The extra blocks of the slice: for each site extra_sites made that has a family, the source it reads (the
    add_log_entry statement; the _format_* method whole; the line of the `lib.<name>` call) and, for a release with
    such `lib.<name>` sites, the statement of its cextension.py that leaves the library None (_NONE_LIB)."""
    made = [s for s in doc["sites"] if s.get("family") and
            re.match(r"hflibs\.(?:[a-z_0-9]+_)?(?:log|fmt|nonelib)_", s["id"])]
    want = {wheelmsgs.site_key(s) for s in made}
    none_lib = {wheelmsgs.site_key(s).rsplit("bitsandbytes/functional.py", 1)[0] + "bitsandbytes/cextension.py"
                for s in made if "_nonelib_" in s["id"]}
    out = []
    for p, src in files:
        keys = sorted(int(k.rsplit(":", 1)[1]) for k in want if k.rsplit(":", 1)[0] == p)
        lines = src.splitlines()
        tree = ast.parse(src)
        spans = []
        if p in none_lib:  # the `if lib is None ...` test (0.41) or the `lib = None` assignment (0.43)
            spans += [(n.lineno, n.end_lineno) for n in ast.walk(tree) if isinstance(n, ast.If) and
                      _NONE_LIB.search(ast.get_source_segment(src, n.test) or "")]
            spans += [(n.lineno, n.end_lineno) for n in ast.walk(tree) if isinstance(n, ast.Assign) and
                      _NONE_LIB.search(ast.get_source_segment(src, n) or "")]
        for ln in keys:
            fn = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and
                       re.match(r"_format_\w*error", n.name) and n.lineno <= ln <= n.end_lineno), None)
            if fn is not None:
                spans.append((fn.lineno, fn.end_lineno))
                continue
            st = min((n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno <= ln <= n.end_lineno
                      and not isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.If, ast.For, ast.With, ast.While,
                                             ast.Try))),
                     key=lambda n: n.end_lineno - n.lineno, default=None)
            spans.append((st.lineno, st.end_lineno) if st is not None else (ln, ln))
        for a, b in sorted(set(spans)):
            out.append((p, a, textwrap.dedent("\n".join(lines[a - 1:b]))))
    return out


def main(argv):
    a = knowgen.arguments(__doc__, argv, source=DISTS, source_opts={
        "datasets": {"help": "the datasets wheel"}, "trl": {"help": "the trl wheel"},
        "bitsandbytes": {"help": "the bitsandbytes wheel"}}, extra=[
        ("--older-datasets", {"action": "append", "help": "an older datasets wheel: the messages it printed that "
                                                          "the current one no longer does (repeatable)"}),
        ("--older-trl", {"action": "append", "help": "an older trl wheel (repeatable)"}),
        ("--older-bitsandbytes", {"action": "append", "help": "an older bitsandbytes wheel (repeatable)"}),
        ("--record", {"help": "write the slice (the statements of the assigned sites)"})])
    if a.slice:
        files, version = knowgen.read_slice(a.slice)
    else:
        files, version = read({d: getattr(a, d) for d in DISTS},
                              {d: getattr(a, "older_" + d) for d in DISTS})
    doc = build(files, version)
    if not a.slice:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], of="wheel")
        if a.record:
            keep = {wheelmsgs.site_key(s) for s in doc["sites"] if s.get("family")}
            wheelmsgs.write_record(a.record, version, files, keep.__contains__, GENERATOR, _keep_lines(files, doc))
    return knowgen.emit("hflibs_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
