"""The python section reads through the collector's Context like every other section, so
a recorded node tree replays it: site-packages, torch's version.py, the ELF dynamic
sections of libtorch_cuda.so and the libraries the loader would pick, all under the root
prefix, and the facts name the node's own paths (never the tree's location here)."""

import os
import shutil

import pytest
from conftest import FIXTURES, run_check
from test_cuda_libs import _torch_layout

from gpudoctor.collector import Context, collect

needs_gcc = pytest.mark.skipif(not shutil.which("gcc"), reason="gcc builds the test ELF files")
PY = "/opt/venv/lib/python3.12"


def _node(tmp_path, new_dtags):
    root = tmp_path / "root"
    base = root / PY.lstrip("/")
    base.mkdir(parents=True)
    site, old = _torch_layout(base, new_dtags)
    for d in ("torch-2.11.0+cu130.dist-info", "nvidia_nccl_cu13-2.28.9.dist-info", "deepspeed-0.19.8.dist-info"):
        (site / d).mkdir()
    # torch/version.py as the real 2.11.0+cu130 wheel ships it (fixtures/recorded/.../probe.txt)
    with open(os.path.join(FIXTURES, "recorded", "h100-ubuntu2404-torch211", "probe.txt")) as f:
        block = f.read().split("from typing import Optional", 1)[1].split("cu13\n", 1)[0]
    (site / "torch" / "version.py").write_text("from typing import Optional" + block)
    # NCCL's version string, where the loader finds libnccl (NVIDIA/nccl src/init.cc VERSION_STRING)
    with open(str(site / "nvidia/nccl/lib/libnccl.so.2"), "ab") as f:
        f.write(b"\x00NCCL version 2.28.9+cuda13.0\x00")
    node_site = "/" + os.path.relpath(str(site), str(root))
    node_old = "/" + os.path.relpath(old, str(root))
    interp = {"executable": "/opt/venv/bin/python3", "version": "3.12.3", "prefix": "/opt/venv",
              "path": [node_site]}
    return root, node_site, node_old, interp


def _facts(root, interp, ld_library_path):
    ctx = Context(root=str(root), live=False, commands={}, env={"PATH": "/usr/bin:/bin",
                                                                "LD_LIBRARY_PATH": ld_library_path},
                  options={"interpreter": interp})
    return collect(ctx, only=["python"])


@needs_gcc
def test_recorded_tree_replays_the_python_section(tmp_path):
    root, node_site, node_old, interp = _node(tmp_path, new_dtags=False)
    py = _facts(root, interp, node_old)["python"]
    assert py["status"] == "ok", py
    assert (py["executable"], py["version"], py["prefix"]) == ("/opt/venv/bin/python3", "3.12.3", "/opt/venv")
    assert py["packages"]["torch"] == "2.11.0+cu130" and py["packages"]["deepspeed"] == "0.19.8"
    torch = py["torch"]
    assert (torch["version"], torch["cuda"]) == ("2.11.0+cu130", "13.0")
    libs = {e["lib"]: e for e in torch["libs"]["libs"]}
    # DT_RPATH (torch 2.11's layout): the bundled copy wins over LD_LIBRARY_PATH, named by the node's path
    assert libs["libcublas"]["how"] == "rpath"
    assert libs["libcublas"]["path"] == node_site + "/nvidia/cu13/lib/libcublas.so.13"
    assert libs["libcublas"]["realpath"] == libs["libcublas"]["path"] and libs["libcublas"]["in_bundle"]
    assert libs["libnccl"]["version"] == "2.28.9"
    assert str(tmp_path) not in repr(py)  # no path of this machine leaks into the node's facts


@needs_gcc
def test_recorded_tree_with_runpath_finds_the_old_cuda_first(tmp_path):
    root, node_site, node_old, interp = _node(tmp_path, new_dtags=True)
    doc = _facts(root, interp, node_old)
    libs = {e["lib"]: e for e in doc["python"]["torch"]["libs"]["libs"]}
    assert libs["libcublas"]["how"] == "LD_LIBRARY_PATH"
    assert libs["libcublas"]["realpath"] == node_old + "/libcublas.so.13.0.2.14"
    assert libs["libcublas"]["version"] == "13.0.2.14" and not libs["libcublas"]["in_bundle"]
    doc["node"] = "gpu01"
    res = run_check("cuda.libs", doc)  # the replayed facts drive the real check
    assert res.status in ("fail", "warn") and "export LD_LIBRARY_PATH" in res.findings[0].fix


def test_a_tree_without_a_recorded_interpreter_is_not_probed(tmp_path):
    doc = collect(Context(root=str(tmp_path), live=False, commands={}), only=["python"])
    assert doc["python"]["status"] == "unsupported"
