"""gpu.inventory over the real H100 facts and named variants of them."""

import copy

import pytest
from conftest import node_facts, run_check

H100 = "h100-ubuntu2404-torch211"


def variant(**gpu0):
    doc = node_facts(H100)
    doc["gpu"]["gpus"][0].update(gpu0)
    return doc


def messages(res):
    return [f.message for f in res.findings]


def test_real_h100_passes():
    res = run_check("gpu.inventory", node_facts(H100), expected_gpus=1, bf16=True)
    assert res.status == "pass", messages(res)
    assert res.findings == []


def test_nvidia_smi_fixture_passes_too():
    res = run_check("gpu.inventory", node_facts(H100 + "-nvidia-smi"), expected_gpus=1)
    assert res.status == "pass", messages(res)


def test_count_below_expected():
    res = run_check("gpu.inventory", node_facts(H100), expected_gpus=8)
    assert res.status == "fail"
    assert messages(res) == ["1 GPUs visible, 8 expected"]
    assert "00000000:00:06.0 NVIDIA H100 80GB HBM3" in res.findings[0].observed


def test_proc_list_used_when_nvml_and_smi_failed():
    doc = node_facts(H100)
    doc["gpu"]["gpus"] = None
    assert run_check("gpu.inventory", doc, expected_gpus=1).status == "pass"
    assert run_check("gpu.inventory", doc, expected_gpus=2).status == "fail"


@pytest.mark.parametrize("change, needle", [
    ({"ecc_uncorrected_volatile": 3}, "3 uncorrectable ECC errors"),
    ({"remapped_rows_pending": True}, "row remap pending"),
    ({"remapped_rows_failure": True}, "row remapping failed"),
])
def test_memory_health_errors(change, needle):
    res = run_check("gpu.inventory", variant(**change))
    assert res.status == "fail"
    assert any(needle in m for m in messages(res)), messages(res)
    assert "nvidia-smi" in res.findings[0].fix


def test_leftover_process_is_a_warning_with_the_pids():
    res = run_check("gpu.inventory", variant(processes=[{"pid": 4242, "used_mib": 70000}]))
    assert res.status == "warn"
    f = res.findings[0]
    assert "70000 MiB" in f.message and "kill 4242" in f.fix


def test_persistence_off_warns():
    res = run_check("gpu.inventory", variant(persistence_mode=False))
    assert res.status == "warn"
    assert "nvidia-persistenced" in res.findings[0].fix


def test_xid_79_is_an_error_with_its_meaning_and_gpu():
    doc = node_facts(H100)
    doc["gpu"]["xids"] = [{"bus_id": "0000:00:06", "xid": 79, "detail": "pid='<unknown>', GPU has fallen off the bus."}]
    res = run_check("gpu.inventory", doc)
    assert res.status == "fail"
    f = res.findings[0]
    assert "GPU 0 (NVIDIA H100 80GB HBM3" in f.message and "fallen off the bus" in f.message
    assert "drain the node" in f.fix


def test_xid_13_is_a_warning_and_counted():
    doc = node_facts(H100)
    doc["gpu"]["xids"] = [{"bus_id": "0000:00:06", "xid": 13, "detail": "x"}] * 3
    res = run_check("gpu.inventory", doc)
    assert res.status == "warn"
    assert "3 time(s)" in res.findings[0].message


def test_unreadable_kernel_log_is_only_info():
    doc = node_facts(H100)
    doc["gpu"]["kernel_log"] = {"source": None, "readable": False, "reason": "dmesg failed (rc=1: Operation not permitted)"}
    doc["gpu"]["xids"] = None
    res = run_check("gpu.inventory", doc)
    assert res.status == "pass"
    assert [f.severity for f in res.findings] == ["info"]


def test_gpu_not_in_torch_arch_list():
    # a V100 (cc 7.0) under the real torch 2.11+cu130, built for sm_75..sm_120
    res = run_check("gpu.inventory", variant(compute_capability="7.0", name="Tesla V100-SXM2-32GB"))
    assert res.status == "fail"
    f = res.findings[0]
    assert "no kernel image is available" in f.message and "sm_70" in f.message
    assert "whl/cu126" in f.fix


def test_newer_minor_runs_on_older_sm_cubin():
    # an L40S (cc 8.9) runs sm_86 cubins: no finding
    assert run_check("gpu.inventory", variant(compute_capability="8.9", name="NVIDIA L40S")).status == "pass"


def test_arch_covers_rules():
    from gpudoctor.checks._gpu import arch_covers

    assert arch_covers(["sm_80"], (8, 6))
    assert not arch_covers(["sm_86"], (8, 0))
    assert not arch_covers(["sm_90a"], (10, 0))
    assert arch_covers(["sm_80", "compute_80"], (9, 0))  # PTX JIT
    assert not arch_covers(["sm_75", "sm_80"], (12, 0))


def test_bf16_on_volta_errors_only_when_wanted():
    doc = variant(compute_capability="7.0", name="Tesla V100S-PCIE-32GB")
    doc["python"]["torch"]["arch_list"] = ["sm_70", "sm_80"]
    assert run_check("gpu.inventory", doc).status == "pass"
    res = run_check("gpu.inventory", copy.deepcopy(doc), bf16=True)
    assert res.status == "fail"
    assert "no bf16 hardware" in res.findings[0].message and "fp16" in res.findings[0].fix


def test_not_applicable_without_driver_unless_gpus_are_expected():
    res = run_check("gpu.inventory", node_facts("devbox-debian12-nogpu"))
    assert res.status == "na" and "no NVIDIA driver loaded" in res.summary
    res = run_check("gpu.inventory", node_facts("devbox-debian12-nogpu"), expected_gpus=8)
    assert res.status == "fail" and "8 expected" in res.findings[0].message
