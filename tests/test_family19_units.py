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
    assert mp("/home/u/src/lightning/pytorch/trainer/trainer.py") == "lightning/pytorch/trainer/trainer.py"
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
    # every level from the deepest folder up to a library's first folder (datasets/io: two parts)
    assert libwhere.module_family(SP + "lightning/pytorch/callbacks/progress/sub/zz.py") == "lightning.callbacks"
    assert libwhere.module_family(SP + "datasets/io/zz_new.py") == "datasets.load"
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
    # a class that states no refusal (RuntimeError) is no argument check; the library's own class is
    assert libwhere.choose(kb.by_id, pytb.parse(text.replace("ValueError", "RuntimeError"))[-1], "bitsandbytes",
                           3) is None
    own = text.replace("raise ValueError", "raise BnbOptimError").replace("ValueError:",
                                                                        "bitsandbytes.optim.BnbOptimError:")
    assert libwhere.choose(kb.by_id, pytb.parse(own)[-1], "bitsandbytes", 3) == ("bitsandbytes.usage",
                                                                                  ("check", "__init__"))
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


EARLY = """Traceback (most recent call last):
  File "/home/u/train.py", line 7, in <module>
    cb = EarlyStopping(monitor="val_loss", mode="maximize")
  File "/usr/local/lib/python3.10/dist-packages/lightning/pytorch/callbacks/early_stopping.py", line 146, in __init__
    raise MisconfigurationException(f"`mode` can be {', '.join(self.mode_dict.keys())}, got {self.mode}")
lightning.fabric.utilities.exceptions.MisconfigurationException: `mode` can be min, max, got maximize
"""


def test_how_the_library_raised_it():
    lib = (SP + "lightning/pytorch/callbacks/early_stopping.py", 146, "__init__")
    raising = ("raise ValueError(x)", None)
    # the class's last part decides: a dotted internal-failure class is one
    assert libwhere.raiser({"exc": "lightning.x.AttributeError", "frames": [USER, lib],
                            "src": [("f()", None), raising]}, "lightning") is None
    # an Enum's refusal of a value the library converted is its own
    assert libwhere.raiser({"exc": "ValueError", "frames": [USER, POST, ENUM, ENUM2], "src": []}, "accelerate") == (
        1, True)
    # source lines not printed for every frame: the class decides (ValueError, NotImplementedError: a refusal)
    for exc in ("ValueError", "NotImplementedError"):
        assert libwhere.raiser({"exc": exc, "frames": [USER, lib], "src": [("f()", None)]}, "lightning") == (1, None)
    assert libwhere.raiser({"exc": "ValueError", "frames": [lib], "src": [raising]}, "lightning") == (0, True)
    # a lookup error's own sentence needs three words
    for msg, own in (("'FOO missing'", None), ("'variable FOO missing'", (1, True))):
        tb = {"exc": "KeyError", "msg": msg, "frames": [USER, lib], "src": [("f()", None), ("raise KeyError(m)", None)]}
        assert libwhere.raiser(tb, "lightning") == own, msg


def test_a_class_of_the_errors_table_unless_its_entry_is_an_echo():
    cls = "datasets.exceptions.DataFilesNotFoundError"
    assert libwhere.class_family({"datasets.load": {}}, cls) == "datasets.load"
    assert libwhere.class_family({"datasets.load": {"kind": "echo"}}, cls) is None
    assert libwhere.class_family({}, cls) is None and libwhere.class_family({"datasets.load": {}}, None) is None


def test_the_module_family_unless_its_entry_is_an_echo():
    tb = pytb.parse(EARLY)[-1]
    assert libwhere.choose({"lightning.callbacks": {}}, tb, "lightning", 3) == (
        "lightning.callbacks", ("module", "lightning/pytorch/callbacks/early_stopping.py"))
    assert libwhere.choose({"lightning.callbacks": {"kind": "echo"}}, tb, "lightning", 3) is None


def test_the_finer_familys_answer_then_the_generic_causes_then_the_upgrade():
    from types import SimpleNamespace

    tb = dict(pytb.parse(EARLY)[-1], hit=None)
    generic = [{"text": "generic A", "checks": ["c1"], "confirm": ["cf"], "fix": ["fx"], "exports": {"E": "1"},
                "computed": "k"},
               {"text": "own cause"}, {"text": "when", "when": "x"}, {"text": "evidence", "evidence": ["e"]},
               {"text": "generic B"}]
    by = {"lightning.callbacks": {}, "lightning.library_error": {"causes": generic}}
    made = []

    def structural(entry, hit, why, scan, sure):
        made.append((why, sure))
        return {"causes": [{"text": "own cause", "fix": ["own fix"]}], "notes": []}

    f = libwhere.finding(SimpleNamespace(matches={}, pkg_rows={}), SimpleNamespace(by_id=by), tb, "lightning",
                         ("/home/u/train.py", 7), "early_stopping.py:146", "the words.", structural, 3)
    assert made == [("lightning.fabric.utilities.exceptions.MisconfigurationException raised by lightning's own check "
                     "in lightning/pytorch/callbacks/early_stopping.py (a module of lightning's lightning.callbacks "
                     "part)", "medium")]
    assert f["notes"] == ["Raised by lightning's own `raise` at early_stopping.py:146 (called from your "
                          "/home/u/train.py:7): the words. That module is lightning's lightning.callbacks part "
                          "(lightning/pytorch/callbacks/early_stopping.py): the library refused the call or the "
                          "setting there; its message names what it wants."]
    up = ("if the call and its configuration are what lightning's documentation asks for: upgrade lightning (pip "
          "install -U lightning), whose release may have this as a bug (its release notes and issue tracker name the "
          "release that fixed it), or pin the release the other packages support (pip check)")
    assert f["causes"] == [
        {"text": "own cause", "fix": ["own fix"]},
        {"text": "generic A", "checks": ["c1"], "confirm": ["cf"], "fix": ["fx"], "exports": {"E": "1"},
         "evidence": [], "static_rank": 2, "computed": "k"},
        {"text": "generic B", "checks": [], "confirm": [], "fix": [up], "exports": {}, "evidence": [],
         "static_rank": 3, "computed": None}]
    # no library_error entry of its own: code.library_error's causes; no user frame
    by = {"lightning.callbacks": {}, "code.library_error": {"causes": [{"text": "code's"}]}}
    f = libwhere.finding(SimpleNamespace(matches={}, pkg_rows={}), SimpleNamespace(by_id=by), tb, "lightning", None,
                         "x.py:1", "w", structural, 3)
    assert [c["text"] for c in f["causes"]] == ["own cause", "code's"] and "(called from" not in f["notes"][0]
    # the class and the check hows' words
    made.clear()
    cls = dict(tb, exc="datasets.exceptions.DataFilesNotFoundError",
               frames=[USER, (SP + "datasets/load.py", 1, "load_dataset")])
    f = libwhere.finding(SimpleNamespace(matches={}, pkg_rows={}), SimpleNamespace(by_id={"datasets.load": {}}), cls,
                         "datasets", None, "load.py:1", "w", structural, 3)
    assert made[0][0] == ("datasets.exceptions.DataFilesNotFoundError, an exception class datasets defines for its "
                          "datasets.load errors")
    assert f["notes"][0].endswith("datasets defines that class for this kind of error (datasets.load): its message "
                                  "names the key, value or target it could not use.")


def test_the_argument_checks_answer_words(kb):
    from types import SimpleNamespace

    text = ("Traceback (most recent call last):\n"
            '  File "/home/u/train.py", line 12, in <module>\n'
            "    opt = bnb.optim.AdamW8bit(model.parameters(), lr=1e-3, optim_bits=12)\n"
            '  File "%sbitsandbytes/optim/optimizer.py", line 400, in __init__\n'
            '    raise ValueError(f"zq invalid optim_bits: {optim_bits} zq")\n'
            "ValueError: zq invalid optim_bits: 12 zq\n") % SP
    made = []

    def structural(entry, hit, why, scan, sure):
        made.append(why)
        return {"causes": [{"text": "own", "fix": []}], "notes": []}

    f = libwhere.finding(SimpleNamespace(matches={}, pkg_rows={}), kb, dict(pytb.parse(text)[-1], hit=None),
                         "bitsandbytes", None, "optimizer.py:400", "w", structural, 3)
    assert made == ["ValueError raised by bitsandbytes's argument check __init__, called from your line"]
    assert f["notes"][0] == ("Raised by bitsandbytes's own `raise` at optimizer.py:400: w. __init__ checks the "
                             "arguments it was given and refused one your line passes: change that argument as the "
                             "message asks, not the library.")
