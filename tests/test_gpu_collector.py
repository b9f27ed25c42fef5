"""GPU collector parsers on real recorded outputs (fixtures/recorded/h100-ubuntu2404-torch211,
captured on an H100 node with driver 580.159.04) and the facts captured in the same run."""

import os
import re

from conftest import FIXTURES, node_facts

from gpudoctor.collector import nvidia

REC = os.path.join(FIXTURES, "recorded", "h100-ubuntu2404-torch211")


def recorded(name):
    with open(os.path.join(REC, name)) as f:
        return f.read()


def probe_section(title):
    """One '===== title =====' block of probe.txt (the exploratory run on the GPU node)."""
    text = recorded("probe.txt")
    m = re.search(r"===== %s =====\n(.*?)(?:\n===== |\Z)" % re.escape(title), text, re.S)
    assert m, title
    return m.group(1)


def test_driver_version_of_the_open_module_line():
    line = probe_section("proc_version").splitlines()[0]
    assert "Open Kernel Module for x86_64" in line
    assert nvidia.parse_driver_version(line) == "580.159.04"


def test_gpu_information_file_parses():
    text = probe_section("proc_version").split("/information\n", 1)[1]
    info = nvidia.parse_gpu_information(text)
    assert info["name"] == "NVIDIA H100 80GB HBM3"
    assert info["bus_id"] == "0000:00:06.0" and info["minor"] == 0 and info["excluded"] is False


def test_nvidia_smi_csv_parses():
    gpus = nvidia.parse_nvidia_smi_csv(probe_section("nvsmi_csv"))
    assert len(gpus) == 1
    g = gpus[0]
    assert (g["compute_capability"], g["memory_total_mib"], g["persistence_mode"], g["ecc_enabled"]) == \
        ("9.0", 81559, True, True)
    assert g["ecc_uncorrected_volatile"] == 0


def test_remapped_rows_csv_parses():
    # recorded with 6 columns (bus, uuid, correctable, uncorrectable, pending, failure); the
    # collector asks for 4 (bus, uncorrectable, pending, failure): same values, fewer columns
    f = [x.strip() for x in probe_section("nvsmi_remap").strip().split(",")]
    line = ", ".join([f[0], f[3], f[4], f[5]])
    assert nvidia.parse_remapped_rows_csv(line) == {
        "00000000:00:06.0": {"remapped_rows_uncorrectable": 0, "remapped_rows_pending": False,
                             "remapped_rows_failure": False}}
    pending = line.replace(", No, No", ", Yes, No")
    assert nvidia.parse_remapped_rows_csv(pending)["00000000:00:06.0"]["remapped_rows_pending"] is True


def test_compute_apps_csv():
    assert nvidia.parse_compute_apps_csv("") == {}
    apps = nvidia.parse_compute_apps_csv("00000000:00:06.0, 4242, 1034\n00000000:00:06.0, 4243, [N/A]\n")
    assert apps == {"00000000:00:06.0": [{"pid": 4242, "used_mib": 1034}, {"pid": 4243, "used_mib": None}]}


def test_no_xid_in_the_real_kernel_log():
    # the node's NVRM lines (module load, persistence-mode notice) are not Xids
    kmsg = probe_section("kmsg")
    assert "NVRM:" in kmsg
    assert nvidia.parse_xids(kmsg) == []


def test_xid_lines_both_formats():
    # formats from NVIDIA's Xid catalog (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html): "PCI:" and old drivers
    text = ("[ 12.3] NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping\n"
            "[ 13.0] NVRM: Xid (0000:01:00): 13, Graphics Exception: ESR 0x404600=0x80000001\n"
            "[ 14.0] NVRM: GPU at PCI:0000:10:1c: GPU-1234\n")
    xids = nvidia.parse_xids(text)
    assert [(x["bus_id"], x["xid"]) for x in xids] == [("0000:10:1c", 63), ("0000:01:00", 13)]
    assert xids[0]["detail"].startswith("pid=1896")


def test_facts_agree_with_nvidia_smi_q_of_the_same_run():
    q = recorded("nvidia-smi-q.txt")
    facts = node_facts("h100-ubuntu2404-torch211")
    gpu = facts["gpu"]
    assert re.search(r"Driver Version\s+: (\S+)", q).group(1) == gpu["driver_version"] == "580.159.04"
    assert re.search(r"Product Name\s+: (.+)", q).group(1).strip() == gpu["gpus"][0]["name"]
    assert re.search(r"Persistence Mode\s+: (\w+)", q).group(1) == "Enabled"
    assert gpu["gpus"][0]["persistence_mode"] is True
    assert gpu["gpus_source"] == "nvml" and gpu["kernel_module"] == "open"
    assert gpu["kernel_log"]["readable"] is True and gpu["xids"] == []


def test_nvidia_smi_fallback_fixture_has_remap_and_process_fields():
    # collected by /usr/bin/python3 (no pynvml) on the same node: the nvidia-smi path
    gpu = node_facts("h100-ubuntu2404-torch211-nvidia-smi")["gpu"]
    assert gpu["gpus_source"] == "nvidia-smi"
    g = gpu["gpus"][0]
    assert g["remapped_rows_pending"] is False and g["remapped_rows_uncorrectable"] == 0
    assert g["processes"] == []
