"""Units of explain/upgrade.py (upgrade19) that mutation testing round 14 found unasserted (docs/mutation.md,
"Round 14"): the frame walk of integrator(), the pip list table reader's bounds and bytes, the checkout form of the
command, and advice()'s three answers and places, asserted whole."""

import io
from types import SimpleNamespace

from gpudoctor.explain import upgrade

SP = "/usr/local/lib/python3.10/dist-packages/"
TRL = (SP + "trl/scripts/vllm_serve.py", 238, "main")
VLLM = (SP + "vllm/entrypoints/llm.py", 212, "__init__")
VLLM2 = (SP + "vllm/utils.py", 1022, "inner")
STD = ("/usr/lib/python3.10/functools.py", 888, "wrapper")
TORCH = (SP + "torch/nn/modules/module.py", 1501, "_call_impl")


def test_integrator_walks_the_frames_outward_from_the_raisers_run():
    # the nearest other library's frame, the chained exception's outer frames included
    assert upgrade.integrator({"outer": [TRL], "frames": [VLLM]}, "vllm")[:3] == ("trl", TRL[0], 238)
    # standard-library frames inside the raiser's run are stepped over (a decorator's wrapper)
    assert upgrade.integrator({"frames": [TRL, VLLM, STD]}, "vllm")[:3] == ("trl", TRL[0], 238)
    assert upgrade.integrator({"frames": [STD, STD]}, "vllm") is None
    assert upgrade.integrator({"frames": [STD]}, "vllm") is None
    # the innermost frame is not the raiser's: no integrating package
    assert upgrade.integrator({"frames": [VLLM, TRL]}, "vllm") is None
    # only the raiser's frames, or the integrating frame the outermost one
    assert upgrade.integrator({"frames": [VLLM2, VLLM]}, "vllm") is None
    assert upgrade.integrator({"frames": [TRL, VLLM]}, "vllm")[0] == "trl"
    # a dispatching frame (torch's Module.__call__) is stepped over, one frame at a time
    cli = (SP + "trl/cli.py", 95, "main")
    assert upgrade.integrator({"frames": [cli, TRL, TORCH, VLLM]}, "vllm")[2] == 238


def test_a_pip_list_table_is_read_to_its_thousandth_row(kb):
    from gpudoctor.explain.scan import scan_stream

    rows = "".join("p%d%s0.%d\n" % (i, " " * 20, i) for i in range(1, 1003))
    got = upgrade.installed(scan_stream(io.BytesIO(("Package%sVersion\n" % (" " * 20) + rows).encode()), kb))
    assert got["p1000"] == ("0.1000", 1001) and got["p999"][0] == "0.999" and "p1001" not in got
    # a row whose Location column (pip list -v) is not UTF-8 is still read, and the rows after it
    text = (b"Package    Version    Location\n---------- ---------- ----------\n"
            b"torch      2.1.0      /home/jos\xe9/venv\nvllm       0.8.3      /home/x\n")
    got = upgrade.installed(scan_stream(io.BytesIO(text), kb))
    assert got["torch"] == ("2.1.0", 3) and got["vllm"] == ("0.8.3", 4)
    # an egg folder's version in a chained exception's outer frames
    egg = (SP + "vllm-0.7.0-py3.10.egg/vllm/x.py", 3, "f")
    assert upgrade.installed(scan_stream(io.BytesIO(b"x\n"), kb), {"outer": [egg], "frames": []})["vllm"] == (
        "0.7.0", None)
    assert upgrade.norm(None) == "" and upgrade.norm("Foo__Bar.baz") == "foo-bar-baz"


def test_the_command_names_where_the_package_is_installed():
    assert upgrade._short(SP + "lmcache/integration/vllm/a.py") == "lmcache/integration/vllm/a.py"
    assert upgrade._short("/venv/lib/site-packages/x/lib/python3/site-packages/y/z.py") == "y/z.py"  # the last one
    assert upgrade._short("/home/u/a.py") == "/home/u/a.py"
    # a source checkout: the folder above the package's own
    ck = ("vllm", "where it is installed, /home/u/ws/vllm, not site-packages: a source checkout - git -C "
          "/home/u/ws/vllm pull, then pip install -e /home/u/ws/vllm - or a pip --target folder - pip install -U "
          "--target /home/u/ws/vllm vllm")
    assert upgrade._install("vllm", "/home/u/ws/vllm/vllm/engine/x.py") == ck
    assert upgrade._install("vllm", "C:\\ws\\vllm\\vllm\\x.py")[1].startswith("where it is installed, C:/ws/vllm, ")
    # a file not under a folder of the package's name: its own folder; a relative path and one at the root
    assert upgrade._install("vllm", "/opt/code/mymod.py")[1].startswith("where it is installed, /opt/code, ")
    assert upgrade._install("vllm", "./vllm/x.py")[1].startswith("where it is installed, ., ")
    assert upgrade._install("vllm", "/vllm/x.py")[1].startswith("where it is installed, /vllm, ")
    # a package no wheel table knows and no version line names: pip list finds its distribution
    assert upgrade._install("mylibx_core") == (
        "mylibx_core", "pip install -U mylibx_core; pip list | grep -i mylibx names its distribution")
    assert upgrade._install("mylibx_core", vers={"mylibx-core": ("1.0", 2)}) == (
        "mylibx_core", "pip install -U mylibx_core")
    assert upgrade._installed_say({"vllm": ("0.8.3", 4)}, "vllm") == "; installed: vllm 0.8.3 (line 4)"
    assert upgrade._installed_say({"vllm": ("0.7.0", None)}, "vllm") == "; installed: vllm 0.7.0"
    assert upgrade._installed_say({}, "vllm") == ""


XF = [("/home/u/run.py", 3, "<module>"), ("/home/u/workspace/vllm/vllm/attention/backends/xformers.py", 120, "forward"),
      TORCH, (SP + "xformers/ops/fmha/__init__.py", 212, "memory_efficient_attention")]
BINDING = "memory_efficient_attention() got an unexpected keyword argument 'scale'"


def _scan(**rows):
    return SimpleNamespace(matches={}, pkg_rows=rows)


def test_advice_under_another_packages_call_names_both_installations():
    fixes, note, place = upgrade.advice(_scan(xformers=("0.0.29.post2", 4)), {"exc": "TypeError", "msg": BINDING,
                                                                              "frames": XF}, "xformers")
    assert place == "first"
    assert fixes == [
        "upgrade vllm (where it is installed, /home/u/workspace/vllm, not site-packages: a source checkout - git -C "
        "/home/u/workspace/vllm pull, then pip install -e /home/u/workspace/vllm - or a pip --target folder - pip "
        "install -U --target /home/u/workspace/vllm vllm): its code (/home/u/workspace/vllm/vllm/attention/backends/"
        "xformers.py:120 in forward) calls into xformers, and the installed xformers is not the release it was written "
        "for; or pin xformers to the release vllm supports (pip show vllm lists its requirement; pip install "
        "'xformers==<that version>')",
        "or upgrade xformers (pip install -U xformers; installed: xformers 0.0.29.post2 (line 4)) when its own release "
        "notes name the fix"]
    assert note == (
        "TypeError (an internal failure) was raised inside xformers's code, which vllm's code called "
        "(/home/u/workspace/vllm/vllm/attention/backends/xformers.py:120): an integration of vllm with xformers's "
        "internals. When such a call fails inside the callee, the two installed releases do not fit each other or the "
        "callee's release has the bug: upgrade vllm first (its newer releases follow xformers), or pin xformers to the "
        "release vllm supports.")
    # a caller at a module's top level: no ' in <module>'
    top = XF[:1] + [XF[1][:2] + ("<module>",)] + XF[2:]
    fixes = upgrade.advice(_scan(), {"exc": "TypeError", "msg": BINDING, "frames": top}, "xformers")[0]
    assert "(/home/u/workspace/vllm/vllm/attention/backends/xformers.py:120) calls into" in fixes[0]


def test_advice_for_the_librarys_own_failure_and_for_its_own_error():
    tb = {"exc": "pkg.sub.AttributeError", "msg": "'Config' object has no attribute 'required'", "frames": [VLLM]}
    fixes, note, place = upgrade.advice(_scan(vllm=("0.10.0", 3)), tb, "vllm")
    assert (fixes, place) == (["upgrade vllm (pip install -U vllm; installed: vllm 0.10.0 (line 3)): an AttributeError "
                               "inside vllm's own code is a fault of this release or of its fit with the installed "
                               "torch and other libraries; its release notes and issue tracker name the release that "
                               "fixed it; or pin vllm to the release the other packages support (pip check lists the "
                               "requirements that do not hold)"], "first")
    assert note == ("AttributeError is one of Python's internal-failure classes, raised in vllm's own frames and not "
                    "by an argument check of your call: the installed vllm failed on its own state (a bug of this "
                    "release, or a mismatch with another installed package); an upgrade, or the release the other "
                    "packages pin, is the fix threads settle on.")
    # an attribute of None (review19): the upgrade after the library's reading, on that condition, no note
    assert upgrade.advice(_scan(vllm=("0.10.0", 3)), dict(tb, msg="'NoneType' object has no attribute 'logits'"),
                          "vllm") == (
        ["if no argument or field your call passes is None: upgrade vllm (pip install -U vllm; installed: vllm 0.10.0 "
         "(line 3)), whose release may "
         "fail on its own state here (its release notes and issue tracker name the release that fixed it), or pin "
         "vllm to the release the other packages support (pip check)"], None, "second")
    fixes = upgrade.advice(_scan(), dict(tb, exc="KeyError", msg="'loss'"), "vllm")[0]
    assert fixes[0].startswith("upgrade vllm (pip install -U vllm): a KeyError inside vllm's own code")
    # a stated rule (an assert's words): the library's own reading first, the upgrade last, no note
    own = upgrade.advice(_scan(vllm=("0.10.0", None)), dict(tb, exc="AssertionError", msg="x must be positive"), "vllm")
    assert own == (["if the call and its configuration are what vllm's documentation asks for: upgrade vllm (pip "
                    "install -U vllm; installed: vllm 0.10.0), whose release may have this as a bug (its release notes "
                    "and issue tracker name the release that fixed it), or pin the release the other packages support "
                    "(pip check)"], None, False)
    assert upgrade.advice(_scan(), {"exc": "KeyError"}, "builtins") == ([], None, False)
    # the versions: an egg folder's in the frames; a package no wheel table knows, named by its printed version
    egg = (SP + "vllm-0.7.0-py3.10.egg/vllm/x.py", 3, "f")
    assert "(pip install -U vllm; installed: vllm 0.7.0): a KeyError" in upgrade.advice(
        _scan(), {"exc": "KeyError", "msg": "'x'", "frames": [egg]}, "vllm")[0][0]
    mine = (SP + "mylibx_core/x.py", 3, "f")
    assert upgrade.advice(_scan(**{"mylibx-core": ("1.0", 2)}), {"exc": "KeyError", "msg": "'x'", "frames": [mine]},
                          "mylibx_core")[0][0].startswith(
        "upgrade mylibx_core (pip install -U mylibx_core; installed: mylibx_core 1.0 (line 2)): a KeyError")


def test_which_failures_are_the_installations():
    def place(exc, msg, frames=(VLLM,), lib="vllm"):
        return upgrade.advice(_scan(), {"exc": exc, "msg": msg, "frames": list(frames)}, lib)[2]

    assert place("AssertionError", "") == "second"  # an assert without words: internal, after the reading
    assert place("AssertionError", "local_world_size (16) must be less than 8") is False
    assert place("TypeError", "expected Tensor as element 0 in argument 0, but got int") is False
    assert place("ValueError", "bad value") is False  # not an internal-failure class
    assert place("KeyError", "'expected'") == "second"  # a rule's word inside a KeyError's key is no rule
    # CPython's binding refusal: another package's call (internal, first); the user's own call (a stated rule)
    assert place("TypeError", BINDING, XF, "xformers") == "first"
    assert place("TypeError", BINDING, [XF[0], XF[3]], "xformers") is False
