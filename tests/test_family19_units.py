"""Units of explain/libwhere.py (family19) that mutation testing round 14 found unasserted (docs/mutation.md,
"Round 14"): a frame's module path outside site-packages, the folder fallback, a class another import name of the
library defines, the Enum frames' walk, and the argument-check path (no module family: '<lib>.usage'), which no
test of test_explain_family19.py reached."""

from gpudoctor.explain import libwhere, pytb

SP = "/usr/local/lib/python3.10/dist-packages/"
USER = ("/home/u/train.py", 12, "<module>")
ENUM = ("/usr/lib/python3.10/enum.py", 757, "__call__")
ENUM2 = ("/usr/lib/python3.10/enum.py", 1152, "__new__")
POST = (SP + "accelerate/utils/dataclasses.py", 880, "__post_init__")
MISSING = (SP + "transformers/utils/generic.py", 500, "_missing_")


def test_module_path_inside_and_outside_site_packages():
    mp = libwhere.module_path
    assert mp(SP + "lightning/pytorch/callbacks/early_stopping.py") == "lightning/pytorch/callbacks/early_stopping.py"
    assert mp("/venv/lib/site-packages/x/site-packages/peft/tuners/lora.py") == "peft/tuners/lora.py"  # the last
    assert mp("/home/u/train.py") is None and mp(None) is None
    # a source tree of a known library: from its last folder of that name, the standalone wheels' names aliased
    assert mp("/home/u/src/pytorch_lightning/trainer/trainer.py") == "lightning/pytorch/trainer/trainer.py"
    assert mp("/src/lightning_fabric/connector.py") == "lightning/fabric/connector.py"
    assert mp("/home/u/accelerate/src/accelerate/state.py") == "accelerate/state.py"
    assert mp("/w/transformers/src/transformers/trainer.py") == "transformers/trainer.py"
    assert mp("/w/peft/src/peft/mapping.py") == "peft/mapping.py"
    assert mp("/accelerate/utils/x.py") == "accelerate/utils/x.py"  # (at the path's start)
    assert mp("C:\\src\\peft\\tuners\\lora.py") == "peft/tuners/lora.py"


def test_a_module_the_wheel_lacks_takes_its_folders_family():
    # lightning/pytorch/callbacks/progress is a folder of one family; lightning/pytorch is none
    assert libwhere.module_family(SP + "lightning/pytorch/callbacks/progress/zz_other_release.py") == \
        "lightning.callbacks"
    assert libwhere.module_family(SP + "accelerate/commands/config/zz_other.py") == "accelerate.config"
    assert libwhere.module_family(SP + "zz_unknown_pkg/a/b.py") is None
    assert libwhere.module_family("/home/u/train.py") is None


def test_a_class_of_the_library_by_its_other_import_name():
    assert libwhere._own_class("lightning.fabric.utilities.exceptions.MisconfigurationException", "lightning")
    # the standalone wheel's import name is the same library (pytb.where)
    assert libwhere._own_class("pytorch_lightning.utilities.exceptions.MisconfigurationException", "lightning")
    assert not libwhere._own_class("omegaconf.errors.InterpolationResolutionError", "hydra")
    assert not libwhere._own_class("ValueError", "lightning")


def test_the_enum_frames_walk():
    ec = libwhere._enum_caller
    assert ec([USER, POST, ENUM, ENUM2], "accelerate") == 1
    assert ec([USER, POST, ENUM], "accelerate") == 1  # one enum frame
    assert ec([POST, ENUM], "accelerate") == 0  # the caller the outermost frame
    assert ec([USER, POST], "accelerate") is None  # no enum frame: not an Enum's refusal
    assert ec([USER, ENUM, ENUM2], "accelerate") is None and ec([ENUM, ENUM2], "accelerate") is None
    assert ec([POST, ("/usr/lib/python3.10/functools.py", 1, "wrapper")], "accelerate") is None  # stdlib, not enum
    # the class's own _missing_ hook is read through; four frames at most
    assert ec([USER, (SP + "transformers/training_args.py", 1700, "__post_init__"), MISSING, ENUM], "transformers") == 1
    assert ec([MISSING, ENUM], "transformers") is None
    assert ec([POST, ENUM, ENUM2, ENUM, ENUM2, ENUM], "accelerate") is None
    assert ec([ENUM, MISSING], "transformers") is None
    # Windows paths
    win = [("C:\\u\\train.py", 3, "<module>"), ("C:\\py\\Lib\\site-packages\\accelerate\\utils\\dataclasses.py", 880,
                                                "__post_init__"), ("C:\\Python311\\Lib\\enum.py", 757, "__call__")]
    assert ec(win, "accelerate") == 1


BNB = [USER, (SP + "bitsandbytes/optim/adamw.py", 120, "__init__"), (SP + "bitsandbytes/optim/optimizer.py", 400,
                                                                      "__init__")]


def test_an_argument_check_within_the_api_depth():
    cc = libwhere._checked_call
    assert cc({"frames": BNB}, "bitsandbytes", 3, 2) == "__init__"
    assert cc({"frames": BNB}, "bitsandbytes", 1, 2) is None  # two library frames from the user's
    assert cc({"frames": BNB[:2] + [BNB[2][:2] + ("step",)]}, "bitsandbytes", 3, 2) is None  # not a checking name
    std = ("/usr/lib/python3.10/functools.py", 1, "wrapper")
    assert cc({"frames": [USER, std, BNB[2]]}, "bitsandbytes", 1, 2) == "__init__"  # stdlib frames not counted
    torch = (SP + "torch/nn/modules/module.py", 1501, "_call_impl")
    assert cc({"frames": [USER, torch, BNB[2]]}, "bitsandbytes", 3, 2) is None  # another package between
    assert cc({"frames": BNB[1:]}, "bitsandbytes", 3, 1) is None  # no user frame
    assert cc({"frames": [USER[:2] + ("__init__",)]}, "bitsandbytes", 3, 0) is None  # the user's own frame
    by = {"x.usage": {"kind": "error"}, "y.usage": {"kind": "echo"}, "y.config": {}}
    assert libwhere.usage_family(by, "x") == "x.usage" and libwhere.usage_family(by, "y") == "y.config"
    assert libwhere.usage_family(by, "z") is None


def test_a_library_without_module_families_refusing_an_argument_is_its_usage(kb):
    # a ValueError raised by bitsandbytes' optimizer constructor (no module table for bitsandbytes) with words no
    # entry knows, naming the optim_bits argument the user's line passes
    text = ("Traceback (most recent call last):\n"
            '  File "/home/u/train.py", line 12, in <module>\n'
            "    opt = bnb.optim.AdamW8bit(model.parameters(), lr=1e-3, optim_bits=12)\n"
            '  File "%sbitsandbytes/optim/adamw.py", line 120, in __init__\n'
            "    super().__init__(\n"
            '  File "%sbitsandbytes/optim/optimizer.py", line 400, in __init__\n'
            '    raise ValueError(f"zq invalid optim_bits: {optim_bits} zq")\n'
            "ValueError: zq invalid optim_bits: 12 zq\n") % (SP, SP)
    tb = pytb.parse(text)[-1]
    assert libwhere.choose(kb.by_id, tb, "bitsandbytes", 3) == ("bitsandbytes.usage", ("check", "__init__"))
    assert libwhere.choose(kb.by_id, tb, "bitsandbytes", 1) is None
    # a message that names no argument of the call: not shown to be the call's refusal
    other = text.replace("zq invalid optim_bits: 12 zq", "zq invalid bits: 12 zq")
    assert libwhere.choose(kb.by_id, pytb.parse(other)[-1], "bitsandbytes", 3) is None


def test_a_lookup_error_the_library_raised_with_its_sentence_is_not_called_its_own_fault(kb):
    # omegaconf's oc.env resolver (omegaconf/resolvers/oc/__init__.py: raise KeyError(f"Environment variable '{key}'
    # not found")), the KeyError's own traceback: libwhere reads the library's refusal (omegaconf.interpolation); the
    # installation alternative must not then call it 'a fault of this release' with the internal-failure note
    # (upgrade.advice counted every KeyError internal; mutation round 14, x_finding__mutmut_194-196)
    from gpudoctor import explain

    text = """Traceback (most recent call last):
  File "/home/u/run.py", line 3, in <module>
    print(cfg.data.root)
  File "/usr/local/lib/python3.11/site-packages/omegaconf/resolvers/oc/__init__.py", line 38, in env
    raise KeyError(f"Environment variable '{key}' not found")
KeyError: "Environment variable 'DATA_DIR' not found"
"""
    f = explain.explain_text(text, kb)["findings"][0]
    assert f["id"] == "omegaconf.interpolation"
    fixes = [x for c in f["causes"] for x in c["fix"]]
    assert fixes[-1].startswith("if the call and its configuration are what omegaconf's documentation asks for: "
                                "upgrade omegaconf"), fixes[-1]
    assert not any("internal-failure" in n for n in f["notes"]) and not any("fault of this release" in x for x in fixes)
