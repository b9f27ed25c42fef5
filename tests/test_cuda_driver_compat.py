"""driver.cuda extensions: cuda-compat (forward compatibility) and the GPU architectures
each CUDA major dropped, over the real H100 facts (which carry a real stale cuda-compat
580.95.05 in /usr/local/cuda-13.0/compat beside driver 580.159.04) and variants."""

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
    minor-version floor is not called fully supported by borrowing 13.2's row."""
    from conftest import node_facts

    from gpudoctor.checks.driver_cuda import requirement

    assert requirement("13.3") == ("580.65.06", None)
    doc = node_facts("h100-ubuntu2404-torch211")
    doc["python"]["torch"]["cuda"] = "13.3"
    doc["cuda"]["nvcc_version"] = None
    res = run_check("driver.cuda", doc)
    assert res.status == "skipped" and "full support is not judged" in res.summary
    doc["gpu"]["driver_version"] = "575.57.08"  # below the floor: still an error
    doc["cuda"]["compat"] = []  # (no cuda-compat libcuda on LD_LIBRARY_PATH to lift it)
    assert run_check("driver.cuda", doc).status == "fail"
