#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/lib_modules.json: the finer family of each module of the training
libraries, read from the wheels' own file lists (family19, issue 18 "the right family", item 3).

When no knowledge entry knows an exception's words, explain answers from where it was raised (pyanswer.py): a
library's frame named '<lib>.library_error' whatever part of the library raised it, though the library's finer
families exist (lightning.callbacks, datasets.load, accelerate.config, transformers.trainer ...) and the
traceback's innermost frame names the module. This table says which module of which package belongs to which of
those families; explain reads it (libwhere.py) for an exception the library raised itself, with its own `raise`
line (an argument check, a refusal), never for an internal failure (an AttributeError, a KeyError, an exception
another package raised under it).

Usage:
    pip download --no-deps --only-binary=:all: lightning accelerate datasets transformers peft trl -d DIR
    python tools/gen_lib_modules.py --wheels DIR [DIR ...] [--record tools/data/lib_modules_slice.txt] [-o OUT]
    python tools/gen_lib_modules.py --slice tools/data/lib_modules_slice.txt -o OUT   (the test)

Sources: the wheels on PyPI (https://pypi.org/project/<distribution>/), fetched with pip's ordinary client: lightning
(https://github.com/Lightning-AI/pytorch-lightning/tree/master/src/lightning), accelerate
(https://github.com/huggingface/accelerate/tree/main/src/accelerate), datasets
(https://github.com/huggingface/datasets/tree/main/src/datasets), transformers
(https://github.com/huggingface/transformers/tree/main/src/transformers), peft
(https://github.com/huggingface/peft/tree/main/src/peft), trl (https://github.com/huggingface/trl/tree/main/trl).
The newest wheel of each in DIR is read (gen_wheel_packages.newest / read_wheel); its file list (the zip's names,
PEP 427) gives every .py module of its import packages, less tests/, demos/ shipped inside them (_SKIP). RULES, hand-written below from each package's module layout and what its modules
do (cited per rule), assign a module to a family by its path; the first rule that matches decides; a module no
rule names stays unassigned (its exceptions keep '<lib>.library_error'). The standalone Lightning wheels install the
same tree as pytorch_lightning/ and lightning_fabric/ (the source tree above builds all three): explain reads
their paths as lightning/pytorch/ and lightning/fabric/.

Output: modules (path -> family, the assigned ones), folders (a folder every read module of which the rules assign
to one family -> that family: a module of another release in that folder, absent from the pinned wheel, is read
by its folder), coverage per package (modules read, assigned, unassigned). The slice records, per wheel, its
distribution, version, file name and the modules read (gen_wheel_packages.write_slice's format), so the test
regenerates the table without the wheels.
"""

import collections
import json
import os
import re
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_wheel_packages as wp  # noqa: E402
import knowgen  # noqa: E402

GENERATOR = "tools/gen_lib_modules.py"
NAME = "lib_modules"
# the distributions read and their import packages whose modules are listed
DISTS = {"lightning": ("lightning",), "accelerate": ("accelerate",), "datasets": ("datasets",),
         "transformers": ("transformers",), "peft": ("peft",), "trl": ("trl",)}
_PY = re.compile(r"^(?P<pkg>[A-Za-z_]\w*)/[\w/]*\w\.py$")
# a module of a library that is not its library code: its demos and test utilities (lightning/pytorch/demos: the
# example models; accelerate/test_utils: its own test scripts), tests shipped inside a package
_SKIP = re.compile(r"^(?:lightning/pytorch/demos/|accelerate/test_utils/|transformers/testing_utils\.py$)|"
                   r"(?:^|/)tests?/|(?:^|/)test_[^/]*\.py$")

PL = r"^lightning/pytorch/"
FAB = r"^lightning/fabric/"
LT = r"^lightning/(?:pytorch|fabric)/"
# (rule, family, path regex): the first that matches a module decides. The Lightning rules are the module contexts
# of tools/gen_lightning_messages.py's RULES (the families lightning.toml documents), without their message words.
RULES = [
    # ---- Lightning (src/lightning/pytorch, src/lightning/fabric)
    ("lt-removed", "lightning.removed_api", LT + r"_graveyard/"),  # removed APIs: the message names the replacement
    # ModelCheckpoint and the checkpoint I/O: saving, loading, ckpt_path, converting DeepSpeed / FSDP checkpoints
    ("lt-ckpt", "lightning.checkpoint", PL + r"(?:callbacks/model_checkpoint\.py|core/saving\.py|"
                                        r"trainer/connectors/checkpoint_connector\.py|plugins/io/|"
                                        r"utilities/upgrade_checkpoint\.py|utilities/migration/|utilities/deepspeed\.py|"
                                        r"utilities/model_registry\.py|utilities/consolidate_checkpoint\.py)|" +
                                        FAB + r"(?:plugins/io/|utilities/cloud_io\.py|utilities/load\.py|"
                                        r"utilities/consolidate_checkpoint\.py)"),
    # the callbacks (EarlyStopping, LearningRateMonitor, StochasticWeightAveraging, ...) and the connector that
    # checks and orders them
    ("lt-callbacks", "lightning.callbacks", PL + r"(?:callbacks/|trainer/connectors/callback_connector\.py)"),
    # self.log / log_dict: the logger connector checks and reduces what a hook logs
    ("lt-log", "lightning.log", PL + r"trainer/connectors/logger_connector/"),
    # configure_optimizers' return value, lr scheduler configs, the optimization loops (automatic / manual)
    ("lt-optim", "lightning.optimizers", PL + r"(?:core/optimizer\.py|loops/optimization/)"),
    # the dataloaders: DataModule, the data connector, samplers, CombinedLoader
    ("lt-data", "lightning.data", PL + r"(?:trainer/connectors/data_connector\.py|core/datamodule\.py|"
                                  r"utilities/data\.py|utilities/combined_loader\.py|loops/fetchers\.py)|" +
                                  FAB + r"utilities/data\.py"),
    # Fabric's own call order (launch, setup_*, backward) and its wrappers
    ("lt-fabric", "fabric.usage", FAB + r"(?:fabric|wrappers|utilities/init|utilities/throughput|utilities/spike)\.py"),
    # the strategies and their launchers (DDP, FSDP, DeepSpeed, model parallel, XLA), collectives
    ("lt-strategy", "lightning.strategy", LT + r"(?:strategies/|overrides/distributed\.py|utilities/distributed\.py|"
                                          r"plugins/collectives/|plugins/layer_sync\.py)"),
    # the LightningModule and the loops that call its hooks, and the checks of the hooks it defines
    ("lt-hooks", "lightning.hooks", PL + r"(?:core/|loops/|trainer/configuration_validator\.py|trainer/call\.py|"
                                    r"overrides/|utilities/model_helpers\.py|utilities/signature_utils\.py)"),
    # the Trainer's / Fabric's flags: accelerator, devices, strategy and precision names, their parsers, the
    # accelerators, precision plugins, cluster environments, loggers, profilers, the tuner and the CLI
    ("lt-config", "lightning.config", LT + r"(?:trainer/connectors/accelerator_connector\.py|connector\.py|accelerators/|"
                                      r"plugins/precision/|plugins/environments/|utilities/device_parser\.py|"
                                      r"utilities/device_dtype_mixin\.py|trainer/trainer\.py|trainer/setup\.py|"
                                      r"trainer/connectors/signal_connector\.py|cli\.py|tuner/|profilers/|loggers/|"
                                      r"utilities/seed\.py|utilities/parsing\.py|utilities/compile\.py|utilities/cli\.py|"
                                      r"utilities/argparse\.py|trainer/states\.py|utilities/grads\.py|"
                                      r"utilities/model_summary/)"),
    # ---- accelerate (src/accelerate)
    # the launcher and its config commands are explain's launcher families (analyze._TORCHDIST 'accelerate/commands');
    # the config file's own questions and its loader are accelerate.config
    ("acc-config-cmd", "accelerate.config", r"^accelerate/commands/config/"),
    ("acc-launcher", "launcher.accelerate_error", r"^accelerate/commands/|^accelerate/utils/launch\.py$"),
    # the Accelerator, its state, the plugins' dataclasses (__post_init__ checks of DeepSpeedPlugin,
    # FullyShardedDataParallelPlugin, ProjectConfiguration, ...), the parallelism config, the DeepSpeed / FSDP /
    # Megatron-LM / TransformerEngine / torchao / bitsandbytes integrations it configures, its wrappers of the
    # dataloader, optimizer and scheduler, checkpointing (save_state / load_state) and trackers (log_with); the big
    # model API (init_empty_weights, dispatch_model, load_checkpoint_and_dispatch, infer_auto_device_map: a device_map
    # or max_memory it refuses)
    ("acc-config", "accelerate.config", r"^accelerate/(?:accelerator|state|parallelism_config|data_loader|optimizer|"
                                        r"scheduler|checkpointing|tracking|local_sgd|launchers|big_modeling)\.py$|"
                                        r"^accelerate/utils/modeling\.py$|"
                                        r"^accelerate/utils/(?:dataclasses|deepspeed|fsdp_utils|megatron_lm|"
                                        r"transformer_engine|ao|bnb|environment|torch_xla)\.py$"),
    # ---- datasets (src/datasets)
    # load_dataset / load_from_disk: resolving the name or path, data_files patterns, the builders and their
    # packaged loaders (json, csv, parquet, text, imagefolder ...), downloads, the Hub, splits, streaming
    ("ds-load", "datasets.load", r"^datasets/(?:load|data_files|builder|hub|inspect|info|splits|streaming|naming|"
                                 r"config)\.py$|^datasets/(?:download|packaged_modules|io|filesystems)/|"
                                 r"^datasets/utils/(?:file_utils|hub|info_utils|metadata|extract|_dataset_viewer)\.py$"),
    # Apache Arrow's tables under a Dataset: the writer (batches, schemas), the reader, pyarrow table wrappers
    ("ds-arrow", "datasets.arrow", r"^datasets/(?:arrow_writer|arrow_reader|table)\.py$"),
    # a Dataset's / DatasetDict's / IterableDataset's own operations: map, filter, select, columns, formats,
    # features and casting, concatenation, sharding and split_dataset_by_node, search indexes
    ("ds-usage", "datasets.usage", r"^datasets/(?:arrow_dataset|dataset_dict|iterable_dataset|combine|distributed|"
                                   r"search|fingerprint)\.py$|^datasets/(?:features|formatting|parallel)/|"
                                   r"^datasets/utils/(?:stratify|sharding|py_utils)\.py$"),
    # ---- transformers (src/transformers)
    # the Trainer, its arguments, callbacks and helpers
    ("tf-trainer", "transformers.trainer", r"^transformers/(?:trainer|trainer_\w+|training_args|training_args_\w+)\.py$"),
    # from_pretrained's downloads: the Hub, the cache, remote code
    ("tf-hub", "transformers.hub", r"^transformers/(?:utils/hub|dynamic_module_utils)\.py$"),
    # the public APIs a script calls with its arguments: configurations, from_pretrained / save_pretrained, generate
    # and its GenerationConfig, tokenizers, processors, feature extractors, data collators, pipelines, the argument
    # parser, optimizers and schedulers (get_scheduler), quantization configs
    ("tf-usage", "transformers.usage", r"^transformers/(?:configuration_utils|modeling_utils|tokenization_\w+|"
                                       r"processing_utils|feature_extraction_\w+|image_processing_\w+|"
                                       r"video_processing_utils|hf_argparser|optimization|modelcard)\.py$|"
                                       r"^transformers/(?:generation|data|pipelines)/|"
                                       r"^transformers/utils/quantization_config\.py$"),
    # ---- peft (src/peft): the adapter configs, get_peft_model / PeftModel, every tuner's injection and its
    # target_modules matching, saving and loading adapters, the optimizers it builds
    ("peft-usage", "peft.usage", r"^peft/(?:config|mapping|mapping_func|peft_model|mixed_model|auto|helpers)\.py$|"
                                 r"^peft/(?:tuners|optimizers)/|^peft/utils/(?:save_and_load|peft_types|hotswap|"
                                 r"other)\.py$"),
    # ---- trl (trl/)
    # generation with vLLM: the client of `trl vllm-serve`, the colocated engine, the server script
    ("trl-vllm", "trl.vllm", r"^trl/generation/vllm_\w+\.py$|^trl/scripts/vllm_serve\.py$"),
    # the dataset formats: chat templates, conversational / prompt-completion / preference columns
    ("trl-dataset", "trl.dataset", r"^trl/(?:data_utils|chat_template_utils)\.py$"),
    # the trainers and their configs (stable and experimental): their argument checks
    ("trl-config", "trl.config", r"^trl/trainer/|^trl/experimental/(?:\w+/)?\w+_(?:config|trainer)\.py$"),
]
_RULES = [(name, fam, re.compile(rx)) for name, fam, rx in RULES]


def modules_of(names, packages):
    """The library modules of a wheel's file list (the .py files of ``packages``, less _SKIP), sorted."""
    out = []
    for n in names:
        m = _PY.match(n)
        if not m or m.group("pkg") not in packages or _SKIP.search(n):
            continue
        out.append(n)
    return sorted(out)


def read(path):
    """(distribution, version, [modules]) of one wheel."""
    dist, version, _ = wp.read_wheel(path)
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
    return dist, version, modules_of(names, DISTS.get(dist, ()))


def assign(module):
    """(rule, family) of the first rule whose path regex matches ``module``, or (None, None)."""
    for name, fam, rx in _RULES:
        if rx.search(module):
            return name, fam
    return None, None


def build(rows):
    """The table from [(distribution, version, wheel file, [modules])]."""
    modules, coverage, by_rule = {}, {}, collections.Counter()
    folder_fams = collections.defaultdict(set)
    for dist, _, _, mods in rows:
        n = assigned = 0
        for mod in mods:
            n += 1
            rule, fam = assign(mod)
            parts = mod.split("/")
            for k in range(2, len(parts)):
                folder_fams["/".join(parts[:k])].add(fam)
            if fam:
                assigned += 1
                modules[mod] = fam
                by_rule[rule] += 1
        coverage[dist] = {"modules": n, "assigned": assigned, "unassigned": n - assigned}
    # a folder whose every module read is assigned, all to one family (never the package's top folder: a module
    # of another release there says nothing)
    folders = {d: next(iter(fs)) for d, fs in sorted(folder_fams.items()) if len(fs) == 1 and None not in fs}
    return {"header": knowgen.header(
                "the wheels on PyPI (https://pypi.org/project/<distribution>/, pip download --no-deps): the .py "
                "modules of their file lists",
                ", ".join("%s %s" % (d, v) for d, v, _, _ in rows), GENERATOR,
                "generated by %s; do not edit by hand, run it again. modules: a library module's path (as a "
                "traceback's site-packages frame shows it) -> the finer family its own raises belong to (RULES); "
                "folders: a folder whose every module is assigned to one family -> it; coverage: modules read, "
                "assigned, unassigned per distribution" % GENERATOR),
            "sites": [],  # (no message sites: libwhere.py reads the table itself, knowledge.generated_table)
            "wheels": {d: w for d, _, w, _ in rows},
            "coverage": coverage, "rules": dict(sorted(by_rule.items())),
            "modules": dict(sorted(modules.items())), "folders": folders}


def main(argv=None):
    a = wp.arguments(__doc__, NAME, argv)
    if a.slice:
        rows = wp.read_slice(a.slice)
    else:
        rows = []
        for dist, path in wp.newest(a.wheels).items():
            if dist not in DISTS:
                continue
            d, v, mods = read(path)
            rows.append((d, v, os.path.basename(path), mods))
    if a.record:
        wp.write_slice(a.record, rows, what="library modules", field="modules", generator=GENERATOR)
    doc = build(rows)
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    total = sum(c["modules"] for c in doc["coverage"].values())
    done = sum(c["assigned"] for c in doc["coverage"].values())
    sys.stderr.write("%s: %d distributions, %d modules, %d assigned, %d unassigned\n" % (
        a.out, len(rows), total, done, total - done))
    return 0


if __name__ == "__main__":
    main()
