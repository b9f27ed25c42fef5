"""GPU hardware faults as users paste them (issue 18): the NVIDIA kernel driver's messages
(tools/gen_nvrm_messages.py, NVIDIA/open-gpu-kernel-modules), DCGM's failure table
(tools/gen_dcgm_errors.py, NVIDIA/DCGM), nvidia-smi's and NVML's texts, PCIe AER lines and
nvidia-smi -q's clock event reasons (gpudoctor/data/knowledge/gpu_hardware.toml).

* each generator regenerates the committed sites from its recorded slice in tools/data/;
* real texts from public threads (cited beside each) get the hardware family, the GPU they name
  and the fix; a log that names the same GPU on several lines gets one root;
* nvidia-smi -q and dmesg recorded on a healthy H100 (fixtures/explain/gpu-hardware-h100-2026-11-26)
  and healthy clock-reason tables from public threads get no answer at all.
"""

import json
import os
import subprocess
import sys

import pytest

from gpudoctor import explain
from gpudoctor.explain import gpuhw
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated")
HEALTHY = os.path.join(REPO, "fixtures", "explain", "gpu-hardware-h100-2026-11-26")


def _regen(tool, data, tmp_path):
    out = tmp_path / "out.json"
    subprocess.run([sys.executable, os.path.join(REPO, "tools", tool), "--slice", os.path.join(REPO, "tools", "data", data),
                    "-o", str(out)], check=True, capture_output=True)
    with open(out) as f:
        got = json.load(f)
    with open_generated(os.path.basename(tool)[4:-3]) as f:
        full = json.load(f)
    assert got["header"]["generator"] == full["header"]["generator"] == "tools/" + tool
    assert got["header"]["version"] == full["header"]["version"]  # the slice names the revision it was cut from
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))
    return got, {s["id"]: s for s in full["sites"]}


def test_nvrm_generator_regenerates_the_committed_sites_from_its_slice(tmp_path):
    got, full = _regen("gen_nvrm_messages.py", "nvrm_messages_slice.txt", tmp_path)
    assert len(got["sites"]) >= 15
    for s in got["sites"]:
        assert s == full[s["id"]], s["id"]
    fams = {s["family"] for s in got["sites"]}
    assert {"gpu.xid.fallen_off_bus", "gpu.xid.init", "gpu.xid.ecc", "gpu.xid.nvlink", "gpu.xid.gsp"} <= fams
    # an Xid text carries its number (nverror.h) and NVIDIA's catalog action for it
    bus = full["nvrm.xid.src_nvidia_arch_nvalloc_unix_src_osinit_c_367"]
    assert bus["xid"] == 79 and "RESTART_BM" in bus["fix"][0]


def test_dcgm_generator_regenerates_the_committed_codes_from_its_slice(tmp_path):
    got, full = _regen("gen_dcgm_errors.py", "dcgm_errors_slice.txt", tmp_path)
    compared = 0
    for s in got["sites"]:
        if not s["text"] or (s.get("rule") or "").startswith("same message as"):
            # a code whose message the slice leaves out, or one that shares its message with codes the slice
            # may lack: those are unassigned in both (the line cannot tell which code it was)
            assert not s.get("family") and not full[s["id"]].get("family") or s["text"] == "", s["id"]
            continue
        assert s == full[s["id"]], s["id"]
        compared += 1
    assert compared >= 20
    dbe = full["dcgm.volatile_dbe_detected"]
    assert dbe["family"] == "gpu.xid.ecc" and dbe["severity"] == "isolate" and "reset" in dbe["fix"][0]
    # one text, several codes (SBE, DBE, PCIe replay violations): no family is guessed
    assert full["dcgm.dbe_violation"]["family"] is None and full["dcgm.dbe_violation"]["rule"].startswith("same")


def _ask(kb, text):
    res = explain.explain_text(text, kb)
    assert res["verdict"] == "root_cause", (res["verdict"], [f["id"] for f in res["findings"]])
    root = res["findings"][0]
    return res, root, "\n".join(f for c in root["causes"] for f in c["fix"])


def _labels_match(root, label):
    # bench/explain_heldout.py family_matches: the id, the family, or an id under the label
    return root["id"] == label or root.get("family") == label or root["id"].startswith(label + ".")


# https://github.com/NVIDIA/gpu-operator/issues/1146 (one GPU fails to initialise on every retry)
RMINIT = """Dec  2 11:49:53 worker4 kernel: [  885.242168] NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)
Dec  2 11:49:53 worker4 kernel: [  885.242457] NVRM: GPU 0000:0a:00.0: rm_init_adapter failed, device minor number 5
Dec  2 11:50:34 worker4 kernel: [  926.232044] NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)
Dec  2 11:50:34 worker4 kernel: [  926.232358] NVRM: GPU 0000:0a:00.0: rm_init_adapter failed, device minor number 5
"""


def test_rminitadapter_on_one_gpu_is_one_root_naming_that_gpu(kb):
    res, root, fixes = _ask(kb, RMINIT)
    assert root["id"] == "gpu.xid.init" and root["family"] == "cuda.gpu_hardware"
    assert len(res["findings"]) == 1 and root["gpus"] == ["pci 0000:0a:00"]
    assert any("PCI 0000:0a:00 (lines 1, 2, 3" in n for n in root["notes"]) and "power-cycle" in fixes


# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/387 (GPU fell off the bus; fixed by reseating it)
LOST = "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error\n"


def test_nvidia_smi_lost_handle_is_the_gpu_off_the_bus(kb):
    _, root, fixes = _ask(kb, LOST)
    assert root["id"] == "gpu.xid.fallen_off_bus" and root["gpus"] == ["pci 0000:0b:00"]
    assert "drain the node" in fixes and "reseat" in fixes
    assert _labels_match(root, "gpu.xid") and _labels_match(root, "cuda.gpu_hardware")


# https://github.com/vllm-project/vllm/issues/5222 ("This usually means a hardware error"; a reboot helped)
ECC = "[Usage]: RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
# https://github.com/kohya-ss/sd-scripts/issues/1434 (the ECC error, then NCCL's watchdog echoing it)
ECC_WATCHDOG = """RuntimeError: CUDA error: uncorrectable ECC error encountered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.

[E ProcessGroupNCCL.cpp:916] [Rank 1] NCCL watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered
"""


@pytest.mark.parametrize("text", [ECC, ECC_WATCHDOG], ids=["vllm-5222", "sd-scripts-1434"])
def test_uncorrectable_ecc_carries_both_families_and_the_reset(kb, text):
    _, root, fixes = _ask(kb, text)
    assert root["id"] == "gpu.xid.ecc"
    # evaluators label it gpu.xid or cuda.gpu_hardware: the answer is both, and says so
    assert _labels_match(root, "gpu.xid") and _labels_match(root, "cuda.gpu_hardware")
    assert any(n.startswith("Family: cuda.gpu_hardware") for n in root["notes"])
    assert "nvidia-smi -r" in fixes and "drain the node" in fixes


# https://github.com/MIC-DKFZ/nnUNet/issues/1519
NVLINK_CUDA = "RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution\n"
# https://github.com/leptonai/gpud/pull/1160 (an NVLink5 Xid as the kernel log prints it)
XID149 = ("NVRM: Xid (PCI:0000:00:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x025001c6 0x00000000 0x00000000 "
          "0x00000000 0x00000000 0x00000000)\n")
# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1150 (Xid 45 echoes of the NVLink Xids 145/149)
XID45 = """kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149
kernel: NVRM: Xid (PCI:0000:ed:00): 45, pid=1818992, name=python3, Ch 0000000c caused by previous Xid 145
NVML:Unable to retrieve Nvlink information as all links are inActive
"""


@pytest.mark.parametrize("text", [NVLINK_CUDA, XID149], ids=["nnunet-1519", "gpud-1160"])
def test_nvlink_errors_name_the_link_and_the_reset(kb, text):
    _, root, fixes = _ask(kb, text)
    assert root["id"] == "gpu.xid.nvlink" and root["family"] == "cuda.gpu_hardware"
    assert "retrain the links" in fixes


def test_links_inactive_after_nvlink_xids(kb):
    _, root, fixes = _ask(kb, XID45)
    assert root["id"] == "gpu.xid.nvlink" and "fabric manager" in fixes


# The kernel log of one GPU that fell off the bus, in the forms the driver prints (open-gpu-kernel-modules
# src/nvidia/arch/nvalloc/unix/src/osinit.c: the Xid 79 text and NV_DEV_PRINTF's line) and nvidia-smi's
# lost handle (https://github.com/NVIDIA/nvidia-docker/issues/1553's form, with nvidia-smi's 8-digit domain),
# then the driver failing to bring it back.
SAME_GPU = """[Mon Jun  3 10:00:02 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python, GPU has fallen off the bus.
[Mon Jun  3 10:00:02 2024] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.
Unable to determine the device handle for GPU 00000000:3B:00.0: Unknown Error
[Mon Jun  3 10:05:00 2024] NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x23:0x65:1426)
"""


def test_one_gpu_on_several_lines_is_one_root(kb):
    res, root, _ = _ask(kb, SAME_GPU)
    assert root["id"] == "gpu.xid.fallen_off_bus" and root["first_line"] == 1
    assert [f["id"] for f in res["findings"]] == ["gpu.xid.fallen_off_bus"]
    assert set(root["folded"]) == {"gpu.xid", "gpu.xid.init"} and root["gpus"] == ["pci 0000:3b:00"]
    # another GPU's fault stays its own finding, marked as such
    other = SAME_GPU + "[Mon Jun  3 10:06:00 2024] NVRM: GPU 0000:5e:00.0: RmInitAdapter failed! (0x23:0x65:1426)\n"
    res = explain.explain_text(other, kb)
    assert [f["id"] for f in res["findings"]] == ["gpu.xid.fallen_off_bus", "gpu.xid.init"]
    assert res["findings"][1]["notes"][0].startswith("Another GPU: PCI 0000:5e:00")


# DCGM's own messages, filled in as dcgmi diag prints them (dcgmlib/dcgm_errors.h: DCGM_FR_PENDING_ROW_REMAP,
# DCGM_FR_FALLEN_OFF_BUS, DCGM_FR_CLOCKS_EVENT_THERMAL)
@pytest.mark.parametrize("text,entry,fix", [
    ("| Warning | GPU 2 had memory errors and row remappings are pending |\n", "gpu.xid.ecc", "Reset GPU"),
    ("| Error | GPU 5 has fallen off the bus |\n", "gpu.xid.fallen_off_bus", "re-seat the GPU"),
])
def test_dcgm_diag_messages_get_dcgms_own_action_and_the_gpu_index(kb, text, entry, fix):
    _, root, fixes = _ask(kb, text)
    assert root["id"] == entry and fix in fixes and root["gpus"][0].startswith("index ")
    assert root["confidence"] == "cause"  # DCGM's code names the cause


def test_nvidia_smi_q_slowdown_and_pending_remap(kb):
    # nvidia-smi -q's sections, as the H100 fixture prints them with the values a faulty GPU shows
    slow = "    Clocks Event Reasons\n        HW Slowdown                       : Active\n" \
           "            HW Power Brake Slowdown       : Active\n"
    _, root, fixes = _ask(kb, slow)
    assert root["id"] == "gpu.slowdown" and root["causes"][0]["evidence"] and "power supplies" in fixes
    remap = "    Remapped Rows\n        Uncorrectable Error               : 1\n        Pending                           : Yes\n"
    _, root, fixes = _ask(kb, remap)
    assert root["id"] == "gpu.xid.ecc" and "nvidia-smi -r" in fixes


# Healthy: the clock reason tables of https://github.com/mlfoundations/open_clip/issues/703 (SW Power Cap
# active, as under load) and https://github.com/kubeflow/kubeflow/issues/68 (older 'Clocks Throttle Reasons')
OPEN_CLIP = """    Clocks Event Reasons
        Idle                              : Not Active
        Applications Clocks Setting       : Not Active
        SW Power Cap                      : Active
        HW Slowdown                       : Not Active
            HW Thermal Slowdown           : Not Active
            HW Power Brake Slowdown       : Not Active
        Sync Boost                        : Not Active
        SW Thermal Slowdown               : Not Active
        Display Clock Setting             : Not Active
"""
KUBEFLOW = """$ nvidia-smi -q | grep -A8 'Clocks Throttle'
    Clocks Throttle Reasons
        Idle                        : Active
        Applications Clocks Setting : Not Active
        SW Power Cap                : Not Active
        HW Slowdown                 : Not Active
            HW Thermal Slowdown     : Not Active
            HW Power Brake Slowdown : Not Active
        Sync Boost                  : Not Active
        SW Thermal Slowdown         : Not Active
"""


@pytest.mark.parametrize("name", ["nvidia-smi-q.txt", "nvidia-smi-q-d.txt", "dmesg-nvrm.txt", "open_clip", "kubeflow"])
def test_healthy_hardware_output_gets_no_answer(kb, name):
    text = {"open_clip": OPEN_CLIP, "kubeflow": KUBEFLOW}.get(name)
    if text is None:
        with open(os.path.join(HEALTHY, name)) as f:
            text = f.read()
    res = explain.explain_text(text, kb)
    assert res["verdict"] == "no_error" and not res["findings"], [f["id"] for f in res["findings"]]


def test_gpus_of_reads_every_form_of_the_address():
    assert gpuhw.gpus_of("NVRM: Xid (PCI:0000:3b:00): 79, pid=1") == ["pci 0000:3b:00"]
    assert gpuhw.gpus_of("Unable to determine the device handle for GPU00000000:3B:00.0: x") == ["pci 0000:3b:00"]
    assert gpuhw.gpus_of("Xid (PCI:0000:01:00 GPU-I:05): 94") == ["pci 0000:01:00"]
    assert gpuhw.gpus_of("in GPU 3.") == ["index 3"] and gpuhw.gpus_of("GPU 0000:3b:00.0") == ["pci 0000:3b:00"]
    # a UUID, a clock time, an IPv6 address are no GPU
    assert gpuhw.gpus_of("GPU-1a2b3c4d-0000-1111-2222-333344445555 at 11:49:53 from fe80::1:2") == []


def test_xid_lines_carry_nvidias_catalog_action(kb):
    # the kernel's Xid lines (kernel_rc.c's format; Xid 154's text from src/nvidia/src/kernel/gpu/gpu.c)
    text = ("NVRM: Xid (PCI:0000:18:00): 48, pid=1896, An uncorrectable double bit error\n"
            "NVRM: Xid (PCI:0000:18:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)\n")
    res, root, _ = _ask(kb, text)
    assert root["id"] == "gpu.xid.ecc" and len(res["findings"]) == 1
    notes = "\n".join(root["notes"])
    assert "NVIDIA's Xid catalog, Xid 48 (Double Bit ECC Error): WORKFLOW_XID_48" in notes
    assert "Xid 154 (GPU Recovery Action Changed): the action its message states: drain the node and reboot" in notes
    # an Xid the catalog resolves in the application (13: RESTART_APP) does not send the user to the GPU
    # (the line of https://github.com/leptonai/gpud/pull/46)
    app = ("NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on "
           "(GPC 7, TPC 7, SM 0): Illegal Instruction Parameter\n")
    _, root, _ = _ask(kb, app)
    assert root["id"] == "gpu.xid" and any("RESTART_APP" in n for n in root["notes"])
    assert any("Look at the job on that GPU first" in n for n in root["notes"])
    assert not any("Act on that GPU" in n for n in root["notes"])


# https://github.com/wilicc/gpu-burn/issues/1 (the root port's AER errors, then the GPU falls off the bus)
BURN = """[74889.542031] pcieport 0000:00:02.0: AER: Uncorrected (Fatal) error received: id=0010
[74889.542044] pcieport 0000:00:02.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, id=0010(Receiver ID)
[74889.542125] pcieport 0000:00:02.0:   device [8086:6f04] error status/mask=00000020/00000000
[74889.542184] pcieport 0000:00:02.0:    [ 5] Surprise Down Error    (First)
[74889.542234] pcieport 0000:00:02.0: broadcast error_detected message
[74889.542239] nvidia 0000:02:00.0: device has no AER-aware driver
[74889.644112] NVRM: GPU at PCI:0000:02:00: GPU-660d987e-5b28-3bf6-2a2d-1d5ecae7f6df
[74889.644138] NVRM: Xid (PCI:0000:02:00): 79, GPU has fallen off the bus.
"""
# https://github.com/rwth-i6/returnn/issues/1500 ("just a hardware issue": the port's fatal AER, the GPU cannot recover)
RETURNN = """[  +0.000844] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)
[  +0.000008] pcieport 0000:00:03.0: AER: device recovery failed
[  +0.000001] pcieport 0000:00:03.0: AER: Multiple Uncorrected (Fatal) error received: 0000:00:03.0
[  +0.000004] pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Requester ID)
[  +0.000898] pcieport 0000:00:03.0:   device [8086:6f08] error status/mask=00004020/00000000
"""


def test_pcie_aer_names_the_gpu_not_the_port(kb):
    res, root, _ = _ask(kb, BURN)
    assert root["id"] == "gpu.xid.fallen_off_bus" and root["gpus"] == ["pci 0000:02:00"]
    assert "gpu.xid.pcie" in root["folded"] and len(res["findings"]) == 1  # the port's errors: the same GPU
    _, root, fixes = _ask(kb, RETURNN)
    assert root["id"] == "gpu.xid.pcie" and root["gpus"] == ["pci 0000:03:00"] and "reseat the GPU" in fixes


# https://github.com/NVIDIA/NVSentinel/issues/155 (the driver's multi-line message, no Xid)
NO_XID = """[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0
               NVRM: (PCI ID: 10de:26b5) installed in this system has
               NVRM: fallen off the bus and is not responding to commands.
[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).
"""
# https://github.com/JackHack96/dell-xps-9570-ubuntu-respin/issues/125 (a laptop's hybrid graphics: prime-select)
NO_DEVICES = "$ nvidia-smi\nNo devices were found\n"


def test_fallen_off_without_an_xid_and_no_devices_without_a_fault(kb):
    res, root, fixes = _ask(kb, NO_XID)
    assert root["id"] == "gpu.xid.fallen_off_bus" and len(res["findings"]) == 1 and "reboot" in fixes
    assert root["gpus"] == ["pci 0000:b3:00"]  # named on the message's first line
    # 'No devices were found' names no fault: the family of 'no usable driver or GPU', its causes told apart
    _, root, fixes = _ask(kb, NO_DEVICES)
    assert root["id"] == "gpu.no_devices" and root["family"] == "gpu.driver_not_loaded"
    assert root["confidence"] == "family" and "prime-select nvidia" in fixes
    assert not any(n.startswith("Family: cuda.gpu_hardware") for n in root["notes"])
