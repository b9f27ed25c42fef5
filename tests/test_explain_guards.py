"""The fix from a raise site's own guard (guards17, issue 18): tools/knowgen.py guard_path reads the condition a
library tests before it raises, tools/guardrules.py turns its shape into advice, tools/gen_guard_messages.py writes
generated/guard_messages.json for gpytorch, botorch, torchdiffeq, safetensors, torchaudio, torchvision, torchmetrics,
webdataset, einops and diffusers (from the pinned wheels; regenerated here from
tools/data/guard_messages_slice.txt.gz), and wheelmsgs.py gives an assert site of the older wheel tables that no
MSG_FIX row covers its assert's advice."""

import os
import sys
import textwrap

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_guard_messages  # noqa: E402
import guardrules  # noqa: E402
import knowgen  # noqa: E402

from gpudoctor import explain  # noqa: E402

# a library function in the shapes the reader must follow: nested ifs (the outer one a mode), an else chain, an
# except branch, an assert whose test reads a name assigned above it, a message picked by a branch and raised below
SRC = textwrap.dedent('''\
    class GP:
        def __call__(self, *inputs):
            if self.training:
                if self.train_inputs is None:
                    raise RuntimeError("train_inputs cannot be None in training mode.")
                for i in inputs:
                    if not all(torch.equal(a, b) for a, b in zip(self.train_inputs, inputs)):
                        raise RuntimeError("You must train on the training inputs!")
            elif mode == "prior":
                pass
            else:
                raise ValueError("no posterior without training data here")


    def check_times(name, t):
        diff = t[1:] > t[:-1]
        assert diff.all() or (~diff).all(), "{} must be strictly increasing or decreasing".format(name)


    def load(path):
        try:
            from torchcodec.decoders import AudioDecoder
        except ImportError as e:
            raise ImportError("TorchCodec is required for load_with_torchcodec. Please install torchcodec.") from e


    def validate(X, Y, strict):
        if X.dim() != Y.dim():
            if X.dim() - Y.dim() == 1:
                message = "An explicit output dimension is required for targets."
            else:
                message = "Expected X and Y to have the same number of dimensions."
            if strict:
                raise ValueError(message)
    ''')


def _line(text):
    return next(i for i, ln in enumerate(SRC.splitlines(), 1) if text in ln)


def _slice_of(lines):
    """The blocks a slice records for the sites at ``lines`` (each with its own indentation), as read back."""
    skel = knowgen.py_skeleton(SRC)
    rows = {r for ln in lines for r in knowgen.guard_rows(skel, ln)}
    return knowgen.slice_skeleton(["\n" * (r[0] - 1) + r[4] + "\n" for r in rows])


def test_the_guard_path_of_a_raise_reads_the_same_from_the_file_and_from_its_slice():
    skel = knowgen.py_skeleton(SRC)
    at = _line("You must train")
    path, own = knowgen.guard_path(skel, at)
    assert [h for h, _ in path] == ["if", "if"] and path[-1] == ("if", "self.training")
    assert "torch.equal" in path[0][1] and own[0] == at
    assert knowgen.guard_path(skel, _line("no posterior"))[0] == [("else", "mode == 'prior'"), ("else", "self.training")]
    assert knowgen.guard_path(skel, _line("TorchCodec"))[0] == [("except", ("ImportError",))]
    at = _line("strictly increasing")
    path = knowgen.guard_path(skel, at)[0]
    assert path == [("assert", "diff.all() or (~diff).all()")]
    assert knowgen.guard_names(skel, at, path)["diff"][2] == "t[1:] > t[:-1]"
    lines = [_line(t) for t in ("You must train", "no posterior", "TorchCodec", "strictly increasing")]
    small = _slice_of(lines)
    for ln in lines:
        assert knowgen.guard_path(small, ln) == knowgen.guard_path(skel, ln), ln
    # a message picked by a branch is read at the raise that raises it: `if strict:` inside `if X.dim() != Y.dim():`
    own = knowgen.guard_path(skel, _line("An explicit output"))[1]
    at = gen_guard_messages.raise_line(skel, own)
    assert at == _line("raise ValueError(message)")
    assert knowgen.guard_path(skel, at)[0] == [("if", "strict"), ("if", "X.dim() != Y.dim()")]


@pytest.mark.parametrize("path,names,text,rule,words", [
    ([("if", "not all(x)"), ("if", "self.training")], None, "", "train-mode", "model.eval()"),
    ([("if", "not v.is_contiguous()")], None, "", "contiguous", ".contiguous()"),
    ([("assert", "diff.all() or (~diff).all()")], {"diff": "t[1:] > t[:-1]"}, "", "sorted", "torch.unique"),
    ([("assert", "len(x) % 2 == 0")], None, "", "divisible", "drop_last=True"),
    ([("if", "adjoint_params is None and (not isinstance(func, nn.Module))")], None, "", "module", "nn.Module"),
    ([("except", ("ImportError",))], None, "Please install torchcodec to use it.", "install", "pip install torchcodec"),
    ([("if", "x.dtype != torch.float64")], None, "", "dtype", "x.to(torch.float64) / x.double()"),
    ([("if", "strict"), ("if", "X.dim() != Y.dim()")], None, "", "shape", "unsqueeze(-1)"),
    ([("if", "reduction not in ('mean', 'sum')")], None, "", "choice", "'mean', 'sum'"),
    ([("if", "a.device != b.device")], None, "", "device", ".to(other.device)"),
    ([("if", "importlib.util.find_spec('wandb') is None")], None, "", "install", "pip install wandb"),
    ([("if", "not is_wandb_available()")], None, "", "install", "pip install wandb"),
])
def test_each_guard_shape_names_its_fix(path, names, text, rule, words):
    got = guardrules.advise(path, names, text)
    assert got and got[0][0] == rule, got
    assert words in " ".join(got[3])


def test_guards_no_rule_reads_and_a_local_none_give_nothing():
    assert guardrules.advise([("if", "count == 0")], None, "") is None
    assert guardrules.advise([("assert", "result is not None")], None, "") is None  # the library's own state
    # an outer None test selects a branch: it says nothing of the check inside it
    assert guardrules.advise([("if", "len(a) != len(b)"), ("if", "conditions is None")], None, "") is None
    # a missing argument in an if (an argument check) is read, every alternative named
    got = guardrules.advise([("if", "prompt is None and prompt_embeds is None")], None, "")
    assert got[0] == ["none"] and "`prompt` or `prompt_embeds`" in got[3][0]


def test_the_table_regenerates_from_its_slice(tmp_path):
    got = knowgen.regenerated(gen_guard_messages.main,
                              os.path.join(REPO, "tools", "data", "guard_messages_slice.txt.gz"),
                              tmp_path / "guard_messages.json")
    full = knowgen.committed("guard_messages")
    assert got["header"]["version"] == full["header"]["version"]
    assert [s for s in got["sites"]] == full["sites"]
    cov = full["header"]["coverage"]
    assert set(cov) == {p for p, _ in gen_guard_messages.LIBS}
    assert all(c["sites"] >= c["guard_read"] >= c["advice"] >= c["assigned"] for c in cov.values())


# Real texts: public threads (their URL) of the libraries' refusals, each with the fix its guard says
REAL = [
    # https://github.com/cornellius-gp/gpytorch/issues/1745 (exact_gp.py's `if self.training:` holds the check)
    ("Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n  File \"/home/ghiasi/anaconda3/"
     "lib/python3.8/site-packages/gpytorch/models/exact_gp.py\", line 256, in __call__\n    raise RuntimeError(\"You "
     "must train on the training inputs!\")\nRuntimeError: You must train on the training inputs!\n",
     "model.eval()"),
    # https://github.com/Comfy-Org/ComfyUI/issues/3923 (safetensors/torch.py `if not v.is_contiguous():`)
    ("!!! Exception during processing!!! You are trying to save a non contiguous tensor: "
     "`model.diffusion_model.input_blocks.0.0.weight` which is not allowed. It either means you are trying to save "
     "tensors which are reference of each other in which case it's recommended to save only the full tensors, and "
     "reslice at load time, or simply call `.contiguous()` on your tensor to pack it before saving.\n", ".contiguous()"),
    # https://github.com/Spencerfar/LatentVelo/issues/10 (torchdiffeq/_impl/misc.py: `diff = t[1:] > t[:-1]`)
    ("AssertionError: t must be strictly increasing or decreasing\n", "torch.unique"),
    # https://github.com/huggingface/pytorch-image-models/issues/1304 (timm/data/mixup.py: `assert len(x) % 2 == 0`,
    # the pylibs table's fallback)
    ("    assert len(x) % 2 == 0, 'Batch size should be even when using this'\n"
     "AssertionError: Batch size should be even when using this\n", "drop_last=True"),
]


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


@pytest.mark.parametrize("text,words", REAL)
def test_real_refusals_name_the_fix_their_guard_says(kb, text, words):
    res = explain.explain_text(text, kb)
    root = next(f for f in res["findings"] if f["role"] == "root")
    fixes = " ".join(x for c in root["causes"] for x in c["fix"])
    assert words in fixes, (root["id"], fixes[:300])
