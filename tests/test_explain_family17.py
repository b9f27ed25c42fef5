"""The family from structure where last round's unseen texts missed it (family17, issue 18 item 2): a logger's record
that names another file than the traceback after it is not that traceback's carrier (pyanswer._logged_record), the
program whose own error form a failure line has (provenance.printer: pdsh's prefix, Ray's C++ log header, Hydra's
override parser, a shell's 'command not found'), a library's check that a package is not installed
(pyanswer._NOT_INSTALLED), and the import package -> distribution table read from the wheels
(tools/gen_wheel_packages.py, pytb.owner / distribution).

Texts: a logging record made here in process (CPython 3.11's logging with DeepSpeed's format), and texts of the seen
held-out sets (bench/data/explain_heldout_2026-11-27y / p24 / p25.jsonl, each cited by its case id: P24 ran on an
H100 host, P25 on CPU with its own Slurm, pdsh and Hydra; Y's vllm-project/vllm#5495 is a public thread)."""

import io
import json
import logging
import os
import sys

import pytest

from gpudoctor import explain
from gpudoctor.explain import pytb
from explainhelp import ANSWERED, seen_text
from gpudoctor.explain.knowledge import open_generated

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
# DeepSpeed's logger format (deepspeed/utils/logging.py: '[%(asctime)s] [%(levelname)s] [%(filename)s:%(lineno)d:
# %(funcName)s] %(message)s')
DS_FORMAT = "[%(asctime)s] [%(levelname)s] [%(filename)s:%(lineno)d:%(funcName)s] %(message)s"


def _case(name, cid):
    return seen_text(cid, name)


def _root(text, kb):
    r = explain.explain_text(text, kb)
    assert r["verdict"] in ANSWERED, (r["verdict"], r["context"])
    return r["findings"][0]


def _upload():
    raise ConnectionResetError("s3 reset")


def _logged_here():
    """A real logging record with exc_info (logger.warning(..., exc_info=True) in the function that caught it), in
    DeepSpeed's format: the record names this file, as the traceback's outermost frame does."""
    out = io.StringIO()
    log = logging.getLogger("family17.test")
    h = logging.StreamHandler(out)
    h.setFormatter(logging.Formatter(DS_FORMAT))
    log.addHandler(h)
    log.propagate = False
    try:
        try:
            _upload()
        except ConnectionResetError:
            log.warning("checkpoint upload failed, retrying", exc_info=True)
    finally:
        log.removeHandler(h)
    return out.getvalue()


def test_a_record_of_another_file_before_a_traceback_is_not_its_carrier(kb):
    text = _logged_here()
    assert "[WARNING] [test_explain_family17.py:" in text and "Traceback (most recent call last)" in text
    # the record names the file whose frame caught the exception: a traceback the program went on after
    assert explain.explain_text(text, kb)["verdict"] == "no_error"
    # P25: DeepSpeed's '[WARNING] [real_accelerator.py:213:get_accelerator] Setting accelerator to CPU' right before
    # the script's own uncaught traceback (hf_train.py first): the traceback ended the run
    f = _root(_case("2026-11-27p25", "p25-hf_cosine_with_min_lr_no_kwargs"), kb)
    assert f["id"] == "transformers.usage"
    # P24 (H100): inductor's 'W1127 ... torch/_inductor/utils.py:2134] Failed to import CUTLASS' record, then the
    # uncaught InductorError of train.py: an answer, not 'a traceback the program went on after'
    # uncaught InductorError of train.py: an answer, and the class's package (torch/_inductor/exc.py) names the
    # compile stack, not 'torch refused the call' (excmeaning._COMPILE_EXC)
    r = explain.explain_text(_case("2026-11-27p24", "p24-inductor_gemm_backends_cutlass"), kb)
    assert r["verdict"] == "likely_cause" and "code.caught_exception" not in [n["id"] for n in r["context"]]
    assert r["findings"][0]["id"] == "torch.compile_error"


def test_a_library_that_says_a_package_is_not_installed_is_the_environment(kb):
    # P25: transformers' WandbCallback 'requires wandb to be installed' (report_to='wandb' without wandb)
    f = _root(_case("2026-11-27p25", "p25-hf_report_to_wandb_not_installed"), kb)
    assert f["id"] == "code.python_env" and "pip install wandb" in f["causes"][0]["fix"][0]


@pytest.mark.parametrize("name,cid,eid,words", [
    ("2026-11-27p25", "p25-pdsh_default_rcmd_rsh", "pdsh.error", "pdsh -R ssh"),
    ("2026-11-27y", "y-vllm5495-ray-worker-register-tp2", "ray.start", "core_worker.cc"),
    ("2026-11-27p25", "p25-hydra_override_tuple_syntax", "hydra.override", "square brackets"),
    ("2026-11-27p25", "p25-ssh_launcher_unquoted_value", "launcher.script_missing", "unquoted variable"),
])
def test_the_program_whose_own_error_form_the_line_has(kb, name, cid, eid, words):
    f = _root(_case(name, cid), kb)
    assert f["id"] == eid and f["confidence"] == "structural"
    assert words in " ".join(f["notes"])


def test_an_exception_line_alone_is_read_by_its_words_not_guessed(kb):
    # P24 (H100): the last line of a torch.compile failure alone, its traceback cut: torch.compile's own class
    line = [x for x in _case("2026-11-27p24", "p24-custom_op_no_fake_compile").splitlines()
            if x.startswith("torch._dynamo.exc.TorchRuntimeError: ")][0]
    f = _root(line + "\n", kb)
    assert f["id"] == "torch.compile_error" and "Only the exception's last line" in " ".join(f["notes"])
    # Y (NVIDIA-NeMo/Automodel#1835): a builtin ValueError whose words name no family is not answered from its words;
    # (struct23) lastresort.py answers it last as a likely code.library_error, How sure: low, its neighbours named
    r = explain.explain_text(_case("2026-11-27y", "y-automodel1835-dp-replicate-dim-single-gpu-recipe"), kb)
    assert r["verdict"] == "likely_cause" and r["root"] == "code.library_error"
    assert "How sure: low" in r["findings"][0]["notes"][0]
    # a line a knowledge entry knows is the entry's (DataParallel's 'Caught RuntimeError in replica')
    r = explain.explain_text("RuntimeError: Caught RuntimeError in replica 1 on device 1.\n", kb)
    assert r["findings"][0]["id"] == "launcher.single_process"


def test_a_python_console_script_not_found_stays_the_environment(kb):
    r = explain.explain_text("$ srun torchrun train.py\nslurmstepd: error: execve(): torchrun: No such file or "
                             "directory\nbash: line 1: torchrun: command not found\n", kb)
    assert r["findings"] and r["findings"][0]["id"] != "launcher.script_missing"


def test_the_wheel_table_regenerates_from_its_slice(tmp_path):
    sys.path.insert(0, os.path.join(REPO, "tools"))
    import gen_wheel_packages as g

    out = tmp_path / "w.json"
    g.main(["--slice", os.path.join(REPO, "tools", "data", "wheel_packages_slice.txt"), "-o", str(out)])
    got = json.loads(out.read_text())
    with open_generated("wheel_packages") as f:
        committed = json.load(f)
    for d in (got, committed):
        d["header"].pop("date")
    assert got == committed
    assert committed["packages"]["sklearn"] == "scikit-learn" and committed["packages"]["functorch"] == "torch"
    assert "nvidia" not in committed["packages"] and "google" not in committed["packages"]  # namespaces
    # a wheel's file list: folders with __init__.py, top-level modules, namespaces marked, repository folders left
    assert g.packages_of(["a/__init__.py", "a/b.py", "_c.cpython-311-x86_64-linux-gnu.so", "nvidia/nccl/x.so",
                          "tests/t.py", "a-1.0.dist-info/RECORD"]) == ["_c", "a", "~nvidia"]


def test_a_frame_of_any_package_is_read_as_its_distributions(kb):
    assert pytb.where("/v/lib/python3.11/site-packages/functorch/_src/x.py") == ("lib", "torch")
    assert pytb.where("/v/lib/python3.11/site-packages/op_builder/builder.py") == ("lib", "deepspeed")
    assert pytb.where("/v/lib/python3.11/site-packages/somepkg/x.py") == ("lib", "somepkg")
    assert pytb.distribution("sklearn") == "scikit-learn" and pytb.distribution("somepkg") == "somepkg"
    text = ('Traceback (most recent call last):\n  File "/w/fit.py", line 3, in <module>\n    m.fit(X, y)\n'
            '  File "/v/lib/python3.11/site-packages/sklearn/base.py", line 1365, in wrapper\n    return fit(x)\n'
            '  File "/v/lib/python3.11/site-packages/sklearn/linear_model/_base.py", line 601, in fit\n'
            '    raise RuntimeError("solver diverged")\nRuntimeError: solver diverged\n')
    f = _root(text, kb)
    assert f["id"] == "code.library_error" and "pip show scikit-learn" in f["causes"][0]["fix"][0]


def test_torch_compile_stack_is_read_from_its_generated_sites(kb):
    from gpudoctor.explain import provenance

    site = "/v/lib/python3.12/site-packages/torch/"
    for f in ("_dynamo/eval_frame.py", "_dynamo/variables/misc.py", "_inductor/codegen/x.py",
              "fx/experimental/symbolic_shapes.py"):
        assert provenance.torch_area(kb.by_id, site + f) == "compile", f
    # torch/fx's own symbolic tracing has no site of its own: not read as fx/experimental's; outside torch: nothing
    assert provenance.torch_area(kb.by_id, site + "fx/proxy.py") is None
    assert provenance.torch_area(kb.by_id, site + "nn/modules/linear.py") == "torch"
    assert provenance.torch_area(kb.by_id, "/w/train.py") is None
    # P24 (H100): torch.onnx.export's chain - torch.export's GuardOnDataDependentSymNode (its message 20 lines of
    # advice long) was the direct cause of the exporter's TorchExportError; the chain's first exception, raised in
    # torch/fx/experimental/symbolic_shapes.py, is the compile stack's (it was 'your code, train.py:23')
    f = _root(_case("2026-11-27p24", "p24-onnx_export_data_dependent_if"), kb)
    assert f["id"] == "torch.compile_error" and "GuardOnDataDependentSymNode" in f["notes"][0]
