#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/lib_modules.json: the finer family of each module of the training
libraries, read from the wheels' own file lists (family19, issue 18 "the right family", item 3).

When no knowledge entry knows an exception's words, explain answers from where it was raised (pyanswer.py): a
library's frame named '<lib>.library_error' whatever part of the library raised it, though the library's finer
families exist (lightning.callbacks, datasets.load, accelerate.config, transformers.trainer ...) and the traceback's
innermost frame names the module. This table says which module of which package belongs to which of those families;
explain reads it (libwhere.py) for an exception the library raised itself, with its own `raise` line (an argument
check, a refusal), never for an internal failure (an AttributeError, a KeyError, an exception another package raised
under it).

Usage:
    pip download --no-deps --only-binary=:all: lightning accelerate datasets transformers peft trl timm torchmetrics \
        hydra-core omegaconf -d DIR;  pip download --no-deps --no-binary=:all: deepspeed -d DIR
    python tools/gen_lib_modules.py --wheels DIR [DIR ...] [--record tools/data/lib_modules_slice.txt] [-o OUT]
    python tools/gen_lib_modules.py --slice tools/data/lib_modules_slice.txt -o OUT   (the test)

Sources: the wheels on PyPI (https://pypi.org/project/<distribution>/), fetched with pip's ordinary client:
lightning (https://github.com/Lightning-AI/pytorch-lightning/tree/master/src/lightning), accelerate
(https://github.com/huggingface/accelerate/tree/main/src/accelerate), datasets
(https://github.com/huggingface/datasets/tree/main/src/datasets), transformers
(https://github.com/huggingface/transformers/tree/main/src/transformers), peft
(https://github.com/huggingface/peft/tree/main/src/peft), trl (https://github.com/huggingface/trl/tree/main/trl),
timm (https://github.com/huggingface/pytorch-image-models/tree/main/timm), torchmetrics
(https://github.com/Lightning-AI/torchmetrics/tree/master/src/torchmetrics), hydra-core
(https://github.com/facebookresearch/hydra/tree/main/hydra), omegaconf (https://github.com/omry/omegaconf), and
DeepSpeed's sdist (https://github.com/deepspeedai/DeepSpeed/tree/master/deepspeed: it publishes no wheel; the
sdist's file list less its top folder). The newest wheel (or sdist) of each in DIR is read
(gen_wheel_packages.newest / read_wheel); its file list (the zip's names, PEP 427) gives every .py module of its
import packages, less tests/, demos/ shipped inside them (_SKIP). RULES, hand-written below from each package's
module layout and what its modules do (cited per rule), assign a module to a family by its path; the first rule that
matches decides; a module no rule names stays unassigned (its exceptions keep '<lib>.library_error'). The standalone
Lightning wheels install the same tree as pytorch_lightning/ and lightning_fabric/ (the source tree above builds all
three): explain reads their paths as lightning/pytorch/ and lightning/fabric/.

The exception classes of the libraries' errors modules (ERROR_MODULES: omegaconf/errors.py, hydra/errors.py,
datasets/exceptions.py, peft/utils/error.py) are read from their class statements and assigned by CLASS_RULES (a
class no rule names takes its bases' family): such an exception is the library's own raise whichever of its frames
raised it. The slice records them as 'class:<module>:<name>(<bases>)'.

Output: modules (path -> family, the assigned ones), classes (exception class -> family), folders (a folder every
read module of which the rules assign to one family -> that family: a module of another release in that folder,
absent from the pinned wheel, is read by its folder), coverage per package (modules read, assigned, unassigned). The
slice records, per wheel, its distribution, version, file name and the modules read
(gen_wheel_packages.write_slice's format), so the test regenerates the table without the wheels.
"""

import collections
import json
import os
import re
import sys
import tarfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_wheel_packages as wp  # noqa: E402
import knowgen  # noqa: E402

GENERATOR = "tools/gen_lib_modules.py"
NAME = "lib_modules"
# the distributions read and their import packages whose modules are listed
DISTS = {"lightning": ("lightning",), "accelerate": ("accelerate",), "datasets": ("datasets",),
         "transformers": ("transformers",), "peft": ("peft",), "trl": ("trl",),
         "deepspeed": ("deepspeed", "op_builder"), "timm": ("timm",), "torchmetrics": ("torchmetrics",),
         "hydra-core": ("hydra",), "omegaconf": ("omegaconf",), "pytorch-lightning": ("pytorch_lightning",)}
# read in every version found, not the newest only: the standalone Lightning 1.x wheels, whose module layout
# (plugins/training_type/, profiler/, trainer/optimizers.py, lite/ ...) public threads' tracebacks still show; their
# pytorch_lightning/X is read as lightning/pytorch/X, as explain reads their frames; and TRL's 0.x wheel (0.19.1), whose
# vLLM client was trl/extras/vllm_client.py (0.16 to 0.2x) before 1.x moved it to trl/generation/ (noanswer20: a
# logger's name, logging.getLogger(__name__), is that module's path: waitloop.py)
EVERY_VERSION = ("pytorch-lightning", "trl")
_RENAME = (("pytorch_lightning/", "lightning/pytorch/"), ("lightning_fabric/", "lightning/fabric/"))
# DeepSpeed publishes a source distribution only (its wheel is built where it is installed): its sdist's file list,
# less the sdist's top folder, is the module list the installed package has
_SDIST = re.compile(r"^(?P<dist>[A-Za-z0-9_.-]+?)-(?P<version>\d[^-]*)\.tar\.gz$")
_PY = re.compile(r"^(?P<pkg>[A-Za-z_]\w*)/[\w/]*\w\.py$")
# a module of a library that is not its library code: its demos and test utilities (lightning/pytorch/demos: the
# example models; accelerate/test_utils: its own test scripts), tests shipped inside a package
_SKIP = re.compile(r"^(?:lightning/pytorch/demos/|accelerate/test_utils/|transformers/testing_utils\.py$|"
                   r"hydra/test_utils/|omegaconf/vendor/|deepspeed/runtime/zero/test\.py$)|"
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
                                        r"utilities/upgrade_checkpoint\.py|utilities/migration/|"
                                        r"utilities/migration\.py|utilities/cloud_io\.py|"
                                        r"utilities/deepspeed\.py|utilities/model_registry\.py|"
                                        r"utilities/consolidate_checkpoint\.py)|" +
                                        FAB + r"(?:plugins/io/|utilities/cloud_io\.py|utilities/load\.py|"
                                        r"utilities/consolidate_checkpoint\.py)"),
    # the callbacks (EarlyStopping, LearningRateMonitor, StochasticWeightAveraging, ...) and the connector that
    # checks and orders them
    ("lt-callbacks", "lightning.callbacks", PL + r"(?:callbacks/|trainer/connectors/callback_connector\.py|"
                                            r"trainer/callback_hook\.py)"),
    # self.log / log_dict: the logger connector checks and reduces what a hook logs
    ("lt-log", "lightning.log", PL + r"(?:trainer/connectors/logger_connector/|trainer/logging\.py)"),
    # configure_optimizers' return value, lr scheduler configs, the optimization loops (automatic / manual)
    ("lt-optim", "lightning.optimizers", PL + r"(?:core/optimizer\.py|loops/optimization/|trainer/optimizers\.py|"
                                             r"trainer/connectors/optimizer_connector\.py)"),
    # the dataloaders: DataModule, the data connector, samplers, CombinedLoader
    ("lt-data", "lightning.data", PL + r"(?:trainer/connectors/data_connector\.py|core/datamodule\.py|"
                                  r"utilities/data\.py|utilities/combined_loader\.py|loops/fetchers\.py|"
                                  r"trainer/supporters\.py|trainer/data_loading\.py|utilities/fetching\.py)|" +
                                  FAB + r"utilities/data\.py"),
    # Fabric's own call order (launch, setup_*, backward) and its wrappers
    ("lt-fabric", "fabric.usage", FAB + r"(?:fabric|wrappers|utilities/init|utilities/throughput|utilities/spike)\.py|" +
                                  PL + r"lite/"),  # (1.x's LightningLite)
    # the strategies and their launchers (DDP, FSDP, DeepSpeed, model parallel, XLA), collectives
    ("lt-strategy", "lightning.strategy", LT + r"(?:strategies/|overrides/distributed\.py|utilities/distributed\.py|"
                                          r"plugins/collectives/|plugins/layer_sync\.py|plugins/training_type/|"
                                          r"distributed/)"),
    # the LightningModule and the loops that call its hooks, and the checks of the hooks it defines
    ("lt-hooks", "lightning.hooks", PL + r"(?:core/|loops/|trainer/configuration_validator\.py|trainer/call\.py|"
                                    r"overrides/|utilities/model_helpers\.py|utilities/signature_utils\.py|"
                                    r"trainer/model_hooks\.py|trainer/connectors/model_connector\.py)"),
    # the Trainer's / Fabric's flags: accelerator, devices, strategy and precision names, their parsers, the
    # accelerators, precision plugins, cluster environments, loggers, profilers, the tuner and the CLI
    ("lt-config", "lightning.config", LT + r"(?:trainer/connectors/accelerator_connector\.py|connector\.py|"
                                      r"accelerators/|plugins/precision/|plugins/environments/|"
                                      r"utilities/device_parser\.py|"
                                      r"utilities/device_dtype_mixin\.py|trainer/trainer\.py|trainer/setup\.py|"
                                      r"trainer/connectors/signal_connector\.py|cli\.py|tuner/|profilers/|loggers/|"
                                      r"utilities/seed\.py|utilities/parsing\.py|utilities/compile\.py|"
                                      r"utilities/cli\.py|"
                                      r"utilities/argparse\.py|trainer/states\.py|utilities/grads\.py|"
                                      r"utilities/model_summary/|utilities/model_summary\.py|profiler/|"
                                      r"utilities/argparse_utils\.py|trainer/connectors/(?:debugging|env_vars|slurm|"
                                      r"training_trick)_connector\.py)"),
    # Lightning 1.x's own metrics package (pytorch_lightning.metrics, moved to torchmetrics)
    ("lt-metrics", "torchmetrics.usage", PL + r"metrics/"),
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
    # or max_memory it refuses); the collective helpers a script calls (gather, broadcast, pad_across_processes,
    # send_to_device: utils/operations.py refuses the types and shapes it is given)
    ("acc-config", "accelerate.config", r"^accelerate/(?:accelerator|state|parallelism_config|data_loader|optimizer|"
                                        r"scheduler|checkpointing|tracking|local_sgd|launchers|big_modeling)\.py$|"
                                        r"^accelerate/utils/(?:modeling|operations)\.py$|"
                                        r"^accelerate/utils/(?:dataclasses|deepspeed|fsdp_utils|megatron_lm|"
                                        r"transformer_engine|ao|bnb|environment|torch_xla)\.py$"),
    # ---- datasets (src/datasets)
    # load_dataset / load_from_disk: resolving the name or path, data_files patterns, the builders and their
    # packaged loaders (json, csv, parquet, text, imagefolder ...), downloads, the Hub, splits, streaming
    ("ds-load", "datasets.load", r"^datasets/(?:load|data_files|builder|hub|inspect|info|splits|streaming|naming|"
                                 r"config)\.py$|^datasets/(?:download|packaged_modules|io|filesystems)/|"
                                 r"^datasets/utils/(?:file_utils|hub|info_utils|metadata|extract|"
                                 r"_dataset_viewer)\.py$"),
    # Apache Arrow's tables under a Dataset: the writer (batches, schemas), the reader, pyarrow table wrappers
    ("ds-arrow", "datasets.arrow", r"^datasets/(?:arrow_writer|arrow_reader|table)\.py$"),
    # a Dataset's / DatasetDict's / IterableDataset's own operations: map, filter, select, columns, formats,
    # features and casting, concatenation, sharding and split_dataset_by_node, search indexes
    ("ds-usage", "datasets.usage", r"^datasets/(?:arrow_dataset|dataset_dict|iterable_dataset|combine|distributed|"
                                   r"search|fingerprint)\.py$|^datasets/(?:features|formatting|parallel)/|"
                                   r"^datasets/utils/(?:stratify|sharding|py_utils)\.py$"),
    # ---- transformers (src/transformers)
    # the Trainer, its arguments, callbacks and helpers
    ("tf-trainer", "transformers.trainer", r"^transformers/(?:trainer|trainer_\w+|training_args|"
                                           r"training_args_\w+)\.py$"),
    # from_pretrained's downloads: the Hub, the cache, remote code
    ("tf-hub", "transformers.hub", r"^transformers/(?:utils/hub|dynamic_module_utils)\.py$"),
    # the public APIs a script calls with its arguments: configurations, from_pretrained / save_pretrained, generate
    # and its GenerationConfig, tokenizers, processors, feature extractors, data collators, pipelines, the argument
    # parser, optimizers and schedulers (get_scheduler), quantization configs
    ("tf-usage", "transformers.usage", r"^transformers/(?:configuration_utils|modeling_utils|tokenization_\w+|"
                                       r"processing_utils|feature_extraction_\w+|image_processing_\w+|"
                                       r"video_processing_utils|hf_argparser|optimization|modelcard)\.py$|"
                                       r"^transformers/(?:generation|data|pipelines)/|"
                                       r"^transformers/utils/quantization_config\.py$|"
                                       # each model's configuration class and its tokenizer / processor classes
                                       # (models/<name>/configuration_<name>.py, tokenization_*, processing_*,
                                       # image_processing_*, feature_extraction_*): their own checks refuse the
                                       # arguments they are built with; the modeling code stays unassigned
                                       r"^transformers/models/\w+/(?:configuration|tokenization|processing|"
                                       r"image_processing|video_processing|feature_extraction)_\w+\.py$"),
    # ---- peft (src/peft): the adapter configs, get_peft_model / PeftModel, every tuner's injection and its
    # target_modules matching, saving and loading adapters, the optimizers it builds
    ("peft-usage", "peft.usage", r"^peft/(?:config|mapping|mapping_func|peft_model|mixed_model|auto|helpers)\.py$|"
                                 r"^peft/(?:tuners|optimizers)/|^peft/utils/(?:save_and_load|peft_types|hotswap|"
                                 r"other)\.py$"),
    # ---- trl (trl/)
    # generation with vLLM: the client of `trl vllm-serve`, the colocated engine, the server script
    # (trl/extras/vllm_client.py in 0.16 to 0.2x, trl/generation/ since 1.0)
    ("trl-vllm", "trl.vllm", r"^trl/(?:generation|extras)/vllm_\w+\.py$|^trl/scripts/vllm_serve\.py$"),
    # the dataset formats: chat templates, conversational / prompt-completion / preference columns
    ("trl-dataset", "trl.dataset", r"^trl/(?:data_utils|chat_template_utils)\.py$"),
    # the trainers and their configs (stable and experimental): their argument checks
    ("trl-config", "trl.config", r"^trl/trainer/|^trl/experimental/(?:\w+/)?\w+_(?:config|trainer)\.py$"),
    # ---- DeepSpeed (https://github.com/deepspeedai/DeepSpeed/tree/master/deepspeed)
    # the launcher and the op builders are explain's launcher / build families (analyze._TORCHDIST)
    ("ds-launcher", "deepspeed.launcher", r"^deepspeed/launcher/"),
    ("ds-ops", "deepspeed.ops", r"^deepspeed/ops/|^op_builder/"),
    # the config JSON's readers: runtime/config.py (DeepSpeedConfig), the pydantic models of each section
    # (config_utils.DeepSpeedConfigModel: zero, offload, activation checkpointing, monitor, comm, ...)
    ("ds-config", "deepspeed.config", r"^deepspeed/(?:[\w/]*/)?\w*config(?:_utils|_v2|s)?\.py$"),
    # the engine and the ZeRO / bf16 / pipeline optimizers and modules: deepspeed.initialize's arguments, backward /
    # step / checkpoint calls, zero.Init and GatheredParameters, combinations of features they refuse
    ("ds-usage", "deepspeed.usage", r"^deepspeed/__init__\.py$|^deepspeed/runtime/(?:engine|bf16_optimizer|"
                                    r"zero/(?:stage_1_and_2|stage3|partition_parameters|parameter_offload|"
                                    r"partitioned_param_coordinator|linear|tiling)|pipe/(?:engine|module|schedule|"
                                    r"topology)|fp16/\w+|lr_schedules|dataloader|hybrid_engine|"
                                    r"activation_checkpointing/checkpointing)\.py$|^deepspeed/pipe/"),
    # ---- timm (https://github.com/huggingface/pytorch-image-models/tree/main/timm)
    # create_model's name lookup and pretrained tags: the registry, the factory, the Hub and pretrained configs
    ("timm-name", "timm.model_name", r"^timm/models/_(?:registry|factory|hub|pretrained)\.py$"),
    # the patch embedding's image-size check
    ("timm-input", "timm.input_size", r"^timm/layers/(?:patch_embed|format)\.py$"),
    # the model builder, checkpoint loading, features_only, and the data, optimizer, scheduler and loss factories
    ("timm-usage", "timm.usage", r"^timm/models/_(?:builder|helpers|features|features_fx|manipulate|input|prune)\.py$|"
                                 r"^timm/(?:data|optim|scheduler|loss)/"),
    # ---- torchmetrics (https://github.com/Lightning-AI/torchmetrics/tree/master/src/torchmetrics): every metric's
    # argument and input checks, the Metric base class, collections and wrappers (tools/gen_lightning_messages.py's
    # ctx-tm), less its import and print helpers
    ("tm-usage", "torchmetrics.usage", r"^torchmetrics/(?!__init__\.py$|__about__\.py$|utilities/(?:imports|prints|"
                                       r"exceptions)\.py$)"),
    # ---- Hydra (https://github.com/facebookresearch/hydra/tree/main/hydra)
    ("hydra-instantiate", "hydra.instantiate", r"^hydra/_internal/instantiate/|^hydra/utils\.py$"),
    ("hydra-override", "hydra.override", r"^hydra/core/override_parser/|^hydra/_internal/grammar/|"
                                         r"^hydra/_internal/core_plugins/basic_sweeper\.py$"),
    # composing the config: the loader, the repository of config sources, the search path, the defaults list, the
    # config store, @hydra.main's / initialize()'s / compose()'s arguments
    ("hydra-config", "hydra.config", r"^hydra/_internal/(?:config_loader_impl|config_repository|"
                                     r"config_search_path_impl|defaults_list|sources_registry)\.py$|"
                                     r"^hydra/_internal/core_plugins/\w+_config_source\.py$|"
                                     r"^hydra/(?:main|initialize|compose)\.py$|^hydra/core/(?:config_store|"
                                     r"config_search_path|default_element|config_loader)\.py$|"
                                     r"^hydra/plugins/config_source\.py$"),
    # ---- OmegaConf (https://github.com/omry/omegaconf/tree/master/omegaconf): the interpolation grammar and the
    # built-in resolvers (oc.env, oc.select, oc.dict ...); its other errors are raised through _utils.format_and_raise
    # for every kind, whose module says nothing
    ("oc-interpolation", "omegaconf.interpolation", r"^omegaconf/(?:grammar_parser|grammar_visitor)\.py$|"
                                                    r"^omegaconf/(?:resolvers|grammar)/"),
]
_RULES = [(name, fam, re.compile(rx)) for name, fam, rx in RULES]

# The exception classes a library defines in its errors module, by name: an exception of such a class is the
# library's own raise, whichever of its frames raised it (OmegaConf raises every error through _utils.format_and_raise,
# whose module says nothing; the class says which kind). (module, class name regex, family); a class no rule names
# takes the family of its first base within the module that has one
# (InterpolationKeyError(InterpolationResolutionError), MissingConfigException(IOError, ConfigCompositionException)).
ERROR_MODULES = ("omegaconf/errors.py", "hydra/errors.py", "datasets/exceptions.py", "peft/utils/error.py")
CLASS_RULES = [
    # omegaconf/errors.py: interpolation ${...} resolution and its grammar; a ??? value read; a key or value the
    # (structured / struct-mode / read-only) config refuses
    ("omegaconf/errors.py", r"^(?:InterpolationResolutionError|UnsupportedInterpolationType|GrammarParseError|"
                            r"ConfigCycleDetectedException)$", "omegaconf.interpolation"),
    ("omegaconf/errors.py", r"^MissingMandatoryValue$", "omegaconf.missing"),
    ("omegaconf/errors.py", r"^(?:ValidationError|KeyValidationError|ReadonlyConfigError|"
                            r"Config(?:Key|Attribute|Type|Index|Value)Error)$", "omegaconf.structured"),
    # hydra/errors.py: the override grammar, instantiate(), composing the config (MissingConfigException is one)
    ("hydra/errors.py", r"^OverrideParseException$", "hydra.override"),
    ("hydra/errors.py", r"^InstantiationException$", "hydra.instantiate"),
    ("hydra/errors.py", r"^(?:ConfigCompositionException|SearchPathException)$", "hydra.config"),
    # datasets/exceptions.py: a dataset or its data files not found, a defunct dataset, building it (file formats,
    # generation, casting the files to one schema), its checksums and splits
    ("datasets/exceptions.py", r"^(?:DefunctDatasetError|FileNotFoundDatasetsError|DatasetBuildError|"
                               r"ChecksumVerificationError|SplitsVerificationError)$", "datasets.load"),
    # peft/utils/error.py: no module of the model matches the adapter's target
    ("peft/utils/error.py", r"^NoMatchingPeftModuleError$", "peft.usage"),
]
_CLASS_RULES = [(mod, re.compile(rx), fam) for mod, rx, fam in CLASS_RULES]
_CLASS = re.compile(r"^class[ \t]+(?P<name>[A-Za-z_]\w{0,100})[ \t]*\((?P<bases>[^)]{0,300})\)[ \t]*:", re.M)


def modules_of(names, packages):
    """The library modules of a wheel's file list (the .py files of ``packages``, less _SKIP), sorted."""
    out = []
    for n in names:
        m = _PY.match(n)
        if not m or m.group("pkg") not in packages or _SKIP.search(n):
            continue
        for old, new in _RENAME:
            if n.startswith(old):
                n = new + n[len(old):]
        out.append(n)
    return sorted(out)


def class_lines(module, src):
    """The slice's entries of an errors module: 'class:<module>:<name>(<bases>)' per class statement."""
    return ["class:%s:%s(%s)" % (module, m.group("name"), ",".join(b.strip() for b in m.group("bases").split(",")
                                                                  if b.strip()))
            for m in _CLASS.finditer(src)]


def read(path):
    """(distribution, version, [modules and the class statements of its ERROR_MODULES]) of one wheel, or of a source
    distribution (.tar.gz: its file list less its top folder)."""
    m = _SDIST.match(os.path.basename(path))
    if m:
        with tarfile.open(path) as t:
            names = [n.split("/", 1)[1] for n in t.getnames() if "/" in n]
        dist = wp.canon(m.group("dist"))
        return dist, m.group("version"), modules_of(names, DISTS.get(dist, ()))
    dist, version, _ = wp.read_wheel(path)
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        mods = modules_of(names, DISTS.get(dist, ()))
        for mod in ERROR_MODULES:
            if mod in names:
                mods += class_lines(mod, z.read(mod).decode("utf-8", "replace"))
    return dist, version, mods


def classes_of(entries):
    """{'<module dotted>.<class>': family} of the class entries of the slice (CLASS_RULES, then the family of its first
    base within the module that has one)."""
    out = {}
    for e in entries:
        m = re.match(r"^class:(?P<mod>[\w/]+\.py):(?P<name>\w+)\((?P<bases>[^)]*)\)$", e)
        if not m:
            continue
        mod, name = m.group("mod"), m.group("name")
        dotted = mod[:-len(".py")].replace("/", ".")
        fam = next((f for rm, rx, f in _CLASS_RULES if rm == mod and rx.match(name)), None)
        if fam is None:  # (its first base within the module that has one: MissingConfigException(IOError, ...))
            fam = next((out["%s.%s" % (dotted, b)] for b in m.group("bases").split(",")
                        if "%s.%s" % (dotted, b) in out), None)
        if fam:
            out["%s.%s" % (dotted, name)] = fam
    return out


def sdists(dirs):
    """{distribution: path} of the newest source distribution of each of DISTS in the folders (DeepSpeed's)."""
    found = {}
    for d in dirs:
        for n in sorted(os.listdir(d)):
            m = _SDIST.match(n)
            if m and wp.canon(m.group("dist")) in DISTS:
                key = wp.canon(m.group("dist"))
                if key not in found or wp._version_key(m.group("version")) > wp._version_key(found[key][0]):
                    found[key] = (m.group("version"), os.path.join(d, n))
    return {k: v[1] for k, v in found.items()}


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
    classes = {}
    for dist, version, _, entries in rows:
        classes.update(classes_of(entries))
        if dist in EVERY_VERSION:
            dist = "%s %s" % (dist, version)
        mods = [e for e in entries if not e.startswith("class:")]
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
                "folders: a folder whose every module is assigned to one family -> it; classes: an exception class "
                "of a library's errors module (as a traceback prints it) -> its family (CLASS_RULES); coverage: "
                "modules read, assigned, unassigned per distribution" % GENERATOR),
            "sites": [],  # (no message sites: libwhere.py reads the table itself, knowledge.generated_table)
            "wheels": {d: w for d, _, w, _ in rows},
            "coverage": coverage, "rules": dict(sorted(by_rule.items())),
            "modules": dict(sorted(modules.items())), "folders": folders, "classes": dict(sorted(classes.items()))}


def main(argv=None):
    a = wp.arguments(__doc__, NAME, argv)
    if a.slice:
        rows = wp.read_slice(a.slice)
    else:
        rows = []
        found = sdists(a.wheels)
        found.update(wp.newest(a.wheels))  # (a wheel, where there is one, before its sdist)
        paths = [p for d, p in sorted(found.items()) if d in DISTS and d not in EVERY_VERSION]
        for folder in a.wheels:
            for n in sorted(os.listdir(folder)):
                m = wp._WHEEL.match(n)
                if m and wp.canon(m.group("dist")) in EVERY_VERSION:
                    paths.append(os.path.join(folder, n))
        for path in paths:
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
