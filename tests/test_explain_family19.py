"""The finer family from where and how a library raised (family19, issue 18 "the right family", item 3): the module
table read from the pinned wheels (tools/gen_lib_modules.py -> generated/lib_modules.json) and the raise that makes
it the answer (explain/libwhere.py).

Texts: fixtures/explain/family19/*.log, each made here by running its .py beside it with the real libraries
(lightning 2.6.6, accelerate 1.15.0, transformers 5.24.0, datasets 5.2.0, omegaconf 2.4.0, torch 2.13.0+cpu,
CPython 3.11.7), and
ai-responder#7's traceback (https://github.com/Eiztrips/ai-responder/issues/7) with its message replaced."""

import json
import os
import sys

import pytest

from gpudoctor import explain
from gpudoctor.explain import libwhere, pytb
from gpudoctor.explain.knowledge import open_generated

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FIX = os.path.join(REPO, "fixtures", "explain", "family19")


def _root(kb, name):
    with open(os.path.join(FIX, name), encoding="utf-8") as f:
        res = explain.explain_text(f.read(), kb)
    roots = [f for f in res["findings"] if f.get("role") == "root"]
    return res, roots[0] if roots else None


def test_the_module_table_regenerates_from_its_slice(tmp_path, kb):
    sys.path.insert(0, os.path.join(REPO, "tools"))
    import gen_lib_modules as g

    out = tmp_path / "m.json"
    g.main(["--slice", os.path.join(REPO, "tools", "data", "lib_modules_slice.txt"), "-o", str(out)])
    got = json.loads(out.read_text())
    with open_generated("lib_modules") as f:
        committed = json.load(f)
    for d in (got, committed):
        d["header"].pop("date")
    assert got == committed
    cov = committed["coverage"]
    assert set(cov) == {"lightning", "accelerate", "datasets", "transformers", "peft", "trl 0.19.1", "trl 1.16.0",
                        "deepspeed", "timm", "torchmetrics", "hydra-core", "omegaconf", "pytorch-lightning 1.4.9",
                        "pytorch-lightning 1.6.5.post0"}
    assert all(c["modules"] == c["assigned"] + c["unassigned"] and c["assigned"] > 0 for c in cov.values())
    # every family a rule names is an entry of the knowledge
    assert {fam for _, fam, _ in g.RULES} <= set(kb.by_id)


@pytest.mark.parametrize("path,family", [
    # the packages' own module layout (tools/gen_lib_modules.py RULES)
    ("/v/lib/python3.11/site-packages/lightning/pytorch/callbacks/early_stopping.py", "lightning.callbacks"),
    ("/v/lib/python3.11/site-packages/lightning/pytorch/callbacks/model_checkpoint.py", "lightning.checkpoint"),
    ("/v/lib/python3.11/site-packages/lightning/pytorch/strategies/ddp.py", "lightning.strategy"),
    ("/v/lib/python3.11/site-packages/lightning/fabric/connector.py", "lightning.config"),
    # the standalone wheels: the same tree under another name
    ("/v/lib/python3.11/site-packages/pytorch_lightning/callbacks/early_stopping.py", "lightning.callbacks"),
    ("C:\\v\\Lib\\site-packages\\lightning_fabric\\strategies\\fsdp.py", "lightning.strategy"),
    # the 1.x standalone wheels' own layout (read from pytorch_lightning 1.4.9 and 1.6.5.post0)
    ("/v/lib/python3.8/site-packages/pytorch_lightning/plugins/training_type/ddp.py", "lightning.strategy"),
    ("/v/lib/python3.8/site-packages/pytorch_lightning/trainer/optimizers.py", "lightning.optimizers"),
    ("/v/lib/python3.8/site-packages/pytorch_lightning/trainer/data_loading.py", "lightning.data"),
    # (noanswer20) TRL 0.x's layout: its vLLM client in trl/extras/ (read from trl 0.19.1)
    ("/v/lib/python3.11/site-packages/trl/extras/vllm_client.py", "trl.vllm"),
    # a module of another release, absent from the pinned wheel: its folder's one family
    ("/v/lib/python3.11/site-packages/lightning/pytorch/strategies/bagua.py", "lightning.strategy"),
    ("/v/lib/python3.11/site-packages/datasets/load.py", "datasets.load"),
    ("/v/lib/python3.11/site-packages/datasets/packaged_modules/json/json.py", "datasets.load"),
    ("/v/lib/python3.11/site-packages/datasets/table.py", "datasets.arrow"),
    ("/v/lib/python3.11/site-packages/datasets/arrow_dataset.py", "datasets.usage"),
    ("/v/lib/python3.11/site-packages/accelerate/utils/dataclasses.py", "accelerate.config"),
    ("/v/lib/python3.11/site-packages/accelerate/commands/config/config_args.py", "accelerate.config"),
    ("/v/lib/python3.11/site-packages/transformers/training_args.py", "transformers.trainer"),
    ("/v/lib/python3.11/site-packages/transformers/generation/utils.py", "transformers.usage"),
    ("/v/lib/python3.11/site-packages/peft/tuners/lora/model.py", "peft.usage"),
    ("/v/lib/python3.11/site-packages/trl/trainer/grpo_config.py", "trl.config"),
    ("/v/lib/python3.11/site-packages/deepspeed/runtime/zero/config.py", "deepspeed.config"),
    ("/v/lib/python3.11/site-packages/deepspeed/runtime/engine.py", "deepspeed.usage"),
    ("/v/lib/python3.11/site-packages/timm/models/_registry.py", "timm.model_name"),
    ("/v/lib/python3.11/site-packages/timm/layers/patch_embed.py", "timm.input_size"),
    ("/v/lib/python3.11/site-packages/torchmetrics/functional/classification/stat_scores.py", "torchmetrics.usage"),
    ("/v/lib/python3.11/site-packages/hydra/_internal/instantiate/_instantiate2.py", "hydra.instantiate"),
    ("/v/lib/python3.11/site-packages/omegaconf/resolvers/oc/__init__.py", "omegaconf.interpolation"),
    ("/v/lib/python3.11/site-packages/transformers/models/llama/configuration_llama.py", "transformers.usage"),
    ("/v/lib/python3.11/site-packages/accelerate/utils/operations.py", "accelerate.config"),
    # model code and the libraries' helpers: no finer family
    ("/v/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py", None),
    ("/v/lib/python3.11/site-packages/accelerate/utils/imports.py", None),
    ("/home/u/train.py", None),
])
def test_where_a_module_is(path, family):
    assert libwhere.module_family(path) == family


def test_a_callback_refusing_its_argument_is_the_callbacks_family(kb):
    # EarlyStopping(mode="minimum"): lightning/pytorch/callbacks/early_stopping.py __init__ raises
    # MisconfigurationException(f"`mode` can be {...}, got {self.mode}") - an f-string too short for a message site
    res, f = _root(kb, "lt_es_mode.log")
    assert res["verdict"] == "root_cause" and f["id"] == "lightning.callbacks"
    assert f["family"] == "lightning.library_error"  # (a case of the library's own errors)
    assert "own `raise`" in " ".join(f["notes"]) and "lt_es_mode.py:2" in " ".join(f["notes"])
    texts = [c["text"] for c in f["causes"]]
    assert texts[0].startswith("The callback monitors")  # the finer family's causes first
    assert any("Lightning (PyTorch Lightning / Fabric) rejects" in t for t in texts[1:])  # the generic one after


def test_model_checkpoint_is_the_checkpoint_family(kb):
    _res, f = _root(kb, "lt_ckpt_mode.log")
    assert f["id"] == "lightning.checkpoint"


def test_an_enum_refusing_a_value_the_library_converted(kb):
    # accelerate's TorchDynamoPlugin.__post_init__ (accelerate/utils/dataclasses.py) converts the backend with
    # DynamoBackend(...): Lib/enum.py raises "'INDUCTR' is not a valid DynamoBackend" under it
    _res, f = _root(kb, "acc_dyn.log")
    assert f["id"] == "accelerate.config" and f["family"] == "accelerate.library_error"
    # transformers' ExplicitEnum._missing_ (transformers/utils/generic.py) under TrainingArguments.__post_init__
    _res, f = _root(kb, "tf_sched.log")
    assert f["id"] == "transformers.trainer" and f["family"] == "transformers.library_error"


def test_a_class_of_the_librarys_errors_module_names_its_family(kb):
    # OmegaConf raises every error through omegaconf/_utils.py format_and_raise (its module says nothing); the class
    # omegaconf.errors.InterpolationResolutionError does (oc.env of an unset variable, omegaconf 2.4.0 run here)
    _res, f = _root(kb, "oc_env.log")
    assert f["id"] == "omegaconf.interpolation"
    assert "an exception class omegaconf defines" in f["notes"][0]
    from gpudoctor.explain.knowledge import generated_table

    classes = generated_table("lib_modules")["classes"]
    assert classes["omegaconf.errors.MissingMandatoryValue"] == "omegaconf.missing"
    assert classes["hydra.errors.MissingConfigException"] == "hydra.config"  # (through its base)
    assert classes["datasets.exceptions.DataFilesNotFoundError"] == "datasets.load"


def test_a_dataset_operation_with_words_no_entry_knows_is_the_usage_family(kb):
    # Dataset.train_test_split(test_size=5) (datasets 5.2.0 run here): its own message is a generated site; the same
    # traceback with a message no entry knows is still datasets/arrow_dataset.py's own raise -> datasets.usage
    with open(os.path.join(FIX, "ds_split.log"), encoding="utf-8") as f:
        real = f.read()
    assert explain.explain_text(real, kb)["findings"][0]["id"] == "datasets.usage"
    text = real.replace("test_size=5 should be either positive and smaller than the number of samples 3 or a float "
                        "in the (0, 1) range", "a frobnicator needs a widget")
    f = explain.explain_text(text, kb)["findings"][0]
    assert f["id"] == "datasets.usage" and "datasets/arrow_dataset.py" in f["notes"][0]


def test_the_exception_line_alone_names_its_class_family(kb):
    # the last line of oc_env.log's traceback pasted alone (no frames): the class still names the family
    with open(os.path.join(FIX, "oc_env.log"), encoding="utf-8") as f:
        alone = "\n".join(f.read().splitlines()[-3:]) + "\n"
    assert alone.startswith("omegaconf.errors.InterpolationResolutionError: ")
    res = explain.explain_text(alone, kb)
    assert res["verdict"] == "likely_cause" and res["findings"][0]["id"] == "omegaconf.interpolation"


def test_an_internal_failure_stays_the_library_error(kb):
    # Accelerator.save_state() without a project_dir: os.makedirs(None) - CPython's own TypeError in posixpath,
    # not a raise of accelerate's
    _res, f = _root(kb, "acc_save.log")
    assert f["id"] == "accelerate.library_error"
    # load_dataset("json", data_files=<a pattern nothing matches>) offline (datasets 5.2.0): a StopIteration of
    # next(iter(...)) in the json builder, no raise of datasets' own
    _res, f = _root(kb, "ds_files.log")
    assert f["id"] == "datasets.library_error"


def _tb(text):
    tbs = pytb.parse(text)
    assert tbs
    return tbs[-1]


HEAD = 'Traceback (most recent call last):\n  File "/home/u/fit.py", line 3, in <module>\n    cb = X(a=1)\n'
LIB = '  File "/v/lib/python3.11/site-packages/lightning/pytorch/callbacks/early_stopping.py", line 9, in __init__\n'


@pytest.mark.parametrize("tail,own", [
    ("    raise ValueError(f'bad {a}')\nValueError: bad 1\n", True),
    # an operation's failure on a library line: not its raise
    ("    x = self.mode_dict[mode]\nKeyError: 'maximize'\n", None),
    ("    y = a + None\nTypeError: unsupported operand type(s) for +: 'int' and 'NoneType'\n", None),
    # an internal-failure class even on a raise line
    ("    raise AttributeError('x')\nAttributeError: x\n", None),
    # a lookup error: only with a sentence of the library's own on its raise line
    ("    raise KeyError(key)\nKeyError: 'maximize'\n", None),
    ("    raise KeyError(f\"Environment variable '{key}' not found\")\n"
     "KeyError: \"Environment variable 'DATA_ROOT' not found\"\n", True),
])
def test_how_it_raised(tail, own):
    got = libwhere.raiser(_tb(HEAD + LIB + tail), "lightning")
    assert (got[1] if got else None) == own


def test_without_a_source_line_the_class_decides():
    # a paste without source lines: the library's own exception class is its raise; CPython's TypeError is not
    tb = _tb(HEAD.replace("    cb = X(a=1)\n", "") + LIB + "lightning.fabric.utilities.exceptions."
             "MisconfigurationException: `mode` can be min, max, got maximize\n")
    assert libwhere.raiser(tb, "lightning") == (1, None)
    tb = _tb(HEAD.replace("    cb = X(a=1)\n", "") + LIB + "TypeError: 'NoneType' object is not iterable\n")
    assert libwhere.raiser(tb, "lightning") is None


def test_a_made_up_message_of_training_args_is_the_trainer_family(kb):
    # ai-responder#7's TrainingArguments traceback (its own message is a generated site: not this path), the
    # message replaced by one no entry knows: raised by training_args.py's own __post_init__ check
    real = ("Traceback (most recent call last):\n"
            '  File "C:\\Users\\vanya\\Projects\\ai-responder\\src\\ml\\model_trainer.py", line 229, in train_model\n'
            "    training_args = TrainingArguments(**device_args)\n"
            '  File "<string>", line 134, in __init__\n'
            '  File "C:\\Users\\vanya\\Projects\\ai-responder\\venv\\Lib\\site-packages\\transformers\\'
            'training_args.py", line 1742, in __post_init__\n'
            '    raise ValueError("a frobnicator needs a widget")\n'
            "ValueError: a frobnicator needs a widget\n")
    f = explain.explain_text(real, kb)["findings"][0]
    assert f["id"] == "transformers.trainer" and f["notes"][0].startswith("How sure: medium")
