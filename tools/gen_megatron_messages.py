#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/megatron_messages.json: the checks Megatron-LM / Megatron-Core make of
a training run's arguments and parallel layout (tensor / pipeline / context / expert parallel sizes against the world
size, layers, heads and experts; micro vs global batch; fp16 / bf16 / fp8 flags; CUDA_DEVICE_MAX_CONNECTIONS; the
distributed optimizer and checkpoint formats; TransformerEngine versions) and what they raise when one fails.

Read from NVIDIA/Megatron-LM at a release tag with Python's ast (never executed), in FILES: every `raise X("...")`,
`assert cond, "..."`, logger.error / .warning, warn_rank_0 (a warning) and print_rank_0 / print whose block then calls
sys.exit() (Megatron's checkpoint loader prints 'ERROR: ...' or 'could not load the checkpoint' and exits). Each
assert records its CONDITION's source text beside the message: the message is often short ('Number of experts should
be a multiple of expert model parallel_size.') while the condition states the rule
(`args.num_experts % args.expert_model_parallel_size == 0`), so the site's fix quotes it. An assert with no message
prints a bare `AssertionError` after the traceback's source line `assert <condition>`: that line (one source line,
naming a setting) is the site's text and matcher. With --older TAG, the sites only older releases print (their
wordings, and the files' older places: megatron/arguments.py before core_v0.6, megatron/mpu/ in v2.x, the release the
Megatron-DeepSpeed forks started from), each with `until` (the newest of those tags that prints it).

Usage:
    python tools/gen_megatron_messages.py --repo <NVIDIA/Megatron-LM.git> --rev core_v0.19.0 \\
        --older core_v0.12.0 --older core_v0.5.0 --older 23.06 --older v2.6 [-o OUT]
    python tools/gen_megatron_messages.py --slice tools/data/megatron_messages_slice.txt -o OUT   (the test)

Source: NVIDIA/Megatron-LM (https://github.com/NVIDIA/Megatron-LM, BSD-3-Clause-style license): megatron/training/
{arguments,initialize,checkpointing}.py, megatron/core/parallel_state.py, megatron/core/model_parallel_config.py,
megatron/core/transformer/transformer_config.py, megatron/core/distributed/**, megatron/core/optimizer/**. The
arguments are documented at https://docs.nvidia.com/megatron-core/developer-guide/latest/ and in the repository's
README.md ("Parallelism", "Distributed optimizer", "Checkpointing").
"""

import ast
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_megatron_messages.py"
KEEP = re.compile(r"^tools/checkpoint/[a-z_]{2,60}\.py$|^megatron/(?:(?:training/)?(?:arguments|initialize|checkpointing)\.py|core/parallel_state\.py|"
                  r"core/model_parallel_config\.py|core/transformer/transformer_config\.py|core/num_microbatches_calculator\.py|"
                  r"microbatches\.py|core/transformer/transformer_block\.py|training/training\.py|"
                  r"core/datasets/[a-z_]{2,60}\.py|training/datasets/[a-z_]{2,60}\.py|"
                  r"core/tensor_parallel/(?:mappings|layers|utils|data|random)\.py|mpu/(?:initialize|mappings|layers|utils)\.py|"
                  r"core/(?:distributed|optimizer)/.{1,120}\.py)$")


def place(path):
    """The path a site is recorded at: the file's current place (megatron/arguments.py moved to megatron/training/ in
    core_v0.6), so that rules and ids name one file whichever release printed the site."""
    path = re.sub(r"^megatron/(arguments|initialize|checkpointing)\.py$", r"megatron/training/\1.py", path)
    path = re.sub(r"^megatron/microbatches\.py$", "megatron/core/num_microbatches_calculator.py", path)
    # Megatron-LM v2.x (and the Megatron-DeepSpeed forks of it) kept parallel_state and tensor_parallel in megatron/mpu/
    path = re.sub(r"^megatron/mpu/initialize\.py$", "megatron/core/parallel_state.py", path)
    return re.sub(r"^megatron/mpu/(mappings|layers|utils)\.py$", r"megatron/core/tensor_parallel/\1.py", path)


# the internal code of DDP, the buffers, FSDP and the optimizers: its sizes are of buffers, not the user's layout
_NOT_INTERNAL = r"^(?!megatron/core/(?:distributed|optimizer)/)"  # (tensor_parallel's sizes are the activations')
# (rule, family, {field: regex}); fields: where (path:line), text (the message, or 'assert <condition>'), cond (the
# assert's condition, '' for others), level. The first that matches wins (IGNORECASE, knowgen.assign).
RULES = [
    ("warning", None, {"level": r"^warning$"}),
    # ensure_divisibility's text (megatron/mpu/utils.py in v2.x, core/utils.py's divide()): it names no size, and every
    # library's helper of that name prints it (vLLM, Colossal-AI, MiniLLM): not Megatron's to answer
    ("generic-divisibility", None, {"text": r"^%s (?:is not |must be |should be )?(?:evenly )?(?:divisible by|a "
                                            r"multiple of) %s\.?$"}),
    # arguments.py / parallel_state.py / initialize.py: sequence parallel and TP/CP comm overlap need one CUDA work
    # queue (the kernels' launch order is the communication order), FSDP needs more than one
    ("max-connections", "megatron.cuda_device_max_connections", {"text": r"CUDA_DEVICE_MAX_CONNECTIONS"}),
    ("max-connections-cond", "megatron.cuda_device_max_connections", {"cond": r"CUDA_DEVICE_MAX_CONNECTIONS"}),
    # parallel_state.py's getters and initializers: a group used before initialize_model_parallel() (or set twice)
    ("state-init", "megatron.parallel_state_init", {"where": r"^megatron/core/parallel_state\.py:",
                                                    "text": r"(?:is not|is already|has not been) initialized|"
                                                            r"requires parallel state to be initialized"}),
    ("state-init-cond", "megatron.parallel_state_init", {"where": r"^megatron/core/parallel_state\.py:",
                                                         "cond": r"^_[A-Z_]{4,80} is (?:not )?None$|"
                                                                 r"distributed\.is_initialized\(\)$"}),
    # a package or release the run needs: TransformerEngine, PyTorch, FlashInfer, nvidia-resiliency-ext, apex, einops
    ("dependency", "megatron.dependency",
     {"text": r"(?:requires?|supported with|needs) (?:Transformer ?Engine|TE|PyTorch|torch|FlashInfer|pytorch)"
              r"[ v]{0,3}(?:>=|version|v?\d)|is not installed|pip install|No module named|"
              r"(?:module|package|packages) (?:is |are )?(?:required|needed)|is required for|needs '?(?:yaml|einops)|"
              r"Cannot import|requires (?:the )?[a-z_]{3,40} package|Megatron requires CUDA|"
              r"transformer[-_ ]engine (?:is )?required|"
              r"Installed [a-z_-]{3,40} does not support|for pytorch v\d"}),
    ("dependency-cond", "megatron.dependency", {"cond": r"is_te_min_version|is_torch_min_version|HAVE_[A-Z_]{2,40}\b|"
                                                        r"get_te_version|te_version"}),
    # an argument Megatron removed or renamed (arguments.py: '--batch-size argument is no longer valid, use ...')
    ("removed", "megatron.args", {"text": r"is no longer valid|is deprecated|no longer supported"}),
    # micro / global batch against the data-parallel size (arguments.py, microbatches calculator)
    ("batch", "megatron.batch_size", {"text": r"(?:global|micro|eval)[_ -]?batch[_ -]?size|rampup|batch size|"
                                              r"number of microbatches"}),
    ("batch-cond", "megatron.batch_size", {"cond": r"(?:global|micro)_batch_size"}),
    # the parallel layout: sizes that must divide the world size, the layers, heads, experts, sequence length
    ("sizes", "megatron.parallel_sizes",
     {"where": _NOT_INTERNAL, "text": r"(?:not |be |is |evenly )?divisible|multiple of|world[_ ]size|(?:tensor|pipeline|context|expert|data)"
              r"[- _](?:model[- _])?parallel[- _](?:size|degree)|pipeline[- _]model[- _]parallel[- _]size|"
              r"num_query_groups|attention heads|layers per (?:pipeline|virtual)"}),
    ("sizes-cond", "megatron.parallel_sizes", {"where": _NOT_INTERNAL, "cond": r"%[^=]{1,200}(?:parallel_size|world_size|num_layers|"
                                                       r"pipeline_stage|num_attention_heads|num_query_groups|"
                                                       r"num_experts|seq_length|hidden_size)|"
                                                       r"(?:parallel_size|world_size|num_layers|num_attention_heads|"
                                                       r"num_query_groups|num_experts|hidden_size)[^=]{0,200}%"}),
    # loading and saving (checkpointing.py and the checkpoint formats the arguments name)
    ("checkpoint", "megatron.checkpoint", {"where": r"^megatron/training/checkpointing\.py:"}),
    # activation checkpointing (recomputation) is a model setting, not a checkpoint file (v2.x arguments.py)
    ("activation-recompute", "megatron.args", {"text": r"checkpointed activations|activation[- ]checkpoint|"
                                                        r"checkpoint(?:ing)? activations|distribute-checkpointed"}),
    ("checkpoint-words", "megatron.checkpoint", {"text": r"checkpoint|ckpt|--load\b|--save\b|dist-ckpt"}),
]
# Assigned by SOURCE CONTEXT, always to a generic family (megatron.parallel_sizes and .batch_size name a cause: only
# the words above assign them) (the pattern of gen_slurm_messages / gen_ray_messages CONTEXT_RULES): a raise or assert
# that no rule above assigns by its words gets the family of the code that checks it; too few words of its own
# (knowgen.specific_enough) stays unassigned.
CONTEXT_RULES = [
    # the command line's arguments and the model / parallel config classes built from them
    ("ctx-args", "megatron.args", r"^megatron/(?:training/(?:arguments|initialize)\.py|core/(?:model_parallel_config|"
                                  r"transformer/transformer_(?:config|block))\.py):"),
    # the datasets: --data-path's .bin/.idx prefixes, blends and splits, the C++ helpers built at start
    ("ctx-data", "megatron.data", r"^megatron/(?:core|training)/datasets/"),
    # the checkpoint converters (tools/checkpoint/convert.py's loaders and savers, the inspector)
    ("ctx-ckpt-tools", "megatron.checkpoint", r"^tools/checkpoint/"),
    # the training loop's own checks (training.py): its arguments
    ("ctx-train", "megatron.args", r"^megatron/training/training\.py:"),
    # the microbatch calculator (global batch = micro batch x data-parallel size x accumulation steps)
    ("ctx-batch", "megatron.args", r"^megatron/core/num_microbatches_calculator\.py:"),
    # the process groups' layout (RankGenerator, initialize_model_parallel)
    ("ctx-layout", "megatron.args", r"^megatron/core/parallel_state\.py:"),
    # DDP, the gradient buffers, FSDP and the optimizers: internal checks a combination of options or a checkpoint of
    # another layout trips
    ("ctx-internal", "megatron.internal", r"^megatron/core/(?:distributed|optimizer|tensor_parallel)/"),
]
RULES += [(name, family, {"level": r"^(?:raise|assert|exit|error)$", "where": where})
          for name, family, where in CONTEXT_RULES]
VAGUE = "too few words of its own to assign by its source file"  # knowgen.specific_enough


# What one message means and what to do: [(regex over the text, means, [fix])]. The {%N|words} slots are the
# message's values (gpudoctor/explain/slots.py).
MSG_FIX = [
    (r"^world[ _]size \(%s\) is not divisible by",
     "Megatron needs the world size ({%1|the number of ranks}) to be a multiple of the product of the model-parallel "
     "sizes the message names (tensor x pipeline x context parallel, x expert parallel for the expert layers): the "
     "ranks left over are the data-parallel replicas (megatron/training/arguments.py, megatron/core/parallel_state.py).",
     ["launch a multiple of TP x PP x CP ranks (torchrun --nproc-per-node x --nnodes, srun -n), or lower "
      "--tensor-model-parallel-size / --pipeline-model-parallel-size / --context-parallel-size / "
      "--expert-model-parallel-size so that their product divides the world size"]),
    (r"^(?:current )?global batch size \(%s\) is not divisible by micro[ _-]batch[ _-]size \(%s\)",
     "Megatron runs global batch / (micro batch x data-parallel size) micro-batches per step, so --global-batch-size "
     "({%1|the global batch}) must be a multiple of --micro-batch-size ({%2|the micro batch}) x the data-parallel size "
     "({%3|world size / (TP x PP x CP)}) (megatron/core/num_microbatches_calculator.py).",
     ["set --global-batch-size to a multiple of --micro-batch-size x data-parallel size (data-parallel size = world "
      "size / (TP x PP x CP)); or change --micro-batch-size or the number of ranks"]),
    (r"^world size is not divisible by tensor parallel size \(%s\) times pipeline parallel size \(%s\)",
     "Megatron needs the world size (the number of ranks) to be a multiple of --tensor-model-parallel-size x "
     "--pipeline-model-parallel-size: the ranks left over are the data-parallel replicas. This release's message "
     "(megatron/arguments.py of Megatron-LM 23.x) has two places for three values: the first number it prints is the "
     "world size ({%1|the first number}) and the second the tensor-parallel size ({%2|the second number}), not the "
     "pipeline size.",
     ["launch a multiple of TP x PP ranks (torchrun --nproc-per-node x --nnodes, srun -n), or lower "
      "--tensor-model-parallel-size / --pipeline-model-parallel-size so that their product divides the world size"]),
    (r"^(?:number of layers of the model must be divisible pipeline model parallel size|Number of layers should be "
     r"divisible by the pipeline-model-parallel size|num_layers(?:=%s)? should be divisible by "
     r"(?:config\.)?pipeline_model_parallel_size)",
     "each pipeline stage holds the same number of transformer layers, so --num-layers must be a multiple of "
     "--pipeline-model-parallel-size (megatron/training/arguments.py).",
     ["choose --pipeline-model-parallel-size among the divisors of --num-layers, or give the first / last stage its "
      "own count (--decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers), or "
      "--pipeline-model-parallel-layout"]),
    (r"^First dimension of the tensor should be divisible by tensor parallel size",
     "with sequence parallel, the activations are split along their first dimension (the sequence, after packing or "
     "padding) over the tensor-parallel ranks: its length must be a multiple of --tensor-model-parallel-size "
     "(megatron/core/tensor_parallel/mappings.py).",
     ["make every sequence's length a multiple of the TP size: --seq-length divisible by --tensor-model-parallel-size, "
      "and a packed / unpadded batch padded to a multiple of TP; or drop --sequence-parallel"]),
    (r"^number of layers per pipeline stage must be divisible number of layers per virtual pipeline stage",
     "with the interleaved schedule each pipeline stage is cut into virtual stages of "
     "--num-layers-per-virtual-pipeline-stage layers: num_layers / pipeline size must be a multiple of it.",
     ["choose --num-layers-per-virtual-pipeline-stage (or --num-virtual-stages-per-pipeline-rank) among the divisors "
      "of num_layers / --pipeline-model-parallel-size"]),
    (r"^Number of experts should be a multiple of expert model parallel_size",
     "the experts are split evenly over the expert-parallel ranks: --num-experts must be a multiple of "
     "--expert-model-parallel-size (megatron/training/arguments.py).",
     ["choose --expert-model-parallel-size among the divisors of --num-experts"]),
    (r"^num_experts must be non None to use expert model parallelism",
     "--expert-model-parallel-size > 1 was given for a model with no experts (--num-experts not set).",
     ["set --num-experts (an MoE model), or drop --expert-model-parallel-size"]),
    (r"^seq-length should be a multiple of 2 \* context-parallel-size",
     "context parallelism splits each sequence into 2 x CP chunks (load balancing with the causal mask), so "
     "--seq-length must be a multiple of 2 x --context-parallel-size.",
     ["pick --seq-length divisible by 2 x --context-parallel-size (or a smaller --context-parallel-size)"]),
    (r"^(?:num_attention_heads \(%s\) must be a multiple of tensor_model_parallel_size|"
     r"number of attention heads \(%s\) must be a multiple of)",
     "attention heads are split evenly over the tensor-parallel ranks: --num-attention-heads must be a multiple of "
     "--tensor-model-parallel-size (and --num-query-groups too, with grouped-query attention).",
     ["choose --tensor-model-parallel-size among the divisors of --num-attention-heads (and of --num-query-groups)"]),
    (r"^num_query_groups \(%s\) must be a multiple of tensor_model_parallel_size",
     "with grouped-query attention the key/value groups are split over the tensor-parallel ranks: --num-query-groups "
     "must be a multiple of --tensor-model-parallel-size.",
     ["choose --tensor-model-parallel-size among the divisors of --num-query-groups"]),
    (r"^(?:When interleaved schedule is used, pipeline-model-parallel size should be greater than 1|"
     r"pipeline-model-parallel size should be greater than 1 with interleaved schedule)",
     "virtual pipeline stages (the interleaved schedule) were asked for with a single pipeline stage.",
     ["drop --num-layers-per-virtual-pipeline-stage / --num-virtual-stages-per-pipeline-rank, or use "
      "--pipeline-model-parallel-size 2 or more"]),
    (r"^Using tensor model parallelism or context parallelism require setting the environment variable "
     r"CUDA_DEVICE_MAX_CONNECTIONS to 1",
     "with TP or CP (and sequence parallel), Megatron overlaps communication with computation by the order kernels are "
     "queued in; that needs one hardware work queue: CUDA_DEVICE_MAX_CONNECTIONS=1 in every rank's environment "
     "(megatron/training/arguments.py; not needed on Blackwell).",
     ["export CUDA_DEVICE_MAX_CONNECTIONS=1 before the launcher, where every rank inherits it (torchrun, srun "
      "--export=ALL, a container's -e)"]),
    (r"^(?:FSDP always requires CUDA_DEVICE_MAX_CONNECTIONS value large than one|FSDP requires "
     r"CUDA_DEVICE_MAX_CONNECTIONS > 1 or unset)",
     "FSDP overlaps its all-gathers with computation on several work queues: CUDA_DEVICE_MAX_CONNECTIONS=1 (set for "
     "tensor / sequence parallel) serializes them, and Megatron refuses it.",
     ["unset CUDA_DEVICE_MAX_CONNECTIONS (or set it to 8 or 32) for FSDP runs"]),
    (r"^--(?:batch-size|warmup|model-parallel-size) argument is no longer valid, use",
     "the script passes an argument Megatron removed; the message names its replacement.",
     ["replace it as the message says: --batch-size -> --micro-batch-size (and --global-batch-size), --warmup -> "
      "--lr-warmup-fraction / --lr-warmup-iters, --model-parallel-size -> --tensor-model-parallel-size"]),
    (r"^Detected load from a distributed checkpoint, but neither --use-dist-ckpt nor --auto-detect-ckpt-format is set",
     "--load points at a distributed (torch_dist) checkpoint while this run reads the legacy per-rank format.",
     ["add --auto-detect-ckpt-format (or --ckpt-format torch_dist / --use-dist-ckpt)"]),
    # checkpointing.py load_checkpoint raises it only with --pretrained-checkpoint given, when neither that nor --load
    # holds the tracker file checkpoint_exists() looks for; --exit-on-missing-checkpoint has no part in it
    (r"^No checkpoint found in load directory or pretrained directory",
     "--pretrained-checkpoint was given and neither it nor --load holds latest_checkpointed_iteration.txt, the "
     "tracker file Megatron looks for at the top of a checkpoint directory (megatron/training/checkpointing.py "
     "checkpoint_exists).",
     ["ls <--load dir> <--pretrained-checkpoint dir>  (latest_checkpointed_iteration.txt beside iter_*/); point "
      "--pretrained-checkpoint (or --load) at the directory that holds the tracker file, not at an iter_NNNNNNN "
      "folder inside it; or drop --pretrained-checkpoint to start from random weights"]),
    (r"^--use-checkpoint-args requires --load",
     "--use-checkpoint-args reads the model's arguments from the checkpoint given by --load or --pretrained-checkpoint, "
     "and neither was given.", ["add --load <checkpoint dir> (or drop --use-checkpoint-args)"]),
    (r"^One or both of the \.idx and \.bin files cannot be found at the path prefix",
     "--data-path (or a blend's entry) names a prefix with no {%1|<prefix>}.bin / .idx beside it: tools/"
     "preprocess_data.py writes <output-prefix>_text_document.bin and .idx (the JSON key's name in place of 'text'), "
     "and --data-path takes that prefix without the extension, on a path every node can read "
     "(megatron/core/datasets/indexed_dataset.py).",
     ["ls {%1|<prefix>}.bin {%1|<prefix>}.idx on every node; pass --data-path <dir>/<name>_text_document (no .bin/.idx), "
      "or run tools/preprocess_data.py --input <data>.jsonl --output-prefix <dir>/<name> first"]),
    (r"^Failed to compile the C\+\+ dataset helper functions",
     "Megatron builds megatron/core/datasets/helpers_cpp at start with `make -C megatron/core/datasets` on rank 0, "
     "and the build failed (no C++ compiler, no pybind11, or a read-only checkout).",
     ["pip install pybind11; make -C megatron/core/datasets (from the Megatron-LM checkout, writable) and read its "
      "error; a g++ / build-essential in the image"]),
    (r"^Megatron requires CUDA\.",
     "torch.cuda.is_available() is False in this process: a CPU-only torch, no GPU visible (CUDA_VISIBLE_DEVICES, the "
     "container's --gpus) or a driver torch cannot use.",
     ["python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())'; nvidia-smi"]),
]


def _flags(cond):
    """The condition with Megatron's argument names as the flags a user types: args.foo_bar -> --foo-bar."""
    return re.sub(r"\bargs\.([a-z][a-z0-9_]{0,80})", lambda m: "--" + m.group(1).replace("_", "-"), cond)


def _cond_fix(site, where):
    """The meaning and fix of an assert site no MSG_FIX row gives: the rule is its condition, quoted."""
    cond = site["condition"]
    path = where.split(":")[0]
    shown = _flags(cond) if "/training/" in path else cond
    means = "Megatron-LM checks `%s` (%s) and it did not hold: the message says which setting broke it." % (shown, where)
    return means, ["change the arguments so that `%s` holds%s" % (
        shown, "" if shown == cond else " (--x-y is args.x_y in the condition)")]


# a condition too generic to match its source line: it names no setting (an identifier of 8+ characters with '_')
_SETTING = re.compile(r"[A-Za-z][A-Za-z0-9]{0,80}_[A-Za-z0-9_]{1,80}")


def _named_setting(cond):
    return any(len(m) >= 8 for m in _SETTING.findall(cond))


def _exits(stmts, i):
    """Whether a statement of ``stmts`` after index ``i`` calls sys.exit() / exit() (checkpointing.py prints the error
    with print_rank_0 and exits)."""
    for s in stmts[i + 1:]:
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            f = s.value.func
            if (isinstance(f, ast.Attribute) and f.attr == "exit" and isinstance(f.value, ast.Name) and
                    f.value.id == "sys") or (isinstance(f, ast.Name) and f.id == "exit"):
                return True
    return False


def _print_sites(tree):
    """(level, line, format) of print_rank_0 / print / warn_rank_0 / log_single_rank calls: an error when the block
    then exits or the text starts with 'ERROR', a warning when it is warn_rank_0 or starts with 'WARNING'."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list):
                continue
            for i, s in enumerate(stmts):
                if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and s.value.args):
                    continue
                f = s.value.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if name == "log_single_rank" and len(s.value.args) >= 3:
                    # megatron/core/utils.py log_single_rank(logger, logging.ERROR, msg): the level is its argument
                    lv = s.value.args[1]
                    lv = lv.attr if isinstance(lv, ast.Attribute) else ""
                    fmt = knowgen.py_format(s.value.args[2])
                    if fmt and lv in ("ERROR", "CRITICAL", "WARNING"):
                        yield ("warning" if lv == "WARNING" else "exit" if _exits(stmts, i) else "error",
                               s.lineno, " ".join(fmt.split()))
                    continue
                if name not in ("print_rank_0", "print", "warn_rank_0", "print_rank_last"):
                    continue
                fmt = knowgen.py_format(s.value.args[0])
                if not fmt:
                    continue
                fmt = " ".join(fmt.split())
                if name == "warn_rank_0" or fmt.upper().startswith("WARNING"):
                    yield "warning", s.lineno, fmt
                elif _exits(stmts, i) or fmt.startswith("ERROR"):
                    yield "exit", s.lineno, fmt


def _conditions(tree, src):
    """{line: condition source} of each assert, and [(line, 'assert <condition>')] of those with no message whose
    statement is one source line (what a traceback prints above the bare AssertionError)."""
    conds, bare = {}, []
    lines = src.splitlines()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        seg = ast.get_source_segment(src, node.test) or ""
        conds[node.lineno] = " ".join(seg.split())
        if node.msg is None and node.end_lineno == node.lineno:
            bare.append((node.lineno, lines[node.lineno - 1].strip().split("  #")[0].strip()))
    return conds, bare


def sites_of(path, src):
    """(where, format, level, condition) of one file's sites."""
    src = textwrap.dedent(src)  # a slice's statement blocks keep their indentation
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return
    conds, bare = _conditions(tree, src)
    where = place(path)
    for level, line, fmt in knowgen.py_messages(src):
        yield "%s:%d" % (where, line), fmt, level, conds.get(line, "") if level == "raise" else ""
    for level, line, fmt in _print_sites(tree):
        yield "%s:%d" % (where, line), fmt, level, ""
    for line, text in bare:
        cond = text[len("assert "):] if text.startswith("assert ") else ""
        if cond and _named_setting(cond):
            yield "%s:%d" % (where, line), text.replace("%", "%%"), "assert", cond


def _site(where, fmt, level, cond, ids):
    site = {"id": knowgen.unique_id("megatron." + knowgen.slug(re.sub(r"^megatron/", "", where)), ids),
            "where": where, "text": fmt, "level": level}
    if cond:
        site["condition"] = cond
    rx, literal = knowgen.printf_to_regex(fmt)
    if knowgen.unanchored(site, rx, literal, need=12):
        return site
    rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "cond": cond, "level": level})
    # an assert with no message is its condition: one that names the command line's argument (args.x_y) says what to
    # change however few words it has
    named = level == "assert" and re.search(r"\bargs\.[a-z][a-z0-9_]{2,80}", cond)
    if str(rule).startswith("ctx-") and not named and not knowgen.specific_enough(fmt, names=False):
        rule, family = VAGUE, None
    site.update({"re": rx, "family": family, "rule": rule or "no rule"})
    knowgen.give_fix(site, MSG_FIX, fmt)
    if family and cond and "fix" not in site:
        site["means"], site["fix"] = _cond_fix(site, where)
    return site


def build(files, version, older=()):
    """``files``: [(path, text)] of the pinned release; ``older``: [(tag, [(path, text)])], newest first."""
    sites, seen, ids = [], set(), set()
    for tag, fs in [(None, files)] + list(older):
        for path, src in fs:
            for where, fmt, level, cond in sites_of(path, src):
                if fmt in seen:
                    continue
                seen.add(fmt)
                site = _site(where, fmt, level, cond, ids)
                if tag:
                    site["until"] = tag
                sites.append(site)
    note = ("raise/assert/logger/print-and-exit sites of megatron/training/{arguments,initialize,checkpointing}.py, "
            "megatron/core/{parallel_state,model_parallel_config}.py, transformer/transformer_config.py, "
            "distributed/**, optimizer/**; each assert's condition recorded; families from the RULES table of the "
            "generator")
    if older:
        note += "; older releases: %s (sites with until)" % ", ".join(t for t, _ in older)
    return {"header": knowgen.header("NVIDIA/Megatron-LM (https://github.com/NVIDIA/Megatron-LM)", version, GENERATOR,
                                     note), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return knowgen.tree_files(git, rev, ["megatron", "tools/checkpoint"], KEEP.match), \
        knowgen.revision(git, rev, describe=False)


def _older_from_slice(files):
    """A slice's files of older releases are recorded as `=== <tag>:<path>`."""
    cur, old = [], {}
    for path, text in files:
        tag, sep, rest = path.partition(":")
        if sep and "/" not in tag:
            old.setdefault(tag, []).append((rest, text))
        else:
            cur.append((path, text))
    return cur, list(old.items())


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="core_v0.19.0",
                          extra=[("--older", {"action": "append", "default": []})])
    if a.repo:
        files, version = from_repo(a.repo, a.rev)
        git = knowgen.git_reader(a.repo)
        older = [(t, knowgen.tree_files(git, t, ["megatron", "tools/checkpoint"], KEEP.match)) for t in a.older]
        # (in the order given, newest first: the tags mix schemes, core_v0.12.0, 23.06, v2.6)
    else:
        files, version = knowgen.read_slice(a.slice)
        files, older = _older_from_slice(files)
    doc = build(files, version, older)
    if a.repo:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("megatron_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
