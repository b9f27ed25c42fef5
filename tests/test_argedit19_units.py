"""Units of explain/argedit.py (edits19) that mutation testing round 14 found unasserted (docs/mutation.md, "Round 14"):
each edit writer's answers asserted whole, branch by branch. The fixture tests (test_explain_argedit.py) check the
edit's words inside the first fix line; these check the line."""

from types import SimpleNamespace

from gpudoctor.explain import argedit

NEEDS = "persistent_workers option needs num_workers > 0"  # torch/utils/data/dataloader.py
POSITIVE = "batch_size should be a positive integer value, but got batch_size=0"  # torch/utils/data/sampler.py


def _scan(*argvs):
    """A scan whose launch context printed these command lines."""
    return SimpleNamespace(launchctx=SimpleNamespace(cmds=[{"argv": list(a)} for a in argvs]))


def test_exclusive_keeps_one_of_the_arguments():
    ex = argedit._exclusive
    assert ex(["fused", "foreach"], {"fused": "True", "foreach": "True"}, None, []) == [
        "keep only one of fused=True / foreach=True: drop foreach=True (or set foreach=False), or drop fused=True "
        "instead"]
    assert ex(["sampler", "shuffle", "batch_size"], {"sampler": "s", "shuffle": "True", "batch_size": "4"}, None,
              []) == ["drop shuffle=True and batch_size=4 (or set shuffle=False) (they cannot go with sampler=s), or "
                      "drop sampler=s instead"]
    # four at most are named
    assert ex(list("abcde"), {k: "True" for k in "abcde"}, None, []) == [
        "drop b=True and c=True and d=True (or set b=False, c=False, d=False) (they cannot go with a=True), or drop "
        "a=True instead"]
    # flags the command line gives (not the call's keywords)
    assert ex([], {}, _scan(["python", "t.py", "--fp16", "--bf16", "--x", "1"]), ["--fp16", "--bf16"]) == [
        "keep only one of --fp16 / --bf16: drop --bf16 from the command line (or drop --fp16)"]
    assert ex([], {}, _scan(["python", "t.py", "--fp16", "1", "--bf16", "1", "--tf32", "1"]),
              ["--fp16", "--bf16", "--tf32"]) == [
        "keep only one of --fp16 / --bf16 / --tf32: drop --tf32 from the command line (or drop --fp16 / --bf16)"]
    assert ex(["x"], {"x": "1"}, _scan(["python", "t.py", "--fp16", "1"]), ["--fp16", "--bf16"]) == []
    assert ex(["x"], {"x": "1"}, None, ["--fp16", "--bf16"]) == []


def test_requires_names_the_needed_value_and_the_way_out():
    rq = argedit._requires
    c = argedit.read(NEEDS)
    assert rq(c, {"persistent_workers": "True", "num_workers": "0"}) == [
        "set num_workers to a value > 0 (it is num_workers=0 now), or persistent_workers=False"]
    assert rq(c, {"persistent_workers": "pw"}) == [
        "set num_workers to a value > 0 (the call leaves num_workers at its default), or drop persistent_workers=pw"]
    assert rq(c, {"persistent_workers": "f(x)", "num_workers": "n_w"}) == [
        "set num_workers to a value > 0 (it is num_workers=n_w now; n_w is set above the call), or drop "
        "persistent_workers=..."]
    for const in ("None", "True", "False"):
        assert rq(c, {"persistent_workers": "True", "num_workers": const}) == [
            "set num_workers to a value > 0 (it is num_workers=%s now), or persistent_workers=False" % const]
    assert rq(c, {"num_workers": "2"}) == [] and rq({"need": None}, {}) == []
    # an equality: the value itself
    for op in ("=", "=="):
        c = argedit.read("use_cache requires num_beams %s 1" % op)
        assert c["need"] == ("use_cache", "num_beams", op, "1")
        assert rq(c, {"use_cache": "True", "num_beams": "4"}) == ["num_beams=1 (it is num_beams=4 now), or "
                                                                  "use_cache=False"]


def test_type_writes_the_conversion():
    ty = argedit._type
    c = argedit.read("Expected timeout argument to be of type datetime.timedelta, got 1800")
    td = ["timeout=timedelta(seconds=1800) (from datetime import timedelta; not timeout=1800)"]
    assert ty(c, {"timeout": "1800"}, ["timeout"], None) == td
    assert ty(c, {"timeout": "1800"}, [], {"param": "timeout"}) == td  # libarg's argument
    assert ty(c, {"timeout": '"1800"'}, ["timeout"], None) == [] and ty(c, {"timeout": "f(x)"}, ["timeout"], None) == []
    assert ty(c, {"x": "1800"}, [], {"param": "timeout"}) == [] and ty(dict(c, want=None), {"timeout": "1"},
                                                                       ["timeout"], None) == []
    dt = {"want": "torch.dtype"}
    assert ty(dt, {"dtype": '"float32"'}, ["dtype"], None) == ['dtype=torch.float32 (a torch.dtype, not the string '
                                                                '"float32")']
    assert ty(dt, {"dtype": '"floaty"'}, ["dtype"], None) == [] and ty(dt, {"dtype": "float32"}, ["dtype"], None) == []
    for want in ("bool", "Boolean"):
        assert ty({"want": want}, {"flag": "'true'"}, ["flag"], None) == ["flag=True (a bool, not the string 'true')"]
        assert ty({"want": want}, {"flag": "'yes'"}, ["flag"], None) == []
    for want, form in (("int", "int(4.0)"), ("Float", "float(4.0)"), ("str", "str(4.0)"), ("list", "[4.0]"),
                       ("tuple", "(4.0,)")):
        assert ty({"want": want}, {"n": "4.0"}, ["n"], None) == ["n=%s (not n=4.0)" % form]
    assert ty({"want": "dict"}, {"n": "4.0"}, ["n"], None) == [] and ty({"want": "int"}, {"n": "f(x)"}, ["n"],
                                                                         None) == []


def test_range_writes_the_bound_where_the_value_comes_from():
    def rg(kws, on_line, got=None, scan=None, c=None):
        c = c or argedit.read(POSITIVE)
        return argedit._range(c, kws, on_line, got, c["names"], scan)

    assert rg({"batch_size": "0"}, ["batch_size"]) == ["batch_size=<a value > 0> (not batch_size=0)"]
    assert rg({"batch_size": "True"}, ["batch_size"]) == ["batch_size=<a value > 0> (not batch_size=True)"]
    assert rg({"batch_size": "f(x)"}, ["batch_size"]) == ["batch_size=<a value > 0>"]
    assert rg({"batch_size": 'int(os.environ.get("BATCH_SIZE", 0))'}, ["batch_size"]) == [
        "export BATCH_SIZE=<a value > 0> before the run (the call reads batch_size=$BATCH_SIZE from the environment, "
        "falling back to 0)"]
    assert rg({"batch_size": 'int(os.environ["BATCH_SIZE"])'}, ["batch_size"]) == [
        "export BATCH_SIZE=<a value > 0> before the run (the call reads batch_size=$BATCH_SIZE from the environment)"]
    assert rg({"batch_size": "bs"}, ["batch_size"]) == [
        "set bs to a value > 0 where it is set (the call passes batch_size=bs)"]
    # the command line's flag: the parsed value's name, or libarg's argument left off the line
    assert rg({"batch_size": "args.batch_size"}, ["batch_size"], scan=_scan(["torchrun", "t.py", "--batch-size", "0"])
              ) == ["--batch-size <a value > 0> (not --batch-size 0)"]
    assert rg({"batch_size": "args.batch_size"}, ["batch_size"], scan=_scan(["torchrun", "t.py", "--batch_size=0"])
              ) == ["--batch_size=<a value > 0> (not --batch_size=0)"]
    assert rg({}, [], {"param": "batch_size"}, _scan(["python", "t.py", "--batch_size", "0"])) == [
        "--batch_size <a value > 0> (not --batch_size 0)"]
    # no argument of the call: the message's own name for it
    c = argedit.read("`r` should be a positive integer value but the value passed is 0")
    assert (c["kind"], c["bound"], c["value"]) == ("range", "> 0", "0")
    assert rg({}, [], c=c) == ["set r to a value > 0 (where it is given: the call or config that builds it)"]
    assert rg({}, [], c=dict(c, msg="should be a positive integer")) == []
    assert rg({"batch_size": "0"}, ["batch_size"], c=dict(argedit.read(POSITIVE), bound=None)) == []


def test_cli_value_needs_a_launch_context_and_a_name():
    assert argedit._cli_value(SimpleNamespace(), "lr") is None
    assert argedit._cli_value(_scan(["python", "t.py", "--", "x"]), "") is None
    assert argedit._cli_value(_scan(["python", "t.py", "--lr", "0.1"]), "lr") == ("--lr", "0.1", " ")


def _allowed(msg, kws, on_line, got=None, scan=None):
    c = argedit.read(msg)
    return argedit._allowed(c, {"src": []}, c["msg"], kws, on_line, got, scan)


MODE = "`mode` can be min, max, got maximize"  # lightning/pytorch/callbacks/early_stopping.py's words


def test_allowed_finds_the_argument_and_writes_it_as_given():
    ok = ['mode="max" (not mode="maximize")']
    assert _allowed(MODE, {"monitor": '"val_loss"', "mode": '"maximize"'}, ["monitor", "mode"]) == ok
    # the argument of the line that holds the refused value, not the first one the message names
    assert _allowed("zz can be min, max, got maximize", {"other": '"x"', "mode": "maximize"}, ["other", "mode"]) == [
        'maximize="max" where it is set (it holds maximize now; the call passes mode=maximize)']
    assert _allowed(MODE, {"alias": '"maximize"', "mode": '"maximize"'}, ["mode"]) == ok
    # a string keyword holding the value (the message's names not on the line), then libarg's, then the code name
    assert _allowed(MODE, {"m": '"maximize"'}, []) == ['m="max" (not m="maximize")']
    assert _allowed("zz can be min, max, got maximize", {}, [], {"param": "zz_mode"}) == [
        'zz_mode="max" (not zz_mode="maximize")']
    assert _allowed("zz can be min, max, got maximize", {}, []) == []
    assert _allowed("`min` is no `mode` here; " + MODE, {}, []) == ok  # a code name that is a choice is not it
    # no value in the message: the line's string; not a string: the list
    assert _allowed("`mode` must be one of: min, max", {"mode": '"maximize"'}, ["mode"]) == ok
    assert _allowed("`mode` must be one of: min, max", {"mode": "3"}, ["mode"]) == [
        "set mode to one of the values the message lists: min, max"]
    # quoting kept, several picks
    assert _allowed("`mode` can be max_a, max_b, got max", {"mode": "'max'"}, ["mode"]) == [
        "mode='max_a' or mode='max_b' (not mode='max')"]
    assert _allowed("`mode` can be max_a, max_b, got max", {"mode": "MODE"}, ["mode"]) == [
        'MODE="max_a" or "max_b" where it is set (it holds max now; the call passes mode=MODE)']


def test_allowed_on_the_command_line_and_long_lists():
    launch = _scan(["python", "t.py", "--mode", "maximize"])
    assert _allowed(MODE, {}, [], scan=launch) == ["--mode max (not --mode maximize)"]
    assert _allowed(MODE, {"mode": "args.opt_mode"}, ["mode"], scan=_scan(["python", "t.py", "--opt_mode", "maximize"])
                    ) == ["--opt_mode max (not --opt_mode maximize)"]
    far = "`mode` can be min, max, got zzz"
    assert _allowed(far, {}, [], scan=_scan(["python", "t.py", "--mode", "zzz"])) == [
        "give --mode one of the values it takes: min, max"]
    assert _allowed(far, {"mode": '"zzz"'}, ["mode"]) == ["set mode to one of the values the message lists: min, max"]
    twelve = ", ".join("c%02d" % i for i in range(12))
    assert _allowed("`mode` can be %s, got zzz" % twelve, {"mode": '"zzz"'}, ["mode"]) == [
        "set mode to one of the values the message lists: %s" % twelve]
    assert _allowed("`mode` can be %s, c12, got zzz" % twelve, {"mode": '"zzz"'}, ["mode"]) == [
        "set mode to one of the values the message lists: %s, ..." % twelve]


def test_cli_value_reads_flags_and_overrides():
    cv = argedit._cli_value
    assert cv(_scan(["python", "t.py", "--lr", "0.1"]), "--lr") == ("--lr", "0.1", " ")  # a flag name as given
    assert cv(_scan(["python", "t.py", "--batch_size", "4"]), "batch_size") == ("--batch_size", "4", " ")
    assert cv(_scan(["python", "t.py", "--lr"]), "lr") is None  # the last word: no value
    assert cv(_scan(["python", "t.py", "--lr", "$(x)"]), "lr") is None  # not pasted
    assert cv(_scan(["python", "t.py", "--lr=$(x)"]), "lr") is None
    assert cv(_scan(["python", "t.py", "--lr=0.1"]), "lr") == ("--lr", "0.1", "=")
    assert cv(_scan(["python", "t.py", "x=1", "--lr", "0.1"]), "lr") == ("--lr", "0.1", " ")
    assert cv(_scan(["python", "t.py", "--opt=k=v", "--opt", "1"]), "opt") is None
    assert cv(_scan(["x"] * 400 + ["--lr", "0.1"]), "lr") is None  # 400 words read
    # Hydra overrides: quoted; appended with '+', the prefix kept (review19's e6e6bb3)
    assert cv(_scan(["python", "t.py", "es.mode='maximum'"]), "mode", "maximum") == ("es.mode", "maximum", "=")
    assert cv(_scan(["python", "t.py", "+trainer.mode=maximum"]), "mode", "maximum") == ("+trainer.mode", "maximum",
                                                                                          "=")
    assert cv(_scan(["python", "t.py", "es.mode=maximum"]), "mode") is None  # no refused value to match


EARLY = """Traceback (most recent call last):
  File "/home/u/train.py", line 7, in <module>
    cb = EarlyStopping(monitor="val_loss", mode="maximize")
  File "/usr/local/lib/python3.10/dist-packages/lightning/pytorch/callbacks/early_stopping.py", line 146, in __init__
    raise MisconfigurationException(f"`mode` can be {', '.join(self.mode_dict.keys())}, got {self.mode}")
lightning.fabric.utilities.exceptions.MisconfigurationException: `mode` can be min, max, got maximize
"""


def test_fill_puts_the_edit_first_in_a_roots_first_cause():
    from gpudoctor.explain import pytb

    def root():
        return [{"role": "root", "causes": [{"fix": ["read the docs"]}]}]

    f = root()
    argedit.fill(None, f, pytb.parse(EARLY)[-1])
    assert f[0]["causes"][0] == {"fix": ['mode="max" (not mode="maximize")', "read the docs"],
                                 "edit": 'mode="max" (not mode="maximize")'}
    argedit.fill(None, [], pytb.parse(EARLY)[-1])  # nothing to fill
    for f in ([{"role": "root", "causes": []}], [{"role": "symptom", "causes": [{"fix": ["read the docs"]}]}]):
        before = repr(f)
        argedit.fill(None, f, pytb.parse(EARLY)[-1])
        assert repr(f) == before
    # raised in the user's own file: no library refused it
    own = EARLY.replace("/usr/local/lib/python3.10/dist-packages/lightning/pytorch/callbacks/early_stopping.py",
                        "/home/u/mycb.py")
    f = root()
    argedit.fill(None, f, pytb.parse(own)[-1])
    assert f == root()
    # the refused argument libarg found (the message names none)
    loader = """Traceback (most recent call last):
  File "/home/u/train.py", line 7, in <module>
    dl = DataLoader(ds, bs)
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 300, in __init__
    raise ValueError("should be a positive integer value, but got 0")
ValueError: should be a positive integer value, but got 0
"""
    f = root()
    argedit.fill(None, f, pytb.parse(loader)[-1], {"param": "batch_size"})
    assert f[0]["causes"][0]["fix"] == ["batch_size=<a value > 0>", "read the docs"]
    f = root()
    argedit.fill(None, f, pytb.parse(loader)[-1])
    assert f == root()


def test_the_writers_rarer_branches():
    # _allowed: no value and an argument the line does not pass; two picks on the command line
    assert _allowed("`mode` must be one of: min, max", {}, [], {"param": "mode"}) == [
        "set mode to one of the values the message lists: min, max"]
    assert _allowed("`mode` can be max_a, max_b, got max", {}, [], scan=_scan(["python", "t.py", "--mode", "max"])) == [
        "--mode max_a or --mode max_b (not --mode max)"]
    # _exclusive: five flags on the command line, four named; two arguments neither of which is True
    five = ["--a", "--b", "--c", "--d", "--e"]
    assert argedit._exclusive([], {}, _scan(["python", "t.py"] + [w for f in five for w in (f, "1")]), five) == [
        "keep only one of --a / --b / --c / --d: drop --e from the command line (or drop --a / --b / --c / --d)"]
    assert argedit._exclusive(["size", "scale_factor"], {"size": "(16, 16)", "scale_factor": "2.0"}, None, []) == [
        "keep only one of size=(16, 16) / scale_factor=2.0: drop scale_factor=2.0, or drop size=(16, 16) instead"]
    # _requires: the other argument written as an expression
    assert argedit._requires(argedit.read(NEEDS), {"persistent_workers": "True", "num_workers": "f(x)"}) == [
        "set num_workers to a value > 0 (it is num_workers=... now), or persistent_workers=False"]
    # _type: the string 'false'
    assert argedit._type({"want": "bool"}, {"flag": "'false'"}, ["flag"], None) == [
        "flag=False (a bool, not the string 'false')"]
    # _range: a Hydra override of the parsed config's dotted value; a parsed value under another flag name
    c = argedit.read("`batch_size` must be > 0, got 0")
    assert argedit._range(c, {"batch_size": "cfg.trainer.batch_size"}, ["batch_size"], None, c["names"],
                          _scan(["python", "t.py", "trainer.batch_size=0"])) == [
        "trainer.batch_size=<a value > 0> (not trainer.batch_size=0)"]
    assert argedit._range(c, {"batch_size": "args.bs"}, ["batch_size"], None, c["names"],
                          _scan(["python", "t.py", "--bs", "0"])) == ["--bs <a value > 0> (not --bs 0)"]
    # _cli_value: a value that starts with X (the quotes stripped, nothing else)
    assert argedit._cli_value(_scan(["python", "t.py", "es.backend=XLA"]), "backend", "XLA") == ("es.backend", "XLA",
                                                                                                "=")
