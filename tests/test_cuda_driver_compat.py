"""driver.cuda extensions: cuda-compat (forward compatibility) and the GPU architectures
each CUDA major dropped, over the real H100 facts (which carry a real stale cuda-compat
580.95.05 in /usr/local/cuda-13.0/compat beside driver 580.159.04) and variants."""

import pytest
from conftest import node_facts, run_check

H100 = "h100-ubuntu2404-torch211"


def with_ldlp(doc, first):
    """The facts as if the job had put `first` at the front of LD_LIBRARY_PATH."""
    cuda = doc["cuda"]
    old = cuda["ld_library_path"]
    cuda["ld_library_path"] = first + ":" + old
    for c in cuda["compat"]:
        if c["dir"] == first:
            c.update(on_ld_library_path=True, ld_library_path_index=0)
        elif c["on_ld_library_path"]:
            c["ld_library_path_index"] += 1
    return doc


def test_real_h100_passes_and_sees_the_unused_compat_package():
    doc = node_facts(H100)
    compat = [c for c in doc["cuda"]["compat"] if c["dir"] == "/usr/local/cuda-13.0/compat"]
    assert compat == [{"dir": "/usr/local/cuda-13.0/compat", "version": "580.95.05", "on_ld_library_path": False,
                       "ld_library_path_index": None}]
    res = run_check("driver.cuda", doc)
    assert res.status == "pass" and res.findings == []


def test_stale_compat_on_ld_library_path_is_error_803():
    res = run_check("driver.cuda", with_ldlp(node_facts(H100), "/usr/local/cuda-13.0/compat"))
    assert res.status == "fail"
    f = res.findings[0]
    assert "error 803" in f.message and "580.95.05" in f.message
    assert f.exports == {"LD_LIBRARY_PATH": "/usr/local/nvidia/lib64:/usr/local/nvidia/lib"}


def newer_compat(doc, name="NVIDIA H100 80GB HBM3"):
    doc["gpu"]["driver_version"] = "535.104.05"  # R535: CUDA 12 at most without cuda-compat
    doc["gpu"]["gpus"][0]["name"] = name
    for c in doc["cuda"]["compat"]:
        if c["dir"].startswith("/usr/local/nvidia/"):  # the driver's own libcuda follows the driver
            c["version"] = "535.104.05"
    return doc


def test_too_old_driver_offers_the_installed_compat_package():
    res = run_check("driver.cuda", newer_compat(node_facts(H100)))
    assert res.status == "fail"
    msgs = [f.message for f in res.findings]
    assert any("driver 535.104.05 is too old for torch 2.11.0+cu130" in m for m in msgs), msgs
    fixes = " ".join(f.fix for f in res.findings)
    assert "forward compatibility (data-center GPUs): export LD_LIBRARY_PATH=/usr/local/cuda/compat:" \
           "/usr/local/nvidia/lib64:/usr/local/nvidia/lib" in fixes


def test_forward_compat_active_on_datacenter_gpu_is_info_and_satisfies_cuda():
    doc = with_ldlp(newer_compat(node_facts(H100)), "/usr/local/cuda-13.0/compat")
    res = run_check("driver.cuda", doc)
    assert res.status == "pass"
    assert [f.severity for f in res.findings] == ["info"]
    assert "forward compatibility active" in res.findings[0].message


def test_forward_compat_on_geforce_is_error_804():
    doc = with_ldlp(newer_compat(node_facts(H100), name="NVIDIA GeForce RTX 4090"), "/usr/local/cuda-13.0/compat")
    res = run_check("driver.cuda", doc)
    assert res.status == "fail"
    assert any("error 804" in f.message for f in res.findings)


def test_cuda13_torch_on_volta_names_the_dropped_architecture():
    doc = node_facts(H100)
    doc["gpu"]["gpus"][0].update(name="Tesla V100S-PCIE-32GB", compute_capability="7.0")
    res = run_check("driver.cuda", doc)
    assert res.status == "fail"
    f = [f for f in res.findings if "dropped" in f.message][0]
    assert "CUDA 13.x dropped Maxwell (sm_5x), Pascal (sm_60, sm_61) and Volta" in f.message
    assert "CUDA <= 12.9" in f.fix and "whl/cu126" in f.fix


def test_cuda12_torch_on_kepler():
    doc = node_facts(H100)
    doc["python"]["torch"].update(version="2.1.2+cu121", cuda="12.1")
    doc["cuda"]["nvcc_version"] = None
    doc["gpu"]["gpus"][0].update(name="Tesla K80", compute_capability="3.7")
    res = run_check("driver.cuda", doc)
    assert any("CUDA 12.x dropped Kepler" in f.message and "CUDA <= 11.8" in f.fix for f in res.findings)


def test_a_cuda_minor_newer_than_the_table_is_judged_by_its_floor_only():
    """CUDA 13.3 has no row (NVIDIA's Table 3 for it was not readable): a driver above 13.x's
    minor-version floor and above the newest older row is not called fully supported by
    borrowing 13.2's row."""
    from gpudoctor.checks.driver_cuda import requirement

    assert requirement("13.3") == ("580.65.06", None)
    doc = on_driver(cuda13_3(node_facts(H100)), "600.10")
    res = run_check("driver.cuda", doc)
    assert res.status == "skipped" and "full support is not judged" in res.summary
    assert "CUDA 13.2 Update 2's 595.71.05" in res.summary
    doc = on_driver(doc, "575.57.08")  # below the floor: still an error
    assert run_check("driver.cuda", doc).status == "fail"


def cuda13_3(doc, nvcc=False):
    """The H100 facts with torch built for CUDA 13.3 (cu133), or nvcc 13.3 alone."""
    if nvcc:
        doc["python"]["torch"]["cuda"] = None
        doc["cuda"]["nvcc_version"] = "13.3.73"
    else:
        doc["python"]["torch"].update(version="2.13.0+cu133", cuda="13.3")
        doc["cuda"]["nvcc_version"] = None
    return doc


def on_driver(doc, version):
    """The facts with this kernel driver and its own libcuda (no cuda-compat on LD_LIBRARY_PATH)."""
    doc["gpu"]["driver_version"] = version
    doc["cuda"]["compat"] = [dict(c, version=version) for c in doc["cuda"]["compat"]
                             if c["dir"].startswith("/usr/local/nvidia/")]
    return doc


def test_table3_minimums_never_go_down():
    # the ground of older_minor_bound: a newer toolkit's row is never below an older one's
    from gpudoctor import data
    from gpudoctor.versions import vtuple

    rows = sorted((vtuple(c), vtuple(d)) for c, d in data.load("cuda_driver")["toolkit_min_driver"])
    assert len(rows) > 50
    assert all(a[1] <= b[1] for a, b in zip(rows, rows[1:]))


@pytest.mark.parametrize("nvcc", [False, True])
def test_cuda13_3_below_an_older_rows_driver_warns_minor_version_compat_only(nvcc):
    # issue 19: CUDA 13.3 with a driver below its minimum got no finding. Its own Table 3 row is not in
    # the table, but the real H100's 580.159.04 is below 13.2 Update 2's 595.71.05, so below 13.3's too:
    # the warning every other row gives between the 13.x floor and the toolkit's own driver
    res = run_check("driver.cuda", cuda13_3(node_facts(H100), nvcc=nvcc))
    assert res.status == "warn", res.summary
    (f,) = res.findings
    assert f.severity == "warning" and "only through minor-version compatibility (no PTX JIT" in f.message
    assert ("the CUDA toolkit 13.3.73 (nvcc)" if nvcc else "torch 2.13.0+cu133 (built for CUDA 13.3)") in f.message
    assert "CUDA 13.2 Update 2 already needs (>= 595.71.05)" in f.message
    assert f.fix == "upgrade the NVIDIA driver to the one CUDA 13.3's release notes list in Table 3 " \
                    "(at least 595.71.05) for full CUDA 13.3 support"


def test_cuda13_2_rows_still_give_their_own_number():
    doc = on_driver(node_facts(H100), "590.48.01")
    doc["python"]["torch"].update(version="2.12.0+cu132", cuda="13.2")
    doc["cuda"]["nvcc_version"] = None
    (f,) = run_check("driver.cuda", doc).findings
    assert f.severity == "warning" and f.expected == ">= 595.45.04"
