"""Known NCCL bugs by version (issue 18): the NCCL a log ran, read from NCCL's own version line or
from the torch release whose PyPI wheel pins it (tools/gen_torch_nccl.py ->
generated/torch_nccl.json; gpudoctor/explain/versions.py), and the known bugs generated from NCCL's
release notes (tools/gen_nccl_releases.py KNOWN_BUGS -> generated/nccl_releases.json known_bugs).
A known bug needs an affected version AND its symptom.

Texts: the WARN lines are NCCL's own, from public threads (cited at each); the version lines are
the forms pip, torch.utils.collect_env and torch print (named at each). Where a thread's paste had
no torch version line, the test says that it adds one."""

import json
import os
import subprocess
import sys
import zipfile

import pytest

from gpudoctor import explain
from gpudoctor.explain import versions
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(REPO, "tools")
GEN = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated")

# https://github.com/NVIDIA/nccl/issues/957 (description): NCCL 2.18.3's failure at
# transport.cc (the known bug fixed in 2.18.6 / 2.19.3), the WARN line verbatim
WARN_957 = ("Fri Aug 11 12:31:45 2023[1,0]<stdout>:tomte401:1850301:1881341 [0] transport.cc:154 NCCL WARN Cuda "
            "failure 'invalid argument'\n")


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


def _root(kb, text):
    res = explain.explain_text(text, kb)
    return res, (res["findings"][0] if res["findings"] else None)


# --------------------------------------------------------------------------- the torch -> NCCL table


def _committed(name):
    with open_generated(name) as f:
        return json.load(f)


def test_torch_nccl_table_regenerates_from_its_record(tmp_path):
    out = tmp_path / "torch_nccl.json"
    subprocess.run([sys.executable, os.path.join(TOOLS, "gen_torch_nccl.py"), "--slice",
                    os.path.join(TOOLS, "data", "torch_nccl_slice.txt"), "-o", str(out)], check=True,
                   capture_output=True)
    got, full = json.loads(out.read_text()), _committed("torch_nccl")
    assert got["releases"] == full["releases"] and got["header"]["version"] == full["header"]["version"]
    rows = {r["torch"]: r for r in full["releases"]}
    # what the wheels pin (their METADATA, recorded with each wheel's sha256)
    assert rows["2.1.0"]["nccl"] == "2.18.1" and rows["2.1.0"]["cuda"] == "12.1"
    assert rows["2.2.0"]["nccl"] == "2.19.3" and rows["2.0.1"]["nccl_package"] == "nvidia-nccl-cu11"
    assert rows["2.11.0"]["nccl_package"] == "nvidia-nccl-cu13" and rows["2.11.0"]["cuda"] == "13.0"
    assert all(len(r["sha256"]) == 64 for r in full["releases"])


def test_torch_nccl_reads_a_wheel_without_unpacking_it(tmp_path):
    # a wheel is a zip: its METADATA headers (both Requires-Dist spellings torch used) are all it reads
    wheels = tmp_path / "w"
    wheels.mkdir()
    with zipfile.ZipFile(wheels / "torch-9.9.0-cp311-cp311-manylinux_2_28_x86_64.whl", "w") as z:
        z.writestr("torch-9.9.0.dist-info/METADATA",
                   "Metadata-Version: 2.1\nName: torch\nVersion: 9.9.0\n"
                   'Requires-Dist: nvidia-cuda-runtime-cu12 (==12.4.127) ; platform_system == "Linux" and '
                   'platform_machine == "x86_64"\n'
                   'Requires-Dist: nvidia-nccl-cu12==2.21.5; platform_system == "Linux" and platform_machine == '
                   '"x86_64"\n\nThe README, not read: Requires-Dist: nvidia-nccl-cu12==1.0.0\n')
    out, rec = tmp_path / "o.json", tmp_path / "rec.txt"
    subprocess.run([sys.executable, os.path.join(TOOLS, "gen_torch_nccl.py"), "--wheels", str(wheels), "--record",
                    str(rec), "-o", str(out)], check=True, capture_output=True)
    row = json.loads(out.read_text())["releases"][0]
    assert (row["torch"], row["nccl"], row["cuda_runtime"], row["cuda"]) == ("9.9.0", "2.21.5", "12.4.127", "12.4")
    # the record is a slice that gives the same rows
    out2 = tmp_path / "o2.json"
    subprocess.run([sys.executable, os.path.join(TOOLS, "gen_torch_nccl.py"), "--slice", str(rec), "-o", str(out2)],
                   check=True, capture_output=True)
    assert json.loads(out2.read_text())["releases"] == json.loads(out.read_text())["releases"]


# --------------------------------------------------------------------------- a torch version in the log


@pytest.mark.parametrize("line", [
    "PyTorch version: 2.1.2+cu121\n",           # torch.utils.collect_env
    "[pip3] torch==2.1.0\n",                     # collect_env's 'Versions of relevant libraries'
    "torch                     2.1.1\n",         # pip list
    ">>> torch.__version__\n'2.1.0+cu121'\n",    # torch.__version__ at a prompt
])
def test_a_torch_release_that_pins_an_affected_nccl_is_the_known_bug(kb, line):
    # #957's WARN line; the version line is added (the thread printed NCCL's own)
    res, root = _root(kb, line + WARN_957)
    assert res["root"] == "nccl.bug_218_async_memcpy", res["root"]
    assert root["notes"][0].startswith("NCCL 2.18.1 ran here: torch 2.1.") and "nvidia-nccl-cu12==2.18.1" in \
        root["notes"][0]
    assert any(line.split()[-1].strip("'") in m["text"] for m in root["matches"])  # the version line is shown


@pytest.mark.parametrize("line", [
    "PyTorch version: 2.1.0a0+32f93b1\n",        # a source build (NGC): its own NCCL
    "PyTorch version: 2.1.2+cu118\n",            # the cu118 build pins nvidia-nccl-cu11, not read
    "PyTorch version: 2.2.0+cu121\n",            # pins 2.19.3: fixed
    "[pip3] torch==2.1.0\n[pip3] nvidia-nccl-cu12==2.19.3\n",  # NCCL upgraded beside it: what ran
])
def test_a_torch_release_that_does_not_say_an_affected_nccl_is_no_known_bug(kb, line):
    res, root = _root(kb, line + WARN_957)
    assert res["root"] != "nccl.bug_218_async_memcpy" and not any(
        f["family"] == "nccl.known_bug" for f in res["findings"])


def test_a_torch_version_alone_is_no_error(kb):
    res, _ = _root(kb, "PyTorch version: 2.1.0+cu121\nIs debug build: False\n")
    assert res["verdict"] == "no_error"


# --------------------------------------------------------------------------- generated from the release notes


def test_release_notes_known_bugs_are_generated_and_counted():
    doc = _committed("nccl_releases")
    assert doc["fix_lines"] == sum(len(r["fixes"]) for r in doc["releases"])
    named = {b["release_fix"] for b in doc["known_bugs"] if not b.get("support_added")}
    assert len(doc["known_bugs"]) >= 7 and len(doc["unassigned_fixes"]) + len(named) + 1 == doc["fix_lines"]
    for b in doc["known_bugs"]:
        rel = next(r for r in doc["releases"] if r["version"] == b["fixed_in"])
        # a release that adds a GPU generation (SUPPORT_ADDED) names it in its support_added lines, not its fixes
        lines = rel.get("support_added", []) if b.get("support_added") else rel["fixes"]
        assert b["release_fix"] in lines and b["affects"][1] == b["fixed_in"]


def test_the_uds_fd_leak_needs_an_affected_nccl(kb):
    # ipcsocket.cc's WARN (NCCL src/misc/ipcsocket.cc: "UDS: Sending data over socket %s failed : %s (%d)")
    warn = ("node1:5:9 [0] misc/ipcsocket.cc:220 NCCL WARN UDS: Sending data over socket /tmp/nccl-socket-5-1 "
            "failed : Too many open files (24)\n")
    res, root = _root(kb, "node1:5:5 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n" + warn)
    assert res["root"] == "nccl.bug_2243_uds_fd_leak" and "fixed in 2.24.3" in root["title"]
    assert "'nvidia-nccl-cu12>=2.24.3'" in root["causes"][0]["fix"][0] and "torch 2.7.0" in root["causes"][0]["fix"][0]
    # torch 2.3.1 pins 2.20.5 (affected); 2.7.0 pins 2.26.2 (fixed)
    assert _root(kb, "torch==2.3.1\n" + warn)[0]["root"] == "nccl.bug_2243_uds_fd_leak"
    res, _ = _root(kb, "torch==2.7.0\n" + warn)
    assert not any(f["family"] == "nccl.known_bug" for f in res["findings"])
    res, _ = _root(kb, "node1:5:5 [0] NCCL INFO NCCL version 2.24.3+cuda12.6\n" + warn)
    assert not any(f["family"] == "nccl.known_bug" for f in res["findings"])


def test_versions_table_and_ranges():
    assert versions.torch_table()["2.4.1"]["nccl"] == "2.20.5"
    assert versions.first_torch_with("2.19.3")["torch"] == "2.2.0"
    assert versions._in([["2.18.1", "2.18.6"]], "2.18.5") and not versions._in([["2.18.1", "2.18.6"]], "2.18.6")
    assert versions.validate({"nccl": [["2.18.6", "2.18.1"]]}, "x") and versions.validate({"nccl": []}, "x")
    assert versions.validate({"nccl": [["2.18.1", "2.18.6"]]}, "x") is None


# --------------------------------------------------------------------------- driver too old: the CUDA in the log

# https://github.com/pytorch/pytorch/issues/112553 (description: torch 2.1.0 on driver 470.182.03,
# "torch v2.0.1 works fine"; collect_env's output, verbatim, first lines)
TORCH_112553 = (
    "/opt/asdf/data/installs/python/3.11.6/lib/python3.11/site-packages/torch/cuda/__init__.py:138: UserWarning: CUDA "
    "initialization: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver "
    "by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx "
    "Alternatively, go to: https://pytorch.org/ to install a PyTorch version that has been compiled with your version "
    "of the CUDA driver. (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n"
    "  return torch._C._cuda_getDeviceCount() > 0\n"
    "PyTorch version: 2.1.0+cu121\n"
    "Is debug build: False\n"
    "CUDA used to build PyTorch: 12.1\n"
    "ROCM used to build PyTorch: N/A\n")


def test_driver_too_old_names_the_minimum_driver_of_the_cuda_in_the_log(kb):
    res, root = _root(kb, TORCH_112553)
    assert res["root"] == "cuda.driver_insufficient"
    fix = root["causes"][0]["fix"][0]
    # CUDA 12.1's own row of NVIDIA's Table 3 (gpudoctor/data/cuda_driver.json), and a build driver 470 runs
    assert ">= 530.30.02" in fix and "CUDA 12.1" in fix and "whl/cu118" in fix and "CUDA <= 11.4" in fix


def test_a_pypi_torch_release_says_its_cuda():
    # pip list's 'torch  2.4.0' (no +cuNNN): the PyPI wheel, built with the CUDA runtime it pins (12.1)
    from gpudoctor.explain import fixes

    got = fixes.from_log({"matches": [{"text": "RuntimeError: The NVIDIA driver on your system is too old (found "
                                               "version 11040)."}],
                          "signals": [{"text": "torch                     2.4.0"}]})
    assert (got["cuda"], got["cuda_from"], got["driver_cuda"]) == ("12.1", "torch 2.4.0 from PyPI", "11.4")
    line, why = fixes.min_driver(got)
    assert ">= 530.30.02" in line and "torch 2.4.0 from PyPI" in why
    # a +cuNNN build says its own CUDA; a source build's version is not read as PyPI's
    assert fixes.from_log({"signals": [{"text": "torch==2.4.0+cu118"}]})["cuda"] == "11.8"
    assert fixes.from_log({"signals": [{"text": "PyTorch version: 2.4.0a0+3bcc3cd"}]})["cuda"] is None


def test_a_double_free_needs_the_failed_init_not_any_warning(kb):
    # glibc's abort text (malloc/malloc.c) after NCCL's init.cc return chain (NCCL_DEBUG=INFO), NCCL 2.21.5
    failed = ("node1:7:7 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
              "node1:7:9 [0] NCCL INFO init.cc:1390 -> 2\n"
              "double free or corruption (!prev)\n")
    res, root = _root(kb, failed)
    assert any(f["id"] == "nccl.bug_2262_init_double_free" for f in res["findings"])
    # a harmless WARN and a double free at exit: no known bug
    res, _ = _root(kb, failed.replace("node1:7:9 [0] NCCL INFO init.cc:1390 -> 2",
                                      "node1:7:9 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]"))
    assert not any(f["family"] == "nccl.known_bug" for f in res["findings"])


# https://github.com/pytorch/pytorch/issues/147575 (description, verbatim lines): a nightly torch
# (2.7.0.dev...+cu128, not a PyPI release: its NCCL is not the pinned one) that prints NCCL 2.25.1
NIGHTLY_147575 = (
    "torch 2.7.0.dev20250218+cu128\n"
    "torchaudio 2.6.0.dev20250219+cu128\n"
    "torchvision 0.22.0.dev20250219+cu128\n"
    "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
    "ProcessGroupNCCL.cpp:3384, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.25.1\n"
    "[rank0]: ncclUnhandledCudaError: Call to CUDA function failed.\n"
    "[rank0]: Last error:\n"
    "[rank0]: Cuda failure 1 'invalid argument'\n")


def test_a_nightly_torch_is_not_read_as_a_pypi_release(kb):
    from gpudoctor.explain import scan as _scan

    res, root = _root(kb, NIGHTLY_147575)
    assert res["root"] == "nccl.unhandled_cuda_error" and not any(
        f["family"] == "nccl.known_bug" for f in res["findings"])
    sc = _scan.Scan()
    import io
    _scan.scan_stream(io.BytesIO(NIGHTLY_147575.encode()), kb, sc, "<text>")
    assert [v for _, v, _ in versions.ran(sc)] == ["2.25.1"]  # NCCL's own version, not a torch pin
    sc = _scan.Scan()
    _scan.scan_stream(io.BytesIO(NIGHTLY_147575.split("[rank0]")[0].encode()), kb, sc, "<text>")
    assert versions.ran(sc) == []  # the nightly's version alone says no NCCL
