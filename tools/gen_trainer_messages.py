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
accelerate/utils/dataclasses.py, accelerate/utils/bnb.py; transformers
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
    "accelerate": ["accelerate/accelerator.py", "accelerate/utils/dataclasses.py", "accelerate/utils/bnb.py"],
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
