"""Xids in the kernel log, judged by NVIDIA's Xid catalog (gpudoctor/data/xid.json, made by
tools/gen_xid.py from tools/data/xid_catalog.csv), through the real collector parser and the
real gpu.inventory check.

The kernel lines are real, each with its source:
- GB200 lines (Xid 149, Xid 154 "Drain and Reset" and "GPU Reset Required") quoted in
  leptonai/gpud's Xid matcher tests;
- Xid 79 as NVIDIA's catalog page prints it (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html,
  Step 1) and with the pid/name fields of current drivers (same gpud tests);
- Xid 63 from stas00/ml-engineering compute/accelerator/nvidia/debug.md;
- Xid 154 "Node Reboot Required" in the catalog's own Xid 154 row, and the "OS Reboot" spelling
  of the same 0x2 after an Xid 79 (https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1134
  names the same sequence).
"""

import json
import os
import subprocess
import sys

import pytest
from conftest import node_facts, run_check

from gpudoctor import data
from gpudoctor.checks.gpu_inventory import xid154_action, xid_verdict
from gpudoctor.collector.nvidia import parse_xids

H100 = "h100-ubuntu2404-torch211"
BUS = "0000:00:06"  # the H100 fixture's GPU 0
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = data.load("xid")

LINES = {
    "149_fatal": "[171167.620236] NVRM: Xid (PCI:0009:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 "
                 "(0x021425c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)",
    "154_drain": "[171167.621162] NVRM: Xid (PCI:0009:01:00): 154, GPU recovery action changed from 0x0 (None) "
                 "to 0x4 (Drain and Reset)",
    "154_reset": "[171167.897562] NVRM: Xid (PCI:0019:01:00): 154, GPU recovery action changed from 0x4 "
                 "(Drain and Reset) to 0x1 (GPU Reset Required)",
    "154_reboot": "NVRM: Xid (PCI:0000:04:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 "
                  "(Node Reboot Required)",
    "154_os_reboot": "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (OS Reboot)",
    "79": "[...] NVRM: Xid (PCI:0000:5a:00): 79, GPU has fallen off the bus.",
    "79_pid": "[111111111.111] NVRM: Xid (PCI:0000:05:00): 79, pid='<unknown>', name=<unknown>, "
              "GPU has fallen off the bus.",
    "63": "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.",
}


def on_gpu0(*lines):
    """The H100 facts with these kernel lines, moved onto the fixture's GPU 0."""
    doc = node_facts(H100)
    xids = parse_xids("\n".join(lines))
    assert len(xids) == len(lines)
    for x in xids:
        x["bus_id"] = BUS
    doc["gpu"]["xids"] = xids
    doc["gpu"]["kernel_log"] = {"source": "dmesg", "readable": True}
    return doc


# ------------------------------------------------------------------ the table

def test_table_is_the_catalogs_buckets_not_a_severity():
    for code, row in TABLE["xids"].items():
        assert "severity" not in row, code  # NVIDIA gives none
        assert row["immediate"] is None or row["immediate"] in TABLE["buckets"], code
    assert TABLE["generated_by"].startswith("tools/gen_xid.py")


@pytest.mark.parametrize("code,immediate,investigatory", [
    ("8", "RESTART_APP", "CONTACT_SUPPORT"),
    ("63", "IGNORE", "IGNORE"),
    ("64", "RESET_GPU", "CONTACT_SUPPORT"),
    ("94", "RESTART_APP", "IGNORE (sympathetic)"),
    ("62", "RESET_GPU", "CONTACT_SUPPORT"),
    ("109", "RESET_GPU", "CONTACT_SUPPORT"),
    ("136", "RESET_GPU", "INVESTIGATE_LINK_SI"),
    ("140", "RESET_GPU", "CONTACT_SUPPORT"),
    ("143", "RESET_GPU", "CONTACT_SUPPORT"),
    ("149", "WORKFLOW_NVLINK5_ERR", "WORKFLOW_NVLINK5_ERR"),
    ("155", "RESET_GPU", "INVESTIGATE_SW_USER"),
    ("158", "RESET_GPU", "CONTACT_SUPPORT"),
    ("79", "RESTART_BM", "CONTACT_SUPPORT"),
])
def test_rows_issue_13_named(code, immediate, investigatory):
    row = TABLE["xids"][code]
    assert (row["immediate"], row["investigatory"]) == (immediate, investigatory)


def test_xid_64_is_reset_then_support_not_replace():
    level, _, fix = xid_verdict(64)
    assert level == "error"
    assert fix.startswith("reset the GPU") and "if it repeats: contact your support organisation" in fix
    assert "replace" not in fix


def test_levels_follow_the_immediate_action():
    assert xid_verdict(8)[0] == "warning"   # RESTART_APP: the application restarts, the GPU stays usable
    assert xid_verdict(94)[0] == "warning"
    assert xid_verdict(63)[0] == "info"     # IGNORE
    assert xid_verdict(48)[0] == "error"    # WORKFLOW_XID_48
    assert xid_verdict(999)[0] == "warning" and "not in NVIDIA's Xid catalog" in xid_verdict(999)[1]


# ------------------------------------------------------------------ Xid 154: the action is in the message

@pytest.mark.parametrize("key,number,name", [
    ("154_drain", "4", "Drain and Reset"), ("154_reset", "1", "GPU Reset Required"),
    ("154_reboot", "2", "Node Reboot Required"), ("154_os_reboot", "2", "OS Reboot"),
])
def test_xid154_action_read_from_the_real_line(key, number, name):
    (x,) = parse_xids(LINES[key])
    assert x["xid"] == 154
    assert xid154_action(x["detail"]) == (number, name)


def test_xid154_node_reboot_required_is_an_error_saying_reboot():
    res = run_check("gpu.inventory", on_gpu0(LINES["79"], LINES["154_reboot"]))
    assert res.status == "fail"
    f154 = [f for f in res.findings if "Xid 154" in f.message][0]
    assert "Node Reboot Required" in f154.message and f154.fix.startswith("drain the node and reboot it")


def test_xid154_newest_line_wins():
    # Drain and Reset first, then GPU Reset Required: the action in force is the reset
    res = run_check("gpu.inventory", on_gpu0(LINES["154_drain"], LINES["154_reset"]))
    f = [f for f in res.findings if "Xid 154" in f.message][0]
    assert "GPU Reset Required" in f.message and "nvidia-smi -r -i 0" in f.fix and "2 time(s)" in f.message


def test_xid154_back_to_none_is_only_a_note():
    line = "NVRM: Xid (PCI:0000:04:00): 154, GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)"
    res = run_check("gpu.inventory", on_gpu0(line))
    assert res.status == "pass" and [f.severity for f in res.findings] == ["info"]


def test_xid154_unreadable_action_is_a_warning_not_silence():
    res = run_check("gpu.inventory", on_gpu0("NVRM: Xid (PCI:0000:04:00): 154, something else"))
    assert res.status == "warn" and "could not be read" in res.findings[0].message


# ------------------------------------------------------------------ other real lines

def test_xid149_fatal_link_is_an_error():
    res = run_check("gpu.inventory", on_gpu0(LINES["149_fatal"]))
    assert res.status == "fail"
    assert "NVLINK: NETIR Error" in res.findings[0].message and "XID 144-150 Decode" in res.findings[0].fix


@pytest.mark.parametrize("severity", ["Fatal", "Nonfatal"])
def test_xid149_is_an_error_the_node_takes_no_job(severity):
    # issue 19: the catalog's WORKFLOW_NVLINK5_ERR resolves to a GPU reset (or the reboot an Xid 154
    # states); the kernel line alone does not say which decode row applies, so Fatal or not it is an error
    res = run_check("gpu.inventory", on_gpu0(LINES["149_fatal"].replace("Fatal", severity)))
    assert res.status == "fail"
    f = res.findings[0]
    assert f.severity == "error" and "NVLINK: NETIR Error" in f.message
    assert f.fix.startswith("drain the node and reset the GPU") and "nvidia-smi -r -i 0" in f.fix
    assert "(NVIDIA: WORKFLOW_NVLINK5_ERR)" in f.fix


def test_nvlink5_bucket_level_lives_in_the_generator_rules():
    # the level is gpudoctor's hand-written rule (tools/gen_xid.py BUCKETS), copied into the generated table
    sys.path.insert(0, os.path.join(REPO, "tools"))
    try:
        import gen_xid
    finally:
        sys.path.pop(0)
    assert gen_xid.BUCKETS["WORKFLOW_NVLINK5_ERR"][0] == "error"
    assert TABLE["buckets"]["WORKFLOW_NVLINK5_ERR"]["level"] == "error"
    assert all(xid_verdict(x)[0] == "error" for x in range(144, 151))


@pytest.mark.parametrize("key", ["79", "79_pid"])
def test_xid79_drain_and_reboot(key):
    res = run_check("gpu.inventory", on_gpu0(LINES[key]))
    assert res.status == "fail"
    f = res.findings[0]
    assert "GPU has fallen off the bus" in f.message and "GPU 0 (NVIDIA H100" in f.message
    assert f.fix.startswith("drain the node and reboot it") and "(NVIDIA: RESTART_BM)" in f.fix


def test_xid63_is_a_note_and_the_pass_says_so():
    res = run_check("gpu.inventory", on_gpu0(LINES["63"]))
    assert res.status == "pass"
    assert [f.severity for f in res.findings] == ["info"]
    assert "Xid since boot needing no action (NVIDIA: IGNORE): 63" in res.outcomes[next(iter(res.outcomes))][1]


# ------------------------------------------------------------------ the generator

def test_generator_reproduces_the_table(tmp_path):
    out = tmp_path / "xid.json"
    subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_xid.py"), "-o", str(out)], check=True,
                   stderr=subprocess.DEVNULL)
    with open(os.path.join(REPO, "gpudoctor", "data", "xid.json")) as f:
        assert json.loads(out.read_text()) == json.load(f)


def test_generator_refuses_a_bucket_it_does_not_know(tmp_path):
    csv = tmp_path / "x.csv"
    csv.write_text("Code,Mnemonic,Description,Resolution Bucket (Immediate Action),"
                   "Resolution Bucket (Investigatory Action)\n200,NEW_XID,New,REBOOT_TWICE,IGNORE\n")
    r = subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_xid.py"), str(csv), "-o",
                        str(tmp_path / "o.json")], stderr=subprocess.PIPE, universal_newlines=True)
    assert r.returncode != 0 and "REBOOT_TWICE" in r.stderr
