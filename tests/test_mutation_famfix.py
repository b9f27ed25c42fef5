"""Cases for the mutants of gpudoctor/explain/famfix.py (docs/mutation.md, fifth round): the names a matched
line holds (whole names of the expected shape, the first line that has one, the bounds), the slots filled
with them or their words, every cause's text/fix/confirm filled, the first fix an exception's names give
(after the user's own frame), and the how-sure note of a family answer whose first cause has its line,
each compared whole, written out from the module's rules."""

import pytest

from gpudoctor.explain import famfix as F


@pytest.mark.parametrize("lines,kind,want", [
    (["x", None, "Invalid NCCL_COMM_ID and TORCH_X"], "var", "NCCL_COMM_ID"),
    (["a PYTORCH_CUDA_ALLOC_CONF", "NCCL_DEBUG"], "var", "PYTORCH_CUDA_ALLOC_CONF"),  # the first line that has one
    (["MY_NCCL_X FOONCCL_Y NCCL_y $NCCL_Z NCCL_A1x"], "var", None),  # whole names of a known prefix, upper case
    (["NCCL_", "NCCL_" + "A" * 58, "NCCL_" + "B" * 59], "var", "NCCL_" + "A" * 58),
    (["x" * 4090 + " NCCL_LATE", "CUDA_VISIBLE_DEVICES"], "var", "CUDA_VISIBLE_DEVICES"),  # read to 4,096
    (["SLURM_PROCID and --x"], "var", "SLURM_PROCID"),
    (["--nproc-per-node=2 --x"], "option", "--nproc-per-node"),
    (["a-b--c --Upper -x --ok_1"], "option", "--ok_1"),
    (["--" + "a" * 61, "--" + "b" * 62], "option", "--" + "a" * 61),
    ([], "option", None), ([None, ""], "var", None),
])
def test_names(lines, kind, want):
    assert F.names(lines, kind) == want


def test_names_longer_than_64_are_refused():
    # the pattern admits 58 characters after the prefix's '_': a long prefix makes a name of 65, refused
    v63, v65 = "NCCL_" + "A" * 58, "TORCHINDUCTOR_" + "B" * 51
    assert len(v63) == 63 and len(v65) == 65 and F.names([v65], "var") is None and F.names([v63], "var") == v63
    v64 = "TORCHINDUCTOR_" + "C" * 50
    assert len(v64) == 64 and F.names([v64, "NCCL_X"], "var") == v64


def test_fill():
    assert F.fill("set {$var|the variable} or {$option|an option} {$var|x}", ["bad NCCL_IB_HCA='x' --foo-bar"]) == \
        "set NCCL_IB_HCA or --foo-bar NCCL_IB_HCA"
    assert F.fill("set {$var|the variable} or {$option|an option}", ["nothing"]) == "set the variable or an option"
    assert F.fill("no slot {$x|y} {var|z}", ["NCCL_X"]) == "no slot {$x|y} {var|z}"
    assert F.fill("plain", ["NCCL_X"]) == "plain"


def test_fill_causes_fills_text_fix_and_confirm():
    causes = [{"text": "{$var|v} is wrong", "fix": ["unset {$var|it}", "keep"], "confirm": ["echo ${$option|o}"],
               "other": "{$var|left}"},
              {"text": "t", "fix": [], "confirm": []}]
    F.fill_causes(causes, ["NCCL_ALGO=x --algo"])
    assert causes == [{"text": "NCCL_ALGO is wrong", "fix": ["unset NCCL_ALGO", "keep"], "confirm": ["echo $--algo"],
                       "other": "{$var|left}"},
                      {"text": "t", "fix": [], "confirm": []}]


def _exc(texts, fix, fid="code.exception", conf="structural", role="root", causes=True):
    return {"id": fid, "role": role, "confidence": conf, "matches": [{"text": t} for t in texts],
            "causes": [{"fix": list(fix)}] if causes else [], "notes": []}


_BOTH = ("the message names the variable TORCH_NCCL_X and the option --opt-a: check the value it had (env | grep "
         "TORCH_NCCL_X on the node that raised it (and what the launcher exports); the command line that passed "
         "--opt-a) against what the code that raised it accepts")


def test_an_exception_names_its_variable_and_option_first():
    f = _exc(["ValueError: bad TORCH_NCCL_X --opt-a"], ["open a.py (line 3)", "b"])
    F.finish([f], "N")
    assert f["causes"][0]["fix"] == ["open a.py (line 3)", _BOTH, "b"]
    f = _exc(["nothing", None, "ValueError: bad TORCH_NCCL_X --opt-a"], ["b"], fid="nccl.library_error")
    F.finish([f], "N")
    assert f["causes"][0]["fix"] == [_BOTH, "b"]
    f = _exc(["ValueError: --opt-a"], [])
    F.finish([f], "N")
    assert f["causes"][0]["fix"] == ["the message names the option --opt-a: check the value it had (the command line "
                                     "that passed --opt-a) against what the code that raised it accepts"]
    f = _exc(["KeyError: NCCL_Y"], ["opened"])
    F.finish([f], "N")
    assert f["causes"][0]["fix"] == ["the message names the variable NCCL_Y: check the value it had (env | grep NCCL_Y "
                                     "on the node that raised it (and what the launcher exports)) against what the "
                                     "code that raised it accepts", "opened"]


@pytest.mark.parametrize("f", [
    _exc(["a", "b", "c", "ValueError: NCCL_X"], ["b"]),  # the first 3 matched lines only
    _exc(["ValueError: NCCL_X"], ["b"], fid="nccl.timeout"),
    _exc(["ValueError: NCCL_X"], ["b"], fid="nccl.library_error_x"),
    _exc(["ValueError: NCCL_X"], ["b"], conf="family"),
    _exc(["ValueError: NCCL_X"], ["b"], role="related"),
    _exc(["ValueError: nothing"], ["b"]),
])
def test_no_first_fix(f):
    F.finish([f], "N")
    assert f["causes"][0]["fix"] == ["b"]
    f = _exc(["ValueError: NCCL_X"], [], causes=False)
    F.finish([f], "N")
    assert f["causes"] == []


def _fam(causes, notes=("A", "FAM", "B"), role="root", conf="family"):
    return {"id": "x.y", "role": role, "confidence": conf, "notes": list(notes), "causes": causes}


def test_sure_names_the_line_and_the_others():
    ev = [{"line": 7, "text": "NCCL WARN " + "y" * 200}, {"line": 9, "text": "z"}]
    f = _fam([{"evidence": ev}, {}, {}])
    F.sure([f], "FAM")
    assert f["notes"] == ["A", "How sure: medium. The family is certain from the message; line 7 ('NCCL WARN %s [...]') "
                          "points at the first cause below; if not that, the other 2 in order, each with what tells "
                          "it apart." % ("y" * 144), "B"]
    f = _fam([{"evidence": [{"line": 3, "text": "t"}]}, {}])
    F.sure([f], "FAM")
    assert f["notes"][1] == ("How sure: medium. The family is certain from the message; line 3 ('t') points at the "
                             "first cause below; if not that, the other one in order, each with what tells it apart.")
    f = _fam([{"evidence": [{"line": 3, "text": "t"}]}])
    F.finish([f], "FAM")
    assert f["notes"][1] == ("How sure: medium. The family is certain from the message; line 3 ('t') points at the "
                             "first cause below.")


@pytest.mark.parametrize("f", [
    _fam([{"evidence": []}, {"evidence": [{"line": 1, "text": "t"}]}]),  # the first cause's evidence only
    _fam([{}]), _fam([]),
    _fam([{"evidence": [{"line": 1, "text": "t"}]}], notes=("A", "B")),  # no family note to replace
    _fam([{"evidence": [{"line": 1, "text": "t"}]}], role="related"),
    _fam([{"evidence": [{"line": 1, "text": "t"}]}], conf="cause"),
])
def test_sure_leaves_other_answers(f):
    before = list(f["notes"])
    after = _fam([{"evidence": [{"line": 2, "text": "u"}]}], notes=("FAM",))
    F.sure([f, after], "FAM")
    assert f["notes"] == before
    # the answers after it are still read
    assert after["notes"] == ["How sure: medium. The family is certain from the message; line 2 ('u') points at the "
                              "first cause below."]
