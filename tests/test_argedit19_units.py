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
