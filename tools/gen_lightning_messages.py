#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/lightning_messages.json: the refusals of Lightning (PyTorch Lightning's Trainer, LightningModule, callbacks, strategies, and Lightning Fabric) and of torchmetrics that the user's code or configuration causes.

Each raise / assert / logging error of the files below becomes a site with a bounded matcher and the knowledge
family from the RULES table (gpudoctor/data/knowledge/lightning.toml), assigned by the module that raises it
(its source context) and, where a module holds several kinds, by the message's words; MSG_FIX gives a message
its own meaning and fix, written from the condition in the source that raises it. Warnings (rank_zero_warn,
rank_zero_deprecation, warnings.warn, log.warning) are kept as context only, never a root. Sites no rule assigns
are listed in docs/explain.md, never guessed.

The same messages print under both namings of the package: `lightning.pytorch.` / `lightning.fabric.` (the
`lightning` wheel) and `pytorch_lightning.` / `lightning_fabric.` (the standalone wheels, built from the same
source tree, https://github.com/Lightning-AI/pytorch-lightning/tree/master/src): the matchers are the messages'
texts, which do not name the module, so one reading covers both.

Usage:
    pip download --no-deps lightning torchmetrics -d /tmp/pyl   (unzip each wheel into its own folder)
    python tools/gen_lightning_messages.py --lightning /tmp/pyl/lightning --torchmetrics /tmp/pyl/torchmetrics \\
        [--older-lightning DIR ... --older-torchmetrics DIR ... --older-pytorch-lightning DIR ...] [--record tools/data/lightning_messages_slice.txt.gz] [-o OUT]
    python tools/gen_lightning_messages.py --slice tools/data/lightning_messages_slice.txt.gz -o OUT   (the test)

--older-lightning / --older-torchmetrics DIR [DIR ...] add the messages older releases printed that the current one no
longer does (marked "older": most public threads quote older releases); the slice keeps them under
older/<package>-<version>/.

Sources (read with Python's ast, never imported): lightning (https://pypi.org/project/lightning/, Apache-2.0,
wheel) lightning/pytorch/** and lightning/fabric/**; torchmetrics (https://pypi.org/project/torchmetrics/,
Apache-2.0, wheel) torchmetrics/metric.py, collections.py, aggregation.py, utilities/**, wrappers/**,
classification/**, regression/** and functional/classification/**, functional/regression/**. The regenerated slice read lightning 2.6.6 and torchmetrics 1.9.0 and the
older lightning 2.0.9 and 1.9.5 (whose lightning/pytorch mirrors pytorch_lightning 1.9.5, the release before 2.0
removed the 1.x names many public threads quote), pytorch_lightning 1.6.5.post0 and 1.4.9 (--older-pytorch-lightning:
the standalone wheels of 1.x, whose pytorch_lightning/X is the tree's lightning/pytorch/X for RULES) and torchmetrics
0.11.4 (the releases from the wheels' dist-info METADATA). --record
writes the statements that hold a message (each `=== path @LINE` block: one statement as the source has it)
as the slice.
"""

import ast
import glob
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_trainer_messages  # noqa: E402  (its _named: a message assigned to a name, then raised)
import knowgen  # noqa: E402

GENERATOR = "tools/gen_lightning_messages.py"
PACKAGES = ("lightning", "torchmetrics")
# read as an older release only: the standalone wheel of Lightning 1.x before lightning/pytorch existed
OLDER_ONLY = ("pytorch_lightning",)
# the modules read: every Python file of Lightning's trees but the demos (example models, not the library's checks);
# torchmetrics' Metric base class (update / compute / forward / sync), collections, aggregation, wrappers and
# utilities, and the classification and regression metrics a training loop computes (its audio, image, text,
# detection, retrieval ... metrics are left out: each new table's matchers cost every log's scan some time)
FILES = {"lightning": r"^lightning/(?:pytorch|fabric)/(?!demos/)[\w/]+\.py$",
         "pytorch_lightning": r"^pytorch_lightning/(?!demos/)[\w/]+\.py$",
         "torchmetrics": r"^torchmetrics/(?:metric|collections|aggregation)\.py$|"
                         r"^torchmetrics/(?:utilities|wrappers|classification|regression|functional/classification|"
                         r"functional/regression)/[\w/]+\.py$"}
NEAR = gen_trainer_messages.NEAR  # how far above its use a message literal is looked for
OWN = 4  # the words of its own (knowgen.specific_enough) a site needs to take its module's family
NEED = 16  # the longest literal run of a site's format, in non-blank characters, below which it is too vague

# Lightning's and torchmetrics' own reporting calls (lightning/fabric/utilities/rank_zero.py: rank_zero_warn and
# rank_zero_deprecation warn on rank 0; torchmetrics/utilities/prints.py the same names; lightning's modules log
# through `log = logging.getLogger(__name__)`): warnings, context only
_WARNERS = ("rank_zero_warn", "rank_zero_deprecation", "_warn")
_LOGS = ("log", "_log")

PL = r"^lightning/pytorch/"
FAB = r"^lightning/fabric/"
TM = r"^torchmetrics/"
_VERSION = (r"requires? `?(?:torch|PyTorch|lightning|deepspeed|transformers|bitsandbytes|hydra|jsonargparse|"
            r"tensorboard|omegaconf)\b[^\n]{0,40}(?:>=|version)|is not installed|are not installed|"
            r"[Pp]lease install|pip install|is only available in (?:torch|PyTorch)|only supported (?:with|in|for) "
            r"(?:torch|PyTorch) ?>=|requires (?:torch|PyTorch) (?:version )?>= ?%s|`?torch>=|needs? to be installed|"
            r"Install it with|You need to install|to be installed|is supported from PyTorch v?[\d.]+ onwards|"
            r"requires PyTorch [\d.]+ or higher")
# (rule, knowledge entry, {field: regex}); fields: where, text, level (raise | error | warning)
RULES = [
    # their internal invariants: no family from these
    ("internal", None, {"text": r"[Pp]lease (?:open|report|file) an? (?:issue|bug)|This is a bug|should not happen|"
                                r"shouldn't happen|should never happen|^Unexpected |This should not be reachable|"
                                r"report (?:it|this) (?:to|on|at)|^Unreachable|property isn't defined\. Accessed "
                                r"outside of scope|reference has not been set yet"}),
    # words Python itself prints the same (an AttributeError of the user's own object), the shell's: no family
    # and torch's / DeepSpeed's own messages a module repeats (strategies/launchers/multiprocessing.py raises torch's
    # fork message, utilities/deepspeed.py DeepSpeed's zero_to_fp32 one): theirs, whose tables name them
    ("foreign-wording", None, {"text": r"^'%s' object has no attribute '%s'$|^%s object has no attribute %s$|"
                                        r"^nvidia-smi: command not found$|^invalid truth value|"
                                        r"^Cannot re-initialize CUDA in forked subprocess|"
                                        r"^Unable to find 'latest' file at"}),
    ("version", "code.package_too_old", {"text": _VERSION}),
    # Lightning's removed APIs (lightning/pytorch/_graveyard, lightning/fabric/_graveyard): the message names the
    # release that removed it and what replaces it
    ("removed", "lightning.removed_api", {"where": r"^lightning/(?:pytorch|fabric)/_graveyard/"}),
    ("removed-words", "lightning.removed_api", {"where": r"^lightning/", "text": r"(?:was|were|has been|have been) "
                                                                                r"(?:deprecated|removed) in v?\d"}),
    # the LightningModule's self.log / log_dict and the logger connector that checks and reduces what it logs
    # (fabric/utilities/apply_func.py converts a logged value to a scalar)
    ("ctx-pl-log", "lightning.log", {"where": PL + r"(?:trainer/connectors/logger_connector/|core/module\.py)|" + FAB +
                                          r"utilities/apply_func\.py",
                                 "text": r"self\.log|log_dict|logged|[Ll]ogging inside|sync_dist|on_step|on_epoch|"
                                         r"reduce_fx|dataloader_idx|metric_attribute|\.compute\(\)|single element|"
                                         r"converted to a scalar"}),
    # configure_optimizers' return value, the lr scheduler dict, manual optimization and what training_step returns
    # to the automatic optimization loop
    ("ctx-pl-optim", "lightning.optimizers", {"where": PL + r"(?:core/optimizer\.py|core/module\.py|loops/optimization/|"
                                                    r"utilities/types\.py|trainer/configuration_validator\.py)",
                                          "text": r"optimi[sz]|scheduler|monitor|closure|`training_step` (?:returns|"
                                                  r"must)|'loss' key|gradient_clip|clip_gradients|"
                                                  r"toggle_optimizer|manual_backward"}),
    # checkpoints: ModelCheckpoint, load_from_checkpoint / save_hyperparameters, the Trainer's ckpt_path, the
    # checkpoint I/O plugins, Fabric's save / load, converting DeepSpeed / FSDP checkpoints
    ("ctx-pl-ckpt", "lightning.checkpoint", {"where": PL + r"(?:callbacks/model_checkpoint\.py|core/saving\.py|"
                                                  r"trainer/connectors/checkpoint_connector\.py|plugins/io/|"
                                                  r"utilities/upgrade_checkpoint\.py|utilities/migration/|"
                                                  r"utilities/deepspeed\.py|utilities/model_registry\.py)|" +
                                                  FAB + r"(?:plugins/io/|utilities/cloud_io\.py|"
                                                  r"utilities/load\.py|utilities/consolidate_checkpoint\.py)"}),
    ("ctx-ckpt-words", "lightning.checkpoint", {"where": r"^lightning/(?:fabric/(?:fabric|strategies/\w+)|"
                                                     r"pytorch/(?:strategies/\w+|trainer/trainer|core/module))\.py",
                                            "text": r"save_checkpoint|load_checkpoint|(?<!activation_)checkpoint "
                                                    r"(?:path|state|shards|file|folder|directory|contains)|"
                                                    r"in the loaded checkpoint|CheckpointIO|\.ckpt|fabric\.save|"
                                                    r"fabric\.load|Saving a checkpoint|checkpoint directory"}),
    ("ctx-pl-hooks", "lightning.hooks", {"where": PL + r"(?:core/|loops/|trainer/configuration_validator\.py|"
                                              r"trainer/call\.py|overrides/|utilities/model_helpers\.py|"
                                              r"utilities/signature_utils\.py)"}),
    # the data hooks and dataloaders: the DataModule, train_dataloader() and friends, the sampler Lightning puts
    # in, CombinedLoader, limit_*_batches against the loader's length
    ("ctx-pl-data", "lightning.data", {"where": PL + r"(?:trainer/connectors/data_connector\.py|core/datamodule\.py|"
                                            r"utilities/data\.py|utilities/combined_loader\.py|"
                                            r"trainer/supporters\.py|loops/fetchers\.py)|" + FAB +
                                            r"utilities/data\.py"}),
    ("ctx-pl-cb", "lightning.callbacks", {"where": PL + r"(?:callbacks/|trainer/connectors/callback_connector\.py)"}),
    # Fabric's own order: launch, setup / setup_module / setup_optimizers / setup_dataloaders, backward, the
    # wrappers of the module and optimizer, init_module's materialization, its throughput and spike utilities
    ("ctx-fabric", "fabric.usage", {"where": FAB + r"(?:fabric|wrappers|utilities/init|utilities/throughput|"
                                           r"utilities/spike)\.py|" + PL + r"lite/"}),  # 1.x's LightningLite
    # the strategies (DDP, FSDP, DeepSpeed, model parallel, XLA) and their launchers, of both packages
    ("ctx-strategy", "lightning.strategy", {"where": r"^lightning/(?:pytorch|fabric)/(?:strategies/|overrides/distributed|"
                                                 r"utilities/distributed\.py|plugins/collectives/)"}),
    # the Trainer's flags: accelerator / devices / strategy / precision / num_nodes, their parsers, the
    # accelerators, precision plugins and cluster environments; Fabric's connector is the same for Fabric(...);
    # LightningCLI, the tuner, profilers and loggers are configured on the Trainer too
    ("ctx-config", "lightning.config", {"where": r"^lightning/(?:pytorch|fabric)/(?:trainer/connectors/"
                                             r"accelerator_connector\.py|connector\.py|accelerators/|plugins/precision/|"
                                             r"plugins/environments/|utilities/device_parser\.py|"
                                             r"utilities/device_dtype_mixin\.py|trainer/trainer\.py|trainer/setup\.py|"
                                             r"trainer/connectors/signal_connector\.py|cli\.py|tuner/|profilers/|"
                                             r"loggers/|utilities/seed\.py|utilities/parsing\.py|utilities/compile\.py|"
                                             r"utilities/cli\.py|"
                                             r"utilities/argparse\.py|trainer/states\.py|utilities/grads\.py|"
                                             r"utilities/model_summary/|trainer/connectors/logger_connector/)"}),
    # torchmetrics: the Metric base class (update / compute / forward / sync / state), collections, wrappers
    # and each metric's argument and input checks
    ("ctx-tm", "torchmetrics.usage", {"where": TM}),
]

# What one message means and what to do, from the condition in the source that raises it.
_TM_DEV = ("register the metric as an attribute of the LightningModule (self.acc = Accuracy(...); a dict of "
           "metrics as nn.ModuleDict or MetricCollection) so it moves with the model, or metric.to(preds.device)")
MSG_FIX = [
    # ---- self.log (lightning/pytorch/core/module.py log(), logger_connector/fx_validator.py, result.py)
    (r"^You can't `self\.log\(%s=%s\)` inside `%s`, must be one of",
     "logger_connector/fx_validator.py check_logging_levels(): each hook allows only some values of on_step / "
     "on_epoch (an *_epoch_end hook has no step: only on_step=False; *_step hooks allow both); the message lists "
     "the values the hook allows.",
     ["pass the value the message lists: self.log(name, value, on_step=False, on_epoch=True) inside "
      "on_train_epoch_end / on_validation_epoch_end, or log per step from training_step / validation_step"]),
    (r"^You can't `self\.log\(\)` inside `%s`",
     "logger_connector/fx_validator.py check_logging(): this hook (setup, configure_optimizers, the *_dataloader "
     "hooks, on_*_start of the Trainer's stages ...) runs outside the loops that collect logged values.",
     ["move the self.log call to training_step / validation_step / test_step or an on_*_epoch_end hook; to write "
      "to the logger here, use self.logger.experiment (the message's HINT)"]),
    (r"was called, but the tensor must have a single element|does not contain a single element, thus it cannot be "
     r"converted to a scalar",
     "core/module.py __to_tensor(): self.log() takes one scalar per name; the value logged is a tensor of several "
     "elements (per-class scores, a batch of losses).",
     ["log a scalar: self.log(name, value.mean()) (the message's own suggestion), or one scalar per element: "
      "self.log_dict({f'{name}_{i}': v for i, v in enumerate(value)})"]),
    (r"was called, but nested dictionaries cannot be logged",
     "core/module.py log() / log_dict(): a value is itself a dict; self.log_dict takes one flat level of "
     "name -> scalar.",
     ["flatten it first: self.log_dict({f'{k}/{k2}': v2 for k, d in metrics.items() for k2, v2 in d.items()})"]),
    (r"was called, but `%s` values cannot be logged",
     "core/module.py log(): only a tensor, a number or a torchmetrics Metric can be logged; the value is another "
     "type (a string, a list, None, a numpy array).",
     ["log a number or a scalar tensor: self.log(name, float(x)) or torch.tensor(x); text and images go through "
      "self.logger.experiment"]),
    (r"^You called `self\.log\(%s, \.\.\.\)` twice in `%s` with different arguments",
     "logger_connector/result.py log(): one name was logged twice in one hook with different on_step / on_epoch "
     "/ reduce_fx / sync_dist arguments; Lightning keeps one accumulator per name and hook.",
     ["give the two calls different names, or the same arguments"]),
    (r"^Only `self\.log\(\.\.\., reduce_fx=\{min,max,mean,sum\}\)` are supported",
     "logger_connector/result.py: reduce_fx names a reduction Lightning cannot accumulate over steps.",
     ["use reduce_fx='mean' | 'sum' | 'min' | 'max', or log a torchmetrics.Metric object for a custom reduction"]),
    (r"^We could not infer the batch_size from the batch",
     "utilities/data.py extract_batch_size(): on_epoch=True averages by batch size, and the batch's structure "
     "(a custom class, nested objects) holds no tensor Lightning can take it from.",
     ["pass it: self.log(name, value, batch_size=len(batch_targets)) (the message's own advice)"]),
    (r"^You are trying to `self\.log\(\)` but the loop's result collection is not registered yet|"
     r"^You are trying to `self\.log\(\)` but it is not managed by the `Trainer` control flow",
     "core/module.py log(): self.log was called outside a loop that collects logged values: in predict_step, or "
     "in a method the Trainer does not call (the module used without trainer.fit / validate / test).",
     ["log from training_step / validation_step / test_step; in predict_step return the values instead; outside the "
      "Trainer write to a logger directly"]),
    # ---- training_step, configure_optimizers, lr schedulers (core/optimizer.py, loops/optimization/)
    (r"^In automatic_optimization, when `training_step` returns a dict, the 'loss' key needs to be present",
     "loops/optimization/automatic.py from_training_step_output(): with automatic optimization Lightning calls "
     "backward on output['loss']; the dict training_step returned has no 'loss' key.",
     ["return the tensor to backpropagate under 'loss': return {'loss': loss, ...} (or just return loss and log "
      "the rest with self.log)"]),
    (r"^In automatic optimization, `training_step` must (?:either )?return a Tensor, a dict",
     "loops/optimization/automatic.py: training_step returned another type (a float from loss.item(), a tuple, "
     "a list); Lightning needs the loss tensor to call backward.",
     ["return the loss tensor itself (not loss.item()), a dict with 'loss', or None to skip the batch"]),
    (r"^In manual optimization, `training_step` must either return a Tensor or have no return",
     "loops/optimization/manual.py: with automatic_optimization = False training_step returned another type.",
     ["return nothing (or the loss tensor) from training_step; call self.manual_backward(loss) and opt.step() in it"]),
    (r"^Training with multiple optimizers is only supported with manual optimization",
     "core/optimizer.py: configure_optimizers returned several optimizers (or training_step takes optimizer_idx, "
     "the 1.x API); Lightning 2.x steps several optimizers only under manual optimization.",
     ["set self.automatic_optimization = False in __init__, then in training_step: opt_g, opt_d = "
      "self.optimizers(); self.manual_backward(loss); opt_g.step(); opt_g.zero_grad() (and remove optimizer_idx)"]),
    (r"^Unknown configuration for model optimizers",
     "core/optimizer.py _configure_optimizers(): configure_optimizers returned a shape Lightning does not read.",
     ["return an optimizer, a list of optimizers, ([optimizers], [schedulers]), or {'optimizer': opt, "
      "'lr_scheduler': {'scheduler': sched, 'monitor': 'val_loss'}}"]),
    (r"lr scheduler dict must include a monitor when a `ReduceLROnPlateau` scheduler is used|"
     r"^`configure_optimizers` must include a monitor when a `ReduceLROnPlateau` scheduler is used",
     "core/optimizer.py: ReduceLROnPlateau steps on a metric's value, and the scheduler config names none.",
     ["return {'optimizer': opt, 'lr_scheduler': {'scheduler': sched, 'monitor': 'val_loss'}} with a name the "
      "module logs with self.log"]),
    (r"^ReduceLROnPlateau conditioned on metric %s which is not available",
     "loops/training_epoch_loop.py: the lr scheduler's monitor names a metric nobody logged before the scheduler "
     "stepped (a typo, or a validation metric while validation did not run that epoch).",
     ["make the scheduler dict's 'monitor' one of the available metrics the message lists (the name given to "
      "self.log), and log it in a hook that runs before the scheduler steps"]),
    (r"^The lr scheduler dict must have the key \"scheduler\"|^The \"interval\" key in lr scheduler dict must be",
     "core/optimizer.py: the lr_scheduler dict lacks 'scheduler' or has an interval other than 'step' / 'epoch'.",
     ["'lr_scheduler': {'scheduler': sched, 'interval': 'epoch' (or 'step'), 'frequency': 1}"]),
    (r"^The closure hasn't been executed",
     "loops/optimization/closure.py: an overridden optimizer_step did not run the closure that computes "
     "training_step and backward.",
     ["in optimizer_step call optimizer.step(closure=optimizer_closure) (or optimizer_closure() before a custom "
      "step)"]),
    (r"^Automatic gradient clipping is not supported for manual optimization",
     "trainer/configuration_validator.py: Trainer(gradient_clip_val=...) clips inside automatic optimization only.",
     ["remove gradient_clip_val from the Trainer and call self.clip_gradients(opt, gradient_clip_val=...) in "
      "training_step after manual_backward"]),
    (r"^Skipping the `training_step` by returning None in distributed training is not supported",
     "loops/optimization/automatic.py: under DDP every rank must run backward; a rank that returns None skips "
     "the all-reduce the others wait in.",
     ["return a loss on every rank (e.g. loss * 0 for a batch to skip), or use manual optimization"]),
    (r"^No `training_step\(\)` method defined|^No `configure_optimizers\(\)` method defined|"
     r"^No `%s\(\)` method defined to run `Trainer\.%s`",
     "trainer/configuration_validator.py: the LightningModule lacks a hook the Trainer's stage needs (fit needs "
     "training_step and configure_optimizers; validate / test / predict their *_step).",
     ["define the hook in the LightningModule class (its name spelled exactly, as a method of the class)"]),
    (r"^`train_dataloader` must be implemented|^`val_dataloader` must be implemented|"
     r"^`test_dataloader` must be implemented|^`predict_dataloader` must be implemented",
     "core/hooks.py: the Trainer asked the module for a dataloader hook it does not define and none was passed.",
     ["pass the loaders: trainer.fit(model, train_dataloaders=..., val_dataloaders=...) (or a datamodule), or "
      "define train_dataloader() / val_dataloader() in the module"]),
    (r"^You provided multiple `%s_dataloader`, but no `dataloader_idx` argument",
     "loops/utilities.py: with several validation / test loaders Lightning passes the loader's index.",
     ["add it to the step: def validation_step(self, batch, batch_idx, dataloader_idx=0)"]),
    (r"^You provided only a single `%s_dataloader`, but have included `dataloader_idx`",
     "loops/utilities.py: with one loader Lightning passes no dataloader_idx, and the step requires it.",
     ["give it a default: def validation_step(self, batch, batch_idx, dataloader_idx=0), or remove it"]),
    (r"^`val_check_interval` \(%s\) must be less than or equal to the number of the training batches",
     "loops/fit_loop.py (1.x trainer.py): an integer val_check_interval counts training batches, and an epoch has "
     "fewer (a small dataset, limit_train_batches, a larger batch or more GPUs share the data).",
     ["val_check_interval=<at most the batches per epoch>, a float (0.5 = twice an epoch), or "
      "check_val_every_n_epoch=N with val_check_interval=None"]),
    (r"^You requested to check %s of the `%s_dataloader` but %s \* %s < 1",
     "data_connector.py: limit_*_batches as a fraction of this loader's length leaves no batch.",
     ["raise limit_*_batches (the message's 'Try at least' value) or give an integer number of batches"]),
    (r"^When using an `?IterableDataset`?(?: for `train_dataloader`)?, `Trainer\((?:val_check_interval|"
     r"limit_%s_batches|limit_train_batches)\)` must be",
     "fit_loop.py / data_connector.py: an IterableDataset has no length, so a fraction of an epoch means nothing.",
     ["give an integer number of batches (val_check_interval=1000, limit_val_batches=50), or 1.0"]),
    (r"^You passed `devices=%s` but haven't specified `accelerator=",
     "accelerator_connector.py (1.x): devices was given a list or mapping of indices without saying which "
     "accelerator they index.",
     ["Trainer(accelerator='gpu', devices=[0, 1]) (or accelerator='auto')"]),
    (r"^You set `\.load_from_checkpoint\(\.\.\., strict=%s\)` which is in conflict with",
     "core/saving.py: the strict argument of load_from_checkpoint and the module's strict_loading disagree.",
     ["pass the same value to both: Model.load_from_checkpoint(path, strict=False) with self.strict_loading = False"]),
    (r"^The attribute name for the learning rate was set to %s, but could not find|^When using the learning rate "
     r"finder, either `model` or `model\.hparams` should have one of these fields|^`auto_lr_find` was set to|"
     r"^When `auto_lr_find=True`, either `model` or `model\.hparams`",
     "tuner/lr_finder.py: the learning-rate finder writes its result to an attribute (lr / learning_rate) the "
     "module or its hparams must have.",
     ["give the module self.lr (or self.learning_rate, or self.hparams.lr via save_hyperparameters()) and use it in "
      "configure_optimizers, or name your attribute: LearningRateFinder(attr_name='my_lr')"]),
    (r"^Support for `(?:training_epoch_end|validation_epoch_end|%s)` has been removed in v2\.0\.0",
     "trainer/configuration_validator.py: Lightning 2.0 removed the *_epoch_end(outputs) hooks.",
     ["rename to on_train_epoch_end / on_validation_epoch_end (no outputs argument); keep the step outputs "
      "yourself: self.step_outputs.append(...) in the step, use and clear them in the epoch-end hook"]),
    # ---- callbacks that monitor a logged metric
    (r"^`ModelCheckpoint\(monitor=%s\)` could not find the monitored key in the returned metrics|"
     r"^ModelCheckpoint\(monitor='%s'\) not found in the returned metrics",
     "callbacks/model_checkpoint.py: the checkpoint's monitor names a metric that was not logged before it "
     "saved (a typo or another name than self.log used, or a validation metric while validation did not run).",
     ["use the same name in both: ModelCheckpoint(monitor=<a key the message lists>) or self.log(<the monitor "
      "name>, value) in validation_step; with validation every N epochs set every_n_epochs to match"]),
    (r"^Early stopping conditioned on metric `%s` which is not available",
     "callbacks/early_stopping.py: EarlyStopping's monitor names a metric that was not logged (a typo, another "
     "name, or a validation metric checked after an epoch without validation).",
     ["EarlyStopping(monitor=<one of the names the message lists>) or log that name with self.log; for a "
      "validation metric keep check_on_train_epoch_end=False"]),
    (r"^ModelCheckpoint\(save_top_k=%s, monitor=None\) is not a valid configuration",
     "callbacks/model_checkpoint.py: save_top_k > 1 ranks checkpoints by a monitored metric, and none is set.",
     ["ModelCheckpoint(monitor='val_loss', save_top_k=k) with a logged metric, or save_top_k=1 / -1"]),
    # ---- checkpoints
    (r"^Trying to restore (?:optimizer|learning rate scheduler|training) state but checkpoint contains only the "
     r"model",
     "trainer/connectors/checkpoint_connector.py: fit(ckpt_path=...) resumes the whole training state, and the "
     "file was saved with save_weights_only=True.",
     ["to resume, save full checkpoints (ModelCheckpoint(save_weights_only=False)); to start from the weights "
      "only, Model.load_from_checkpoint(path) and fit without ckpt_path"]),
    (r"^`\.%s\(ckpt_path=\"best\"\)` is set but `ModelCheckpoint` is not configured",
     "checkpoint_connector.py: ckpt_path='best' needs a ModelCheckpoint that tracked a best model.",
     ["add ModelCheckpoint(monitor='val_loss') to the callbacks, or pass an exact checkpoint path"]),
    (r"^Checkpoint file not found: %s|^Checkpoint at %s not found\. Aborting training",
     "plugins/io/torch_io.py load_checkpoint(): the ckpt_path given does not exist on this machine.",
     ["give the checkpoint's real path (ls it on the node that runs rank 0); on a fresh start pass ckpt_path=None"]),
    (r"that does not exist in the loaded checkpoint",
     "fabric strategy load_checkpoint(): the state to restore names a key the checkpoint does not hold.",
     ["load with the same keys as were saved (fabric.save(path, state) / fabric.load(path, state)), or "
      "strict=False (the message's own advice)"]),
    # ---- Trainer / Fabric flags, devices, strategies
    (r"^You requested to find %s devices but there are no visible CUDA devices|^GPUs requested but none are "
     r"available|^You requested to find %s devices but this machine only has %s GPUs|^You requested gpu: %s But "
     r"your machine only has|^You requested %s GPUs but your machine only has",
     "fabric/accelerators/cuda.py / utilities/device_parser.py: devices asks for more GPUs than torch sees "
     "(torch.cuda.device_count(): CUDA_VISIBLE_DEVICES, the scheduler's allocation, a CPU build of torch).",
     ["Trainer(accelerator='gpu', devices=<at most torch.cuda.device_count()>) or devices='auto'; check "
      "nvidia-smi, CUDA_VISIBLE_DEVICES and the job's GPU request (srun --gpus-per-node / #SBATCH --gres)"]),
    (r"can not run on your system since the accelerator is not available",
     "accelerator_connector.py: accelerator='gpu' / 'cuda' was asked and torch sees no such device (a CPU-only "
     "torch wheel, no driver, or a node without GPUs).",
     ["install a CUDA build of torch (python -c 'import torch; print(torch.cuda.is_available())' must print "
      "True) and run on a GPU node, or Trainer(accelerator='auto')"]),
    (r"^You selected an invalid strategy name: `strategy=%s`|^You selected an invalid accelerator name",
     "accelerator_connector.py: the strategy / accelerator string is not a registered name (the message lists "
     "them).",
     ["use a listed name: strategy='auto' | 'ddp' | 'ddp_spawn' | 'fsdp' | 'deepspeed' ..., accelerator='auto' | "
      "'gpu' | 'cpu'"]),
    (r"is not compatible with an interactive environment",
     "accelerator_connector.py: in Jupyter / IPython Lightning cannot start the script again in new processes.",
     ["strategy='ddp_notebook' (or 'auto' / one device) in a notebook; for ddp run the code as a script"]),
    (r"^Precision %s is invalid\. Allowed precision values|Precision must be '16-mixed' or 'bf16-mixed'",
     "fabric/connector.py _check_config_and_set_final_flags(): precision is not one of Lightning 2's names.",
     ["precision='bf16-mixed' | '16-mixed' | '32-true' | '64-true' (1.x's 16 / 'bf16' are '16-mixed' / "
      "'bf16-mixed')"]),
    (r"^You set `devices=%s` in Lightning, but the number of tasks per node configured in SLURM|"
     r"^You set `num_nodes=%s` in Lightning, but the number of nodes configured in SLURM",
     "fabric/plugins/environments/slurm.py: Lightning runs one process per Slurm task and checks the Trainer "
     "against the allocation: devices must equal --ntasks-per-node and num_nodes must equal --nodes.",
     ["#SBATCH --ntasks-per-node=<devices> and --nodes=<num_nodes> (or set devices / num_nodes to the values the "
      "message's HINT gives), and start with srun python train.py"]),
    (r"^You set `--ntasks=%s` in your SLURM bash script, but this variable is not supported",
     "fabric/plugins/environments/slurm.py: Lightning reads the tasks per node, not the total.",
     ["#SBATCH --ntasks-per-node=<GPUs per node> instead of --ntasks (the message's HINT)"]),
    (r"^You set `devices=%s` and `num_nodes=%s` in Lightning, but the product",
     "fabric/plugins/environments/torchelastic.py: under torchrun the world size is --nnodes x --nproc-per-node, "
     "and Trainer's devices x num_nodes differs.",
     ["make Trainer(devices=<--nproc-per-node>, num_nodes=<--nnodes>) equal to the torchrun launch"]),
    (r"^Lightning can't create new processes if CUDA is already initialized",
     "strategies/launchers/multiprocessing.py: a fork-based strategy (ddp_fork, ddp_notebook) needs CUDA untouched "
     "in the parent; the code called torch.cuda.* or moved a tensor to the GPU before trainer.fit.",
     ["remove the CUDA calls before fit (torch.cuda.device_count() is safe from torch 2.x; .cuda() / .to('cuda') "
      "are not), or run as a script with strategy='ddp' / 'ddp_spawn'"]),
    (r"The optimizer does not seem to reference any (?:XLA)?FSDP parameters",
     "strategies/fsdp.py: the optimizer was made from the parameters before FSDP wrapped (flattened) them.",
     ["create the optimizer from self.parameters() inside configure_optimizers (Fabric: model = fabric.setup_module("
      "model) first, then optimizer = fabric.setup_optimizers(make_optimizer(model.parameters())))"]),
    (r"^Calling `trainer\.fit\(\)` twice on the same Trainer instance using a spawn-based strategy",
     "strategies/launchers/multiprocessing.py: a spawn-based Trainer cannot launch its processes twice.",
     ["create a new Trainer for the second fit, or use strategy='ddp' launched as a script"]),
    # ---- Fabric's order
    (r"^To use Fabric with more than one device, you must call `\.launch\(\)`",
     "fabric/fabric.py _validate_launched(): with devices > 1 and no external launcher the other processes are "
     "started by fabric.launch().",
     ["call fabric.launch() right after Fabric(...), or start the script with `fabric run` / torchrun"]),
    (r"^No models were set up for backward",
     "fabric/fabric.py backward(): fabric.backward was called before any model went through fabric.setup.",
     ["model, optimizer = fabric.setup(model, optimizer) before the training loop"]),
    (r"requires you to call `fabric\.backward\(loss\)` instead of `loss\.backward\(\)`",
     "fabric/wrappers.py: with this strategy / precision Fabric must run backward itself (scaling, sharding).",
     ["replace loss.backward() with fabric.backward(loss)"]),
    (r"^`Fabric\.launch\(\.\.\.\)` needs to be a callable",
     "fabric/fabric.py launch(): the function was called and its result passed instead of the function.",
     ["fabric.launch(train) (not fabric.launch(train())); train takes the Fabric object as its first argument"]),
    (r"from outside the model\. To avoid issues with the currently selected strategy, explicitly mark it as a forward",
     "fabric/wrappers.py: a method other than forward of a set-up model was called, which bypasses the strategy's "
     "wrapper (FSDP / DeepSpeed gather parameters only in forward).",
     ["model.mark_forward_method('<method>') after fabric.setup, or call it through forward"]),
    # ---- torchmetrics
    (r"^Optional arg `num_classes` must be type `int` when task is|^Optional arg `num_labels` must be type `int`",
     "torchmetrics/classification/*.py __new__: task='multiclass' needs num_classes (task='multilabel' "
     "num_labels); None was passed.",
     ["pass the count: Accuracy(task='multiclass', num_classes=<number of classes>) (multilabel: num_labels=...)"]),
    (r"^Expected argument `num_classes` to be an integer larger than 1|^Expected argument `num_labels` to be an "
     r"integer larger than 1",
     "torchmetrics functional/classification/*.py _*_arg_validation(): num_classes / num_labels must be an int >= 2.",
     ["pass num_classes=<number of classes> (>= 2); for one output column use task='binary'"]),
    (r"^Expected argument `task` to either be",
     "torchmetrics classification wrappers: task must be one of the strings the message lists.",
     ["task='binary' | 'multiclass' | 'multilabel', with num_classes / num_labels for the last two"]),
    (r"^Detected more unique values in `%s` than expected|^Detected more unique values in `(?:target|preds)` than "
     r"`num_classes`",
     "torchmetrics stat_scores.py / confusion_matrix.py _*_tensor_validation(): a label is >= num_classes (labels "
     "must be 0 .. num_classes-1), or preds hold labels of another task.",
     ["set num_classes to the highest label + 1 (labels counted from 0), or remap the labels; for ignored labels "
      "pass ignore_index"]),
    (r"^Encountered different devices in metric calculation",
     "torchmetrics/metric.py _wrap_update(): the metric's states sit on another device than the inputs (a metric "
     "kept in a plain dict or list is not moved with the module).",
     [_TM_DEV]),
    (r"^The `preds` and `target` should have the same shape|^Predictions and targets are expected to have the same "
     r"shape|^Either `preds` and `target` both should have the \(same\) shape",
     "torchmetrics input validation: preds and target shapes do not fit the task (multiclass takes preds (N, C) "
     "of scores or (N,) labels with target (N,)).",
     ["pass preds of shape (N, C) (logits / probabilities) or (N,) (argmax labels) with target (N,), and the "
      "matching task / num_classes"]),
    (r"^Expected argument `preds` to be (?:an )?floating tensor|^Expected argument `target` to be an int or long "
     r"tensor",
     "torchmetrics curve metrics: preds must hold float scores and target integer labels.",
     ["preds = logits.float() (or softmax / sigmoid of them), target = target.long()"]),
]



# how a site with no MSG_FIX row quotes its own message (the words of gpudoctor/explain/excmeaning.py SAYS_DO /
# SAYS_RULE, which quote a traceback's message the same way)
SAYS_DO = "The message says what to do: \u201c%s\u201d"
SAYS_RULE = "The message states the rule: \u201c%s\u201d"
_TOKEN = "QQVALUE%dQQ"  # a conversion while advice.find reads the sentence (letters: no sentence ends in it)


def _own_words(fmt):
    """(means, [fix]) from a message's own words, for an assigned site no MSG_FIX row covers: what it says to do
    (gpudoctor/explain/advice.py find's 'remedy': 'HINT: Set `devices=%s`.', 'Please resume training with the same
    number of optimizers'), else the rule it states ('rule': '`max_epochs` must be a non-negative integer or -1');
    each value '\u2026'. None when it says neither."""
    from gpudoctor.explain import advice

    n = [0]

    def tok(m):
        if m.group(0) == "%%":
            return "%"
        n[0] += 1
        return _TOKEN % n[0]

    text = re.sub(r"%%|%[-+ #0-9.]*[sdifgxXeEr]", tok, fmt)
    found = advice.find(text, rules=True)
    remedy = [q for kind, q in found if kind == "remedy"][:1]
    # of the rules, one that lists what is accepted ('`precision` must be one of: %s.') before one that says no
    rule = sorted((q for kind, q in found if kind == "rule"), key=lambda q: "one of" not in q)[:1]
    if not (remedy or rule):
        return None
    # a value is '...' here: the matched line beside it shows it (slots.py would print it as one shell word, a
    # tuple of choices as a wall of quotes)
    q = re.sub(r"QQVALUE\d+QQ", "\u2026", (remedy or rule)[0]).replace("\u2026.", "\u2026")
    if remedy:
        return SAYS_DO % q, [q]
    return SAYS_RULE % q, [rule_action(q)]


# A stated rule is no action (docs/explain.md, excmeaning: "never a remedy"); the action it implies, for the
# sentence shapes Lightning's and torchmetrics' checks are written in (raise MisconfigurationException /
# ValueError(f"...") in lightning/pytorch/trainer/connectors/accelerator_connector.py, lightning/fabric/connector.py,
# torchmetrics/functional/classification/*.py): a list of accepted values ('`precision` must be one of: %s',
# 'should be either `linear` or `exponential`', 'Expected one of: Precision, CheckpointIO, ...'), two things that
# do not go together ('AMP and the LBFGS optimizer are not compatible', 'You cannot set both `a` and `b`'), a thing
# refused where it is used ('Loading a single optimizer object ... is not supported yet with the FSDP strategy',
# 'Calling `.launch()` again is not allowed'), an order ('`%s` cannot be called before `.increment()` has been
# called'). Any other shape says only that the message states the rule, never the rule again as if it were an
# action.
RULE_FALLBACK = "the message states the rule (quoted above): change the call or setting it names so that the rule holds"
_ONE_OF = re.compile(r"\b(?:(?:must|should|has to|have to|can only) be (?:either|one of|either of|in)|"
                     r"Expected one of|expected one of|should be one of)\b")
_NAMED = re.compile(r"`([^`\n]{1,80})`|``([^`\n]{1,80})``|\b(?:argument|parameter) `?(\w{1,60})")
_NOT_TOGETHER = re.compile(r"^(?P<a>[^,.;]{2,80}?) and (?P<b>[^,.;]{2,80}?) are not compatible\b")
_BOTH = re.compile(r"^You (?:cannot|can not|can't) (?P<rest>(?:set|pass|use|provide|mark|execute)\b[^\n]{1,200}?)\.?$")
# what is refused: one phrase (no clause of its own: 'You set `x` and provided `y`, but this is not allowed' is none)
_WHAT = r"(?P<what>(?!You |If |When )[^,\n]{2,160}?)"
_TAIL = r"(?P<tail> (?:with|on|in|by|for|when|unless|before) [^,\n]{1,160}?)?(?: because [^\n]{1,200}?)?(?: \([^()\n]{1,80}\))?\.?$"
_GERUND = re.compile(r"^(?P<what>[A-Z][a-z]{1,20}ing\b[^,\n]{1,160}?) (?:is |are ){1,2}(?:currently )?not (?:supported|allowed)"
                     r"(?: yet| anymore)?" + _TAIL)
_NOT_SUPPORTED = re.compile("^" + _WHAT + r" (?:is|are) (?:currently )?not (?:supported|allowed)(?: yet| anymore)?" + _TAIL)
_ONLY = re.compile("^" + _WHAT + r" (?:is|are) only (?:supported|available|compatible) (?P<only>(?:on|in|with|for) [^,\n]{1,160}?)"
                   r"(?:,? (?:but|found|got)\b[^\n]{0,160})?\.?$|"
                   r"^(?P<what2>(?!You |If |When )[^,\n]{2,120}?) can only be used (?P<only2>with [^\n]{1,160}?)"
                   r"(?:, (?:found|got)\b[^\n]{0,160})?\.?$")
_BEFORE = re.compile(r"^(?P<a>`[^`\n]{1,80}`) cannot be called before (?P<b>`[^`\n]{1,80}`) has been called\.?$")
_SUBJECT = re.compile(r"`([^`\n]{1,80})`|\b(\w{2,60}) (?:should|must|has to)\b")


def _lower_first(text):
    """An article or a gerund starts lower-case inside the fix; a name (DeepSpeed, IPUs, AMP) keeps its case."""
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if first in ("The", "A", "An") or re.match(r"^[A-Z][a-z]+ing$", first) else text


def _tail(m):
    t = m.group("tail") or ""
    return re.sub(r"^ by ", " with ", t)


def rule_action(rule):
    """The action a stated rule implies (see above), else RULE_FALLBACK."""
    r = rule.strip()
    one = _ONE_OF.search(r)
    if one:
        named = next((g for m in _SUBJECT.finditer(r[:one.end()]) for g in m.groups() if g), None)
        what = "`%s`" % named if named and named != "\u2026" else "the argument the message names"
        return "set %s to one of the values the message lists" % what
    m = _NOT_TOGETHER.match(r)
    if m:
        return "use %s or %s, not both together" % (_lower_first(m.group("a")), m.group("b"))
    m = _BOTH.match(r)
    if m:
        return "do not %s" % m.group("rest")
    m = _BEFORE.match(r)
    if m:
        return "call %s before %s" % (m.group("b"), m.group("a"))
    m = _GERUND.match(r)
    if m:
        return "avoid %s%s" % (_lower_first(m.group("what")), _tail(m))
    m = _ONLY.match(r)
    if m:
        what, only = m.group("what") or m.group("what2"), m.group("only") or m.group("only2")
        return "use %s only %s" % (_lower_first(what), only)
    m = _NOT_SUPPORTED.match(r)
    if m:
        return "do not use %s%s" % (_lower_first(m.group("what")), _tail(m))
    return RULE_FALLBACK


def _more(node):
    """(level, message node) of Lightning's / torchmetrics' own warning calls and of their module loggers."""
    if not (isinstance(node, ast.Call) and node.args):
        return None, None
    f = node.func
    if isinstance(f, ast.Name) and f.id in _WARNERS:
        return "warning", node.args[0]
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in _LOGS:
        if f.attr == "warning":
            return "warning", node.args[0]
        if f.attr in ("error", "critical"):
            return "error", node.args[0]
    return None, None


def _formats(tree):
    """Resolve `NAME.format(...)` where NAME was given a string literal up to NEAR lines above it (Lightning's
    fx_validator.py: `m = "You can't `self.log({}={})` inside `{}`, must be one of {}."; msg = m.format(...);
    raise MisconfigurationException(msg)`): the call's receiver becomes that literal, so that py_format reads it.
    Returns the (first, last) lines of the literals used, which the slice keeps."""
    consts = [(n.lineno, n.end_lineno, n.targets[0].id, n.value.value) for n in ast.walk(tree)
              if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
              and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)]
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
                and isinstance(node.func.value, ast.Name):
            near = [c for c in consts if c[2] == node.func.value.id and node.lineno - NEAR <= c[0] < node.lineno]
            if near:
                c = max(near)
                node.func.value = ast.Constant(c[3])
                used.add((c[0], c[1]))
    return used


def _parse(srcs):
    """One module of a file's statements (``srcs``: the file, or the slice's blocks of it, whose line numbers
    are kept); the blocks that do not parse are left out."""
    trees = []
    for src in srcs:
        try:
            trees.append(ast.parse(textwrap.dedent(src)))
        except SyntaxError:
            pass
    return ast.Module(body=[n for t in trees for n in t.body], type_ignores=[])


def sites_of(path, srcs):
    """(level, where, format) of one file's messages (``srcs``: the file, or the slice's blocks of it)."""
    tree = _parse(srcs)
    _formats(tree)
    out = set()
    for node in ast.walk(tree):
        level, arg = knowgen.py_message(node)
        if level is None:
            level, arg = _more(node)
        fmt = level and knowgen._py_message_format(node, arg)
        if fmt:
            out.add((level, node.lineno, " ".join(fmt.split())))
    # a message assigned to a name and raised below it (`msg = f"..."; raise ValueError(msg)`), resolved over the
    # whole file: the raise statement may sit in another block of the slice than its assignment
    out.update(("raise", a.lineno, fmt) for a, fmt in gen_trainer_messages._named(tree))
    for level, line, fmt in sorted(out, key=lambda s: (s[1], s[0], s[2])):
        yield level, "%s:%d" % (path, line), fmt


# the package's two namings (the `lightning` wheel's lightning.pytorch / lightning.fabric, the standalone wheels'
# pytorch_lightning / lightning_fabric, built from one source tree whose messages name the module): a message that
# names one matches the other too, its package name read as a value
_NAMING = re.compile(r"\b(?:lightning\.pytorch|lightning\.fabric|pytorch_lightning|lightning_fabric)\b")


def _either_name(fmt):
    return _NAMING.sub("%s", fmt)


FIRST = 32  # the non-blank literal characters a message's first sentence needs to be its matcher


def _first_sentence(fmt):
    """The first sentence of a message of several (up to its '. ', '! ' or '? ' outside backticks and brackets)
    when its literal text is FIRST non-blank characters or more; else None. The sentences after it are the hints,
    which releases reword most ('Instead of `metric=%s(...)`' in one torchmetrics, quotes in another): the first
    names the failure."""
    depth = tick = 0
    for i, ch in enumerate(fmt):
        if ch == "`":
            tick ^= 1
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch in ".!?" and not tick and not depth and fmt[i + 1:i + 2] == " " and i + 2 < len(fmt):
            head = fmt[:i] if fmt[:i].endswith("%s") else fmt[:i + 1]  # a value's end is where it ends
            lit = "".join(knowgen.printf_to_regex(head)[1].split())
            return head if len("".join(re.sub(r"%s", " ", head).split())) >= FIRST and len(lit) >= NEED else None
    return None


def build(files, version):
    sites, seen, ids = [], set(), set()
    by_path = {}
    for path, src in files:
        by_path.setdefault(path, []).append(src)
    for path, srcs in by_path.items():
        m = re.match(r"older/([a-z_]+)-([^/]+)/(.+)$", path)
        real = m.group(3) if m else path
        firsts = knowgen.py_first_lines([textwrap.dedent(s) for s in srcs])
        for level, where, fmt in sites_of(real, srcs):
            if fmt in seen:
                continue
            seen.add(fmt)
            first = firsts.get(int(where.rsplit(":", 1)[1])) or _first_sentence(fmt)
            rx, literal = knowgen.matcher(_either_name(fmt), first and _either_name(first))
            prefix = "%s_%s_" % (m.group(1), knowgen.slug(m.group(2))) if m else ""
            site = {"id": knowgen.unique_id("lightning.%s%s" % (prefix, knowgen.slug(where)), ids),
                    "where": where, "level": level, "text": fmt}
            if m:  # printed by that older release only (the current one reworded or dropped it)
                site["older"] = "%s %s" % (m.group(1), m.group(2))
            if knowgen.unanchored(site, rx, literal, NEED):
                sites.append(site)
                continue
            if level == "warning":
                site.update({"re": rx, "family": None, "rule": "a warning, not an error"})
                sites.append(site)
                continue
            # pytorch_lightning/X is lightning/pytorch/X of the same tree (src/pytorch_lightning, src/lightning/pytorch)
            rule, family = knowgen.assign(RULES, site, {"where": re.sub(r"^pytorch_lightning/", "lightning/pytorch/", where),
                                                        "text": fmt, "level": level})
            if rule and rule.startswith("ctx-") and not knowgen.specific_enough(fmt, OWN, names=False):
                # its module names the family only of a message that says enough of its own: 'No GPUs available.',
                # 'Unknown operation %s' are any program's words
                rule, family = "too few words of its own (%d) for its module's family" % OWN, None
            site.update({"re": rx, "family": family, "rule": rule})
            knowgen.give_fix(site, MSG_FIX, fmt)
            own = family and "fix" not in site and _own_words(fmt)
            if own:  # no row: the message's own advice, or the rule it states, quoted
                site["means"], site["fix"] = own[0], own[1]
                site["quoted"] = True
            sites.append(site)
    return {"header": knowgen.header("lightning (https://pypi.org/project/lightning/) lightning/pytorch and "
                                     "lightning/fabric (the same messages as the standalone pytorch_lightning and "
                                     "lightning_fabric), torchmetrics (https://pypi.org/project/torchmetrics/)",
                                     version, GENERATOR),
            "sites": sites}


def _members(root, name):
    rx = re.compile(FILES[name])
    out = []
    for n in sorted(glob.glob(os.path.join(root, "**", "*.py"), recursive=True)):
        rel = os.path.relpath(n, root).replace(os.sep, "/")
        if rx.match(rel):
            with open(n, encoding="utf-8") as f:
                out.append((rel, f.read()))
    if not out:
        raise SystemExit("%s: no file matches %s (the layout changed?)" % (root, FILES[name]))
    return out


def _version_of(name, root):
    return knowgen.package_version(sorted(glob.glob(os.path.join(root, "%s-*.dist-info" % name, "METADATA"))))


def read_roots(roots, older=None):
    """[(path, text)] of FILES under each root; ``older``: {name: [root, ...]} of older releases (newest first),
    each read under 'older/<name>-<version>/<path>'."""
    files = []
    for name in PACKAGES:
        files.extend(_members(roots[name], name))
    for name in PACKAGES + OLDER_ONLY:
        for root in (older or {}).get(name, ()):
            prefix = "older/%s-%s/" % (name, _version_of(name, root))
            files.extend((prefix + p, t) for p, t in _members(root, name))
    return files


def release_of(roots, older=None):
    out = ", ".join("%s %s" % (n, _version_of(n, roots[n])) for n in PACKAGES)
    if older:
        out += "; older: " + ", ".join("%s %s" % (n, _version_of(n, r)) for n in PACKAGES + OLDER_ONLY
                                       for r in older.get(n, ()))
    return out


def write_record(path, version, files):
    """The slice (gen_trainer_messages.write_record): also the warnings and logging calls, and the formats."""
    gen_trainer_messages.write_record(
        path, version, files,
        head=("# Recorded by tools/gen_lightning_messages.py --record: each raise / assert / warning / logging call\n"
              "# that holds a message, as the source has it (=== path @first line).\n"),
        holds=lambda n: knowgen.py_message(n)[0] or _more(n)[0], more=_formats)


def main(argv):
    a = knowgen.arguments(__doc__, argv, PACKAGES, source_opts={
        "lightning": {"help": "the unpacked lightning wheel"},
        "torchmetrics": {"help": "the unpacked torchmetrics wheel"}},
        extra=[("--record", {"help": "write the slice (with the sources)"}),
               ("--older-lightning", {"nargs": "+", "help": "older lightning wheels, unpacked, newest first: the "
                                                            "messages they printed that the current one no longer does"}),
               ("--older-torchmetrics", {"nargs": "+", "help": "older torchmetrics wheels, unpacked, newest first"}),
               ("--older-pytorch-lightning", {"nargs": "+", "help": "older standalone pytorch_lightning wheels (1.x), "
                                                                    "unpacked, newest first"})])
    if a.slice:
        files, version = knowgen.read_slice(a.slice)
    else:
        roots = {"lightning": a.lightning, "torchmetrics": a.torchmetrics}
        older = {n: getattr(a, "older_" + n) for n in PACKAGES + OLDER_ONLY if getattr(a, "older_" + n)}
        files, version = read_roots(roots, older), release_of(roots, older)
        if a.record:
            write_record(a.record, version, files)
    doc = build(files, version)
    if not a.slice:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], "release")
    return knowgen.emit("lightning_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
