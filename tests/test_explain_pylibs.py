"""timm, OmegaConf and Hydra refusals (issue 18, libarg15): read from the timm 1.0.31 (and older 0.9.16, 0.6.13),
omegaconf 2.4.0 (and 2.1.2) and hydra-core 1.3.2 wheels by tools/gen_pylibs_messages.py (its slice
tools/data/pylibs_messages_slice.txt keeps the statements of the assigned sites with their line numbers): the
generator regenerates the committed sites; texts made here by running OmegaConf 2.4.0, Hydra 1.3.2 (with OmegaConf
2.3.1), timm 1.0.31 and torch 2.14.1 (CPU) in a venv (tests/data/pylibs/*.log, verbatim: `$ <command>` then the
output) and texts of public threads
(cited per text) get their entry and the fix the code that raises them points at. And gpudoctor/explain/libarg.py:
a library's refusal whose message names an argument the user's line passes says which argument of which call.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_pylibs_messages  # noqa: E402
import knowgen  # noqa: E402

from gpudoctor import explain  # noqa: E402
from gpudoctor.explain import libarg, pytb  # noqa: E402

DATA = os.path.join(REPO, "tests", "data", "pylibs")

# made here: (file, entry, a regex over the first cause's fixes)
RUNS = [
    ("omegaconf_interpolation_key.log", "omegaconf.interpolation", r"from the root of the config"),
    ("omegaconf_missing_mandatory.log", "omegaconf.missing", r"missing_keys"),
    ("omegaconf_type_hint.log", "omegaconf.structured", r"declared type"),
    ("hydra_config_dir.log", "hydra.config", r"config_path"),
    ("hydra_override_struct.log", "hydra.override", r"\+key=value"),
    ("hydra_group_option.log", "hydra.config", r"Available options in"),
    ("timm_unknown_model.log", "timm.model_name", r"timm\.list_models\('resnet\*'\)"),
    ("timm_vit_input_height.log", "timm.input_size", r"img_size="),
]

REAL = {
    # https://github.com/AAboys/MobileFormer/issues/16 (a model name timm does not register)
    "timm_unknown_model_mobileformer_16": ("RuntimeError: Unknown model (mobile_former_294m)\n", "timm.model_name",
                                           r"list_models"),
    # https://github.com/facebookresearch/mae/issues/160 (timm 0.6's patch embedding, 736-pixel images, a 224 model)
    "timm_input_height_mae_160": (
        "   _assert(H == self.img_size[0], f\"Input image height ({H}) doesn't match model ({self.img_size[0]}).\")\n"
        "  File \"/root/anaconda3/envs/torch19/lib/python3.8/site-packages/torch/__init__.py\", line 662, in _assert\n"
        "    assert condition, message\n"
        "AssertionError: Input image height (736) doesn't match model (224).\n", "timm.input_size", r"img_size="),
    # https://github.com/Sachini/niloc/issues/10 (OmegaConf 2.1, a key read that the struct config lacks)
    "omegaconf_struct_niloc_10": (
        "  File \"/home/omer/anaconda3/envs/niloc_test/lib/python3.8/site-packages/omegaconf/_utils.py\", line 610, "
        "in _raise\n    raise ex  # set end OC_CAUSE=1 for full backtrace\n"
        "omegaconf.errors.ConfigAttributeError: Key 'io' is not in struct\n        full_key: io\n"
        "        reference_type=Optional[Dict[Union[str, Enum], Any]]\n        object_type=dict\n",
        "omegaconf.structured", r"\+key=value"),
    # https://github.com/hydra-ecosystem/hydra/issues/1912 (Hydra 1.1.1, an override of a misspelt key)
    "hydra_override_1912": (
        "Could not override 'perferences.trait'.\nTo append to your config use +perferences.trait=i_like_stars\n"
        "Key 'perferences' is not in struct\n    full_key: perferences\n    object_type=dict\n",
        "hydra.override", r"\+key=value"),
}


def test_generator_regenerates_the_committed_sites_from_its_slice(tmp_path):
    got = knowgen.regenerated(gen_pylibs_messages.main, os.path.join(REPO, "tools", "data",
                                                                     "pylibs_messages_slice.txt"),
                              tmp_path / "pylibs_messages.json")
    full = knowgen.committed("pylibs_messages")
    assert got["header"]["version"] == full["header"]["version"]
    by_text = {s["text"]: s for s in full["sites"]}
    assert len(got["sites"]) >= 250
    for s in got["sites"]:
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in by_text[s["text"]].items() if k not in ("id", "where")}, s["id"]
    # every assigned site of the full read is in the slice
    assert {t for t, s in by_text.items() if s.get("family")} <= {s["text"] for s in got["sites"]}
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_what_the_reader_finds_and_the_rules_keep_out():
    sites = {s["text"]: s for s in knowgen.committed("pylibs_messages")["sites"]}
    # torch's _assert(cond, msg) in timm's patch embedding, and the older release's wording
    assert sites["Input height (%s) doesn't match model (%s)."]["family"] == "timm.input_size"
    assert sites["Input image height (%s) doesn't match model (%s)."]["older"] == "timm 0.6.13"
    # OmegaConf's _format_and_raise(cause=ConfigAttributeError(msg)) with msg assigned above; $KEY is a value; a text
    # too short to anchor alone is matched after the exception's qualified name
    key = sites["Key '%s' not in '%s'"]
    assert key["family"] == "omegaconf.structured" and key["re"].startswith("omegaconf\\.errors\\.")
    assert sites["Missing mandatory value: %s"]["family"] == "omegaconf.missing"
    # Hydra's msg= handed to a helper, each line of a multi-line message
    assert sites["Primary config directory not found."]["family"] == "hydra.config"
    assert sites["Available options in '%s':"]["family"] == "hydra.config"
    # words any program prints stay unassigned; a warning is context only
    assert sites["Could not find '%s'"]["family"] is None
    # each assigned site's function and parameters, read from its `def` (the slice records the header)
    unknown = sites["Unknown model (%s)"]
    assert unknown["func"] == "_resolve_model_source" and unknown["params"][0] == "model_name"
    assert all(s["family"] is None for s in sites.values() if s["level"] == "warning")


def test_runs_made_here_get_their_entry_and_fix(kb):
    for name, want, fix_re in RUNS:
        with open(os.path.join(DATA, name)) as f:
            res = explain.explain_text(f.read(), kb)
        root = res["findings"][0] if res["findings"] else None
        assert root and root["id"] == want, (name, [f["id"] for f in res["findings"]])
        assert re.search(fix_re, "\n".join(root["causes"][0]["fix"])), (name, root["causes"][0]["fix"])


def test_public_threads_get_their_entry_and_fix(kb):
    for name, (text, want, fix_re) in REAL.items():
        res = explain.explain_text(text, kb)
        root = res["findings"][0] if res["findings"] else None
        assert root and root["id"] == want, (name, [f["id"] for f in res["findings"]])
        assert re.search(fix_re, "\n".join(root["causes"][0]["fix"])), (name, root["causes"][0]["fix"])


def test_healthy_lines_of_these_libraries_stay_healthy(kb):
    # timm's deprecation warning and Hydra's run-directory line (printed by every healthy run)
    res = explain.explain_text(
        "/venv/lib/python3.11/site-packages/timm/models/layers/__init__.py:48: FutureWarning: Importing from "
        "timm.models.layers is deprecated, please import via timm.layers\n"
        "  warnings.warn(f\"Importing from {__name__} is deprecated, please import via timm.layers\", FutureWarning)\n"
        "[2026-11-27 02:00:00,000][__main__][INFO] - epoch 1 loss 0.31\n", kb)
    assert res["verdict"] == "no_error" and not res["findings"]


# libarg.py on texts made here: (file, the argument named, how) or None when no argument is named
ARGS = [
    # torch/utils/data/dataloader.py (BatchSampler): the line passes batch_size=GLOBAL_BATCH // WORLD (0)
    ("dataloader_batch_size_zero.log", "batch_size", "written on the line"),
    # torch/optim/sgd.py: "Nesterov momentum requires a momentum and zero dampening", momentum=0.0 on the line
    ("sgd_nesterov_momentum.log", "momentum", "written on the line"),
    # torch.nn.Linear's shapes: the message names no argument of the line (model(torch.randn(4, 6)))
    ("linear_shapes.log", None, None),
    # timm's registry: 'Unknown model (resnet_18)' names the value, not the argument
    ("timm_unknown_model.log", None, None),
    # timm/scheduler/scheduler_factory.py create_scheduler_v2(updates_per_epoch=0): a default the line left, named by
    # the raising function's parameters (generated/pylibs_messages.json func / params)
    ("timm_scheduler_updates_per_epoch.log", "updates_per_epoch",
     "a parameter of create_scheduler_v2, the library function that raised"),
]


def test_the_refused_argument_of_the_users_call_is_named():
    for name, param, how in ARGS:
        with open(os.path.join(DATA, name)) as f:
            tb = pytb.parse(f.read())[-1]
        got = libarg.argument(tb)
        assert (got and (got["param"], got["how"])) == ((param, how) if param else None), (name, got)
    with open(os.path.join(DATA, "sgd_nesterov_momentum.log")) as f:
        text = f.read()
    got = libarg.argument(pytb.parse(text)[-1])
    assert got["call"] == "torch.optim.SGD" and got["line"] == 3 and got["lib"] == "torch"
    # a message that refuses nothing (no words of a check) names no argument, even with the name on the line
    tb = pytb.parse(text.replace("requires a momentum and zero dampening", "momentum and dampening"))[-1]
    assert libarg.argument(tb) is None


def test_the_answer_says_which_argument_to_change(kb):
    with open(os.path.join(DATA, "dataloader_batch_size_zero.log")) as f:
        root = explain.explain_text(f.read(), kb)["findings"][0]
    fixes = "\n".join(root["causes"][0]["fix"])
    assert "the value given as batch_size to DataLoader is rejected by torch" in fixes and "line 5" in fixes
    assert any("an argument your line train.py:5 passes to DataLoader" in n for n in root["notes"])
