"""cuda.libs: which CUDA libraries torch really loads. The resolver is tested on real ELF
files built with gcc in torch's wheel layout (DT_RPATH like torch 2.11, DT_RUNPATH like
older wheels), against the recorded ldd of the real libtorch_cuda.so, and the check over
the real H100 facts and a variant users report (an old CUDA's lib64 on LD_LIBRARY_PATH)."""

import copy
import os
import shutil
import subprocess

import pytest
from conftest import FIXTURES, node_facts, run_check

from gpudoctor.collector import python_env as pe

H100 = "h100-ubuntu2404-torch211"
needs_gcc = pytest.mark.skipif(not shutil.which("gcc"), reason="gcc builds the test ELF files")


def test_parse_recorded_ldd_of_real_libtorch_cuda():
    with open(os.path.join(FIXTURES, "recorded", H100, "ldd-libtorch_cuda.txt")) as f:
        libs = pe.parse_ldd(f.read())
    assert libs["libcublas.so.13"].endswith("/nvidia/cu13/lib/libcublas.so.13")
    assert libs["libnccl.so.2"].endswith("/nvidia/nccl/lib/libnccl.so.2")
    assert libs["libc.so.6"] == "/lib/x86_64-linux-gnu/libc.so.6"
    assert pe.parse_ldd("\tlibcublas.so.11 => not found\n") == {"libcublas.so.11": None}


def test_parse_ldconfig_p_keeps_64bit_entries():
    text = ("3 libs found in cache `/etc/ld.so.cache'\n"
            "\tlibcublas.so.13 (libc6,x86-64) => /usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13\n"
            "\tlibnccl.so.2 (libc6) => /usr/lib32/libnccl.so.2\n"
            "\tlibnccl.so.2 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnccl.so.2\n")
    assert pe.parse_ldconfig_p(text) == {
        "libcublas.so.13": ["/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13"],
        "libnccl.so.2": ["/lib/x86_64-linux-gnu/libnccl.so.2"]}


def _so(path, soname, extra=()):
    src = os.path.join(os.path.dirname(path), "s.c")
    with open(src, "w") as f:
        f.write("int f(void){return 1;}\n")
    subprocess.check_call(["gcc", "-shared", "-fPIC", "-o", path, "-Wl,-soname," + soname, src] + list(extra))


def _torch_layout(tmp, new_dtags):
    site = tmp / "site"
    for d in ("torch/lib", "nvidia/cu13/lib", "nvidia/nccl/lib", "nvidia_cublas-13.1.0.3.dist-info"):
        (site / d).mkdir(parents=True)
    _so(str(site / "nvidia/cu13/lib/libcublas.so.13"), "libcublas.so.13")
    _so(str(site / "nvidia/nccl/lib/libnccl.so.2"), "libnccl.so.2")
    old = tmp / "cuda-13.0/lib64"
    old.mkdir(parents=True)
    _so(str(old / "libcublas.so.13.0.2.14"), "libcublas.so.13")
    os.symlink("libcublas.so.13.0.2.14", str(old / "libcublas.so.13"))
    _so(str(site / "torch/lib/libtorch_cuda.so"), "libtorch_cuda.so", [
        "-Wl,--no-as-needed", "-L%s" % (site / "nvidia/cu13/lib"), "-L%s" % (site / "nvidia/nccl/lib"),
        "-l:libcublas.so.13", "-l:libnccl.so.2", "-Wl,--enable-new-dtags" if new_dtags else "-Wl,--disable-new-dtags",
        "-Wl,-rpath,$ORIGIN/../../nvidia/cu13/lib:$ORIGIN/../../nvidia/nccl/lib"])
    return site, str(old)


@needs_gcc
def test_rpath_beats_ld_library_path_like_torch_211(tmp_path):
    site, old = _torch_layout(tmp_path, new_dtags=False)
    dyn = pe.dynamic(str(site / "torch/lib/libtorch_cuda.so"))
    assert dyn["needed"][:2] == ["libcublas.so.13", "libnccl.so.2"]
    assert dyn["rpath"] and not dyn["runpath"]
    pkgs = {"nvidia-cublas": {"version": "13.1.0.3", "location": str(site)}}
    res = pe.resolve_torch_libs(str(site / "torch"), str(site), pkgs, {"LD_LIBRARY_PATH": old})
    cublas = [e for e in res["libs"] if e["lib"] == "libcublas"][0]
    assert (cublas["how"], cublas["in_bundle"], cublas["version"]) == ("rpath", True, "13.1.0.3")
    out = subprocess.check_output(["ldd", str(site / "torch/lib/libtorch_cuda.so")],
                                  env=dict(os.environ, LD_LIBRARY_PATH=old)).decode()
    assert os.path.realpath(pe.parse_ldd(out)["libcublas.so.13"]) == os.path.realpath(cublas["path"])


@needs_gcc
def test_ld_library_path_beats_runpath_and_the_check_fails(tmp_path):
    site, old = _torch_layout(tmp_path, new_dtags=True)
    pkgs = {"nvidia-cublas": {"version": "13.1.0.3", "location": str(site)}}
    env = {"LD_LIBRARY_PATH": old + ":/opt/other/lib"}
    res = pe.resolve_torch_libs(str(site / "torch"), str(site), pkgs, env)
    cublas = [e for e in res["libs"] if e["lib"] == "libcublas"][0]
    assert (cublas["how"], cublas["in_bundle"], cublas["version"]) == ("LD_LIBRARY_PATH", False, "13.0.2.14")
    # what ldd says under the same environment: the resolver agrees with the real loader
    out = subprocess.check_output(["ldd", str(site / "torch/lib/libtorch_cuda.so")],
                                  env=dict(os.environ, **env)).decode()
    assert pe.parse_ldd(out)["libcublas.so.13"] == os.path.join(old, "libcublas.so.13")
    doc = node_facts(H100)
    doc["python"]["torch"]["libs"] = res
    r = run_check("cuda.libs", doc)
    assert r.status == "fail"
    f = r.findings[0]
    assert f.exports == {"LD_LIBRARY_PATH": "/opt/other/lib"}
    assert "export LD_LIBRARY_PATH=/opt/other/lib" in f.fix
    assert "13.0.2.14" in f.message and "13.1.0.3" in f.message


def test_real_h100_passes():
    res = run_check("cuda.libs", node_facts(H100))
    assert res.status == "pass" and res.findings == []
    libs = node_facts(H100)["python"]["torch"]["libs"]["libs"]
    assert sorted(e["lib"] for e in libs) == ["libcublas", "libcublasLt", "libcudart", "libcudnn", "libnccl"]
    assert all(e["in_bundle"] and e["how"] == "rpath" for e in libs)


def seed003_variant():
    """The reported failure on the real facts: LD_LIBRARY_PATH with an older toolkit's lib64
    first, and a torch whose libs honour it (RUNPATH), so libcublas comes from there."""
    doc = node_facts(H100)
    libs = doc["python"]["torch"]["libs"]
    libs["ld_library_path"] = "/usr/local/cuda-13.0/lib64:/usr/local/nvidia/lib64:/usr/local/nvidia/lib"
    libs["runpath"], libs["rpath"] = libs["rpath"], []
    for e in libs["libs"]:
        if e["lib"] in ("libcublas", "libcublasLt"):
            e.update(path="/usr/local/cuda-13.0/lib64/" + e["name"], how="LD_LIBRARY_PATH", in_bundle=False,
                     realpath="/usr/local/cuda-13.0/lib64/%s.13.0.2.14" % e["name"], version="13.0.2.14")
    return doc


def test_seed003_variant_fails_with_the_export():
    res = run_check("cuda.libs", seed003_variant())
    assert res.status == "fail"
    f = res.findings[0]
    assert f.exports == {"LD_LIBRARY_PATH": "/usr/local/nvidia/lib64:/usr/local/nvidia/lib"}
    assert "libcublas.so.13 -> /usr/local/cuda-13.0/lib64/libcublas.so.13 (13.0.2.14)" in f.message
    assert "/usr/local/cuda-13.0/lib64 come before" in f.message


def test_same_version_outside_bundle_passes():
    doc = seed003_variant()
    for e in doc["python"]["torch"]["libs"]["libs"]:
        if e["lib"] in ("libcublas", "libcublasLt"):
            e["version"] = "13.1.0.3"
    assert run_check("cuda.libs", doc).status == "pass"


def test_ldd_result_wins_when_deep():
    doc = node_facts(H100 + "-deep")
    assert run_check("cuda.libs", copy.deepcopy(doc)).status == "pass"
    doc["python"]["torch"]["ldd"]["libcudnn.so.9"] = None
    res = run_check("cuda.libs", doc)
    assert res.status == "fail" and "libcudnn.so.9" in res.findings[0].message
    assert "nvidia-cudnn-cu13==9.19.0.56" in res.findings[0].fix


def test_no_torch_is_not_applicable_never_a_pass():
    res = run_check("cuda.libs", node_facts("devbox-debian12-nogpu"))
    assert res.status == "na" and res.findings == [] and "torch is not installed" in res.summary
