"""Lightning's and torchmetrics' own refusals (issue 18, lightning13): read from the lightning 2.6.6 wheel
(lightning/pytorch, lightning/fabric; older 2.0.9, 1.9.5 and pytorch_lightning 1.6.5.post0, 1.4.9) and torchmetrics 1.9.0
(older 0.11.4) by tools/gen_lightning_messages.py, whose slice tools/data/lightning_messages_slice.txt.gz keeps
every statement that holds a message: the generator regenerates the committed table from it, the module that raises a
message names its family, and real texts of public threads (cited per text) get the entry and the fix.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "lightning_messages_slice.txt.gz")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_lightning_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, fixes, ids, root_id, root_of  # noqa: E402

REAL = {
    # https://github.com/amanteur/SCNet-PyTorch/issues/2 (lightning 2.x: the monitored name was never logged)
    "scnet_2": ("  File \"/home/arijr/miniconda3/envs/scnet/lib/python3.10/site-packages/lightning/pytorch/callbacks/"
                "model_checkpoint.py\", line 382, in _save_topk_checkpoint\n    raise MisconfigurationException(m)\n"
                "lightning.fabric.utilities.exceptions.MisconfigurationException: `ModelCheckpoint(monitor='val/usdr')` "
                "could not find the monitored key in the returned metrics: ['lr-Adam', 'train/loss', "
                "'grad_2.0_norm_total', 'val/loss', 'usdr_other', 'usdr_vocals', 'usdr', 'epoch', 'step']. HINT: Did "
                "you call `log('val/usdr', value)` in the `LightningModule`?\n",
                "lightning.checkpoint", "self.log("),
    # https://github.com/curiousily/Getting-Things-Done-with-Pytorch/issues/23 (pytorch_lightning 1.x's wording of the
    # same check: read from pytorch_lightning 1.4.9)
    "gtd_23": ("pytorch_lightning.utilities.exceptions.MisconfigurationException: ModelCheckpoint(monitor='val_loss') "
               "not found in the returned metrics: ['train_loss']. HINT: Did you call self.log('val_loss', tensor) in "
               "the LightningModule?\n", "lightning.checkpoint", "monitor"),
    # https://github.com/hyyan2k/LiSenNet/issues/8 (pytorch_lightning 2.1.3: training_step kept optimizer_idx)
    "lisennet_8": ("Training with multiple optimizers is only supported with manual optimization. Remove the "
                   "`optimizer_idx` argument from `training_step`, set `self.automatic_optimization = False` and access "
                   "your optimizers in `training_step` with `opt1, opt2, ... = self.optimizers()`.\n",
                   "lightning.optimizers", "self.automatic_optimization = False"),
    # https://github.com/ashleve/lightning-hydra-template/issues/331 (pytorch_lightning 1.6.4 on an M1: no CUDA;
    # 1.6's wording, without the backticks of 1.9 and later)
    "hydra_331": ("MisconfigurationException(\"GPUAccelerator can not run on your system since the accelerator is not "
                  "available. The following accelerator(s) is available and can be passed into `accelerator` argument "
                  "of `Trainer`: ['cpu'].\")\n", "lightning.config", "accelerator='auto'"),
    # https://github.com/Lightning-AI/pytorch-lightning/issues/16828 (Slurm's --gpus-per-task: each task sees one GPU)
    "pl_16828": ("MisconfigurationException('You requested gpu: [0, 1, 2, 3, 4, 5, 6, 7]\\n But your machine only "
                 "has: [0]\n", "lightning.config", "CUDA_VISIBLE_DEVICES"),
    # https://github.com/weecology/DeepForest/issues/559 (self.log outside the loops that collect it)
    "deepforest_559": ("MisconfigurationException: You are trying to `self.log()` but the loop's result collection is "
                       "not registered yet. This is most likely because you are trying to log in a `predict` hook, but "
                       "it doesn't support logging\n", "lightning.log", "predict_step"),
    # https://github.com/Lightning-AI/torchmetrics/issues/2965 (a metric left on the CPU; this release quotes the
    # hint with ' where 1.9.0 has backticks: the first sentence is the matcher)
    "torchmetrics_2965": ("RuntimeError: Encountered different devices in metric calculation (see stacktrace for "
                          "details). This could be due to the metric class not being on the same device as input. "
                          "Instead of 'metric=R2Score(...)' try to do 'metric=R2Score(...).to(device)' where device "
                          "corresponds to the device of the input.\n", "torchmetrics.usage", ".to("),
}


def test_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "lightning_messages.json")
    full = knowgen.committed("lightning_messages")
    assert got["sites"] == full["sites"] and got["header"]["version"] == full["header"]["version"]
    assert "lightning 2.6.6" in full["header"]["version"] and "pytorch_lightning 1.4.9" in full["header"]["version"]
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_the_module_that_raises_names_the_family_and_warnings_stay_context():
    sites = {s["text"]: s for s in knowgen.committed("lightning_messages")["sites"]}
    # fx_validator.py builds its message as `m = "..."; msg = m.format(...)`: read through the name
    fx = sites["You can't `self.log(%s=%s)` inside `%s`, must be one of %s."]
    assert fx["family"] == "lightning.log" and "on_step=False" in fx["fix"][0]
    assert sites["In automatic_optimization, when `training_step` returns a dict, the 'loss' key needs to be "
                 "present"]["family"] == "lightning.optimizers"
    assert sites["Optional arg `num_classes` must be type `int` when task is %s. Got %s"]["family"] == \
        "torchmetrics.usage"
    # Python's own AttributeError wording and too few words of their own take no family from their module
    assert sites["'%s' object has no attribute '%s'"]["family"] is None
    assert sites["No GPUs available."]["family"] is None
    assert all(not s["family"] for s in sites.values() if s["level"] == "warning")
    # no MSG_FIX row: the message's own advice, else the rule it states (advice.find), quoted with '...' for a value
    fsdp = sites["`precision=%s)` is not supported in FSDP. `precision` must be one of: %s."]
    assert fsdp["means"] == "The message states the rule: \u201c`precision` must be one of: \u2026\u201d"
    tpu = sites["`Trainer.tpu_cores` was deprecated in v1.6 and is no longer accessible as of v1.8. Please use "
                "`Trainer.num_devices` instead."]
    assert tpu["means"].startswith("The message says what to do") and tpu["fix"] == \
        ["Please use `Trainer.num_devices` instead."]
    # a message that names the module matches both namings of the package (lightning.pytorch, pytorch_lightning)
    moved = [s for t, s in sites.items() if t.startswith("`lightning.pytorch.utilities.cli.LightningCLI` was deprecated")]
    assert moved and moved[0]["family"] == "lightning.removed_api"
    assert re.search(moved[0]["re"], "`pytorch_lightning.utilities.cli.LightningCLI` was deprecated in v1.7.0 and is "
                                     "no longer supported as of v1.9.0.")


def test_real_texts_get_the_entry_and_its_fix(cli, tmp_path):
    for name, (text, want, word) in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        assert root_id(doc) == want, (name, ids(doc))
        assert word in fixes(root_of(doc), " "), (name, fixes(root_of(doc)))
