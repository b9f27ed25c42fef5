"""python.env over the real H100 facts and variants; the probe's no-import scanners on
real ELF files (gcc-built, with the strings torch and NCCL carry in .rodata); and every
GPU-stack check over the real node at once."""

import copy
import os
import shutil
import subprocess

import pytest
from conftest import node_facts, run_check

from gpudoctor.collector import python_env as pe

H100 = "h100-ubuntu2404-torch211"
needs_gcc = pytest.mark.skipif(not shutil.which("gcc"), reason="gcc builds the test ELF files")


def with_deepspeed(doc, version="0.14.0"):
    doc["python"]["packages"]["deepspeed"] = version
    return doc


def msgs(res):
    return [f.message for f in res.findings]


def test_real_h100_passes():
    res = run_check("python.env", node_facts(H100))
    assert res.status == "pass" and res.findings == []


def test_real_deep_probe_confirms_torch_sees_the_gpu():
    py = node_facts(H100 + "-deep")["python"]
    deep = py["deep"]
    assert (deep["cuda_available"], deep["device_count"], deep["nccl_version"]) == (True, 1, "2.28.9")
    # the cheap .rodata scan agrees with torch.cuda.get_arch_list(), and the scanned NCCL with torch's
    assert py["torch"]["arch_list"] == deep["arch_list"] == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    assert py["nccl"]["version"] == py["nccl"]["wheel_version"] == deep["nccl_version"]
    assert run_check("python.env", node_facts(H100 + "-deep")).status == "pass"


def test_torch_missing_on_devbox():
    # the interpreter found by default (python3 on PATH) is not necessarily the job's: n/a with the hint
    res = run_check("python.env", node_facts("devbox-debian12-nogpu"))
    assert res.status == "na" and "--python /path/to/env/bin/python" in res.summary
    # the interpreter the user named has no torch: that is a failure
    res = run_check("python.env", node_facts("devbox-debian12-nogpu"), python_source="--python")
    assert res.status == "fail"
    assert msgs(res) == ["torch is not installed in /root/.pyenv/versions/3.11.7/bin/python3.11"]


def test_cpu_only_torch_on_gpu_node():
    doc = node_facts(H100)
    doc["python"]["torch"].update(version="2.11.0+cpu", cuda=None)
    res = run_check("python.env", doc)
    assert res.status == "fail"
    assert "CPU-only build on a node with 1 NVIDIA GPU" in res.findings[0].message
    # driver 580.159.04 runs CUDA 13.0: the cu130 index
    assert "torch==2.11.0 --index-url https://download.pytorch.org/whl/cu130" in res.findings[0].fix


def test_deep_cuda_unavailable():
    doc = node_facts(H100 + "-deep")
    doc["python"]["deep"]["cuda_available"] = False
    res = run_check("python.env", doc)
    assert res.status == "fail" and "is_available() is False" in res.findings[0].message


def test_deprecated_pynvml_warns():
    doc = node_facts(H100)
    doc["python"]["packages"]["pynvml"] = "13.0.1"
    res = run_check("python.env", doc)
    assert res.status == "warn"
    assert "pip uninstall -y pynvml" in res.findings[0].fix


def test_deepspeed_on_real_node_needs_libaio_only():
    # the real node: ninja on PATH (the venv is activated), nvcc 13.0 = torch CUDA 13.0, no libaio
    res = run_check("python.env", with_deepspeed(node_facts(H100)))
    assert res.status == "warn"
    assert len(res.findings) == 1 and "libaio .so and libaio.h missing" in res.findings[0].message
    assert "apt-get install -y libaio-dev" in res.findings[0].fix


def test_deepspeed_nvcc_major_mismatch_like_seed_003():
    doc = with_deepspeed(node_facts(H100))
    doc["python"]["build_tools"].update(libaio_so="/usr/lib/x86_64-linux-gnu/libaio.so.1t64",
                                        libaio_h="/usr/include/libaio.h")
    doc["cuda"]["nvcc_version"] = "12.2.140"
    res = run_check("python.env", doc)
    assert res.status == "fail"
    f = res.findings[0]
    assert "nvcc is CUDA 12.2.140 but torch 2.11.0+cu130 was built for CUDA 13.0" in f.message
    assert f.exports == {"CUDA_HOME": "/usr/local/cuda-13.0"}
    doc["cuda"]["nvcc_version"] = "13.1.80"  # a minor mismatch is fine for DeepSpeed
    assert run_check("python.env", doc).status == "pass"


def test_deepspeed_without_ninja_on_path_points_at_the_env():
    doc = with_deepspeed(node_facts(H100))
    doc["python"]["build_tools"].update(ninja=None, libaio_so="/x/libaio.so.1", libaio_h="/usr/include/libaio.h")
    res = run_check("python.env", doc)
    assert res.status == "warn"
    assert res.findings[0].fix == "export PATH=/opt/torch/.venv/bin:$PATH"


@needs_gcc
def test_rodata_scanners_on_real_elf(tmp_path):
    src = tmp_path / "s.c"
    src.write_text('const char *arch = "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120";\n'
                   'const char *other = "sm_count";\n'
                   'const char *v = "NCCL version 2.28.9+cuda13.0";\n')
    lib = tmp_path / "libtorch_python.so"
    subprocess.check_call(["gcc", "-shared", "-fPIC", "-O0", "-o", str(lib), str(src)])
    assert pe.read_section(str(lib), ".rodata") is not None
    assert pe.scan_arch_list(str(lib)) == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    nv = pe.scan_nccl_version(str(lib))
    assert (nv["version"], nv["cuda"]) == ("2.28.9", "13.0")
    not_elf = tmp_path / "x.so"
    not_elf.write_bytes(b"nope")
    assert pe.scan_arch_list(str(not_elf)) is None and pe.dynamic(str(not_elf)) is None


def test_torch_version_py_of_the_real_wheel():
    with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "recorded", H100, "probe.txt")) as f:
        text = f.read()
    block = text.split("from typing import Optional", 1)[1].split("cu13\n", 1)[0]
    tv = pe.parse_torch_version_py(block)
    assert (tv["__version__"], tv["cuda"], tv["hip"]) == ("2.11.0+cu130", "13.0", None)


# every GPU-stack check over the real node: what `gpudoctor check` printed there
EXPECTED_ON_H100 = {"cuda.libs": "pass", "driver.cuda": "pass", "driver.mismatch": "pass", "gpu.inventory": "pass",
                    "python.env": "pass"}


@pytest.mark.parametrize("fixture", [H100, H100 + "-deep", H100 + "-nvidia-smi"])
def test_every_gpu_stack_check_over_the_real_node(fixture):
    from gpudoctor.config import Config
    from gpudoctor.registry import load_checks
    from gpudoctor.runner import Node, run_checks

    doc = node_facts(fixture)
    cfg = Config()
    cfg.expected_gpus, cfg.bf16 = 1, True
    checks = [c for c in load_checks() if c.id in EXPECTED_ON_H100]
    report = run_checks([Node(host="vm", facts=doc)], checks, cfg)
    got = dict((r.id, r.status) for r in report.results)
    assert got == EXPECTED_ON_H100
    assert not any(r.crashed for r in report.results)
    # and a broken copy of the same node fails in every one of them
    bad = copy.deepcopy(doc)
    bad["gpu"]["gpus"][0]["ecc_uncorrected_volatile"] = 2
    bad["gpu"]["nvml_libs"] = {"580.95.05": ["/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.95.05"]}
    bad["gpu"]["driver_version"] = "575.57.08"
    bad["python"]["torch"]["cuda"] = None
    report = run_checks([Node(host="vm", facts=bad)], checks, cfg)
    got = dict((r.id, r.status) for r in report.results)
    assert got["gpu.inventory"] == got["python.env"] == got["driver.mismatch"] == "fail"
