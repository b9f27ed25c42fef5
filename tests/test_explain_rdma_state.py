"""rdma-core's messages and states (issue 18, infra15): tools/gen_rdma_messages.py reads linux-rdma/rdma-core
(libibverbs' warnings, the verbs tools' messages, ibv_devinfo's / ibv_devices' / ibstat's state tables) into
generated/rdma_messages.json; rdma_state.toml gives the families their causes. A port that is not Active is the
answer only when no port of the text is Active (explain/waits.py, resolved_anywhere), so a dual-port HCA with one
port unplugged stays healthy.
"""

import os
import re
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import knowgen  # noqa: E402
from explainhelp import explain_paste, fixes, root_of, seen_text  # noqa: E402

from gpudoctor.explain.knowledge import load_knowledge  # noqa: E402


def _sites():
    return knowgen.committed("rdma_messages")["sites"]


def test_sites_take_their_family_from_the_source_tables():
    by_text = {s["text"]: s for s in _sites()}
    assert by_text["libibverbs: Warning: couldn't open config directory '%s'."]["family"] == "rdma.no_provider"
    assert by_text["No IB devices found"]["family"] == "rdma.no_device"
    assert by_text["libibverbs: Warning: couldn't load driver '%s': %s"]["family"] == "rdma.libibverbs_warning"
    states = {(s["program"], s["field"], s["value"]): s for s in _sites() if s.get("field")}
    # every state ibv_devinfo (devinfo.c) and ibstat (ibstat.c) can print for a port, read from their tables
    assert {v for (p, f, v) in states if p == "ibv_devinfo" and f == "state"} >= {"PORT_DOWN", "PORT_INIT",
                                                                                   "PORT_ARMED", "PORT_ACTIVE"}
    assert {v for (p, f, v) in states if p == "ibstat" and f == "Physical state"} >= {"Polling", "Disabled", "LinkUp"}
    for key, s in states.items():
        if key[2] in ("PORT_ACTIVE", "Active", "LINK_UP", "LinkUp"):
            assert s.get("healthy") and s["family"] is None, key
        elif key[2] in ("PORT_DOWN", "Polling", "PORT_INIT", "Down", "DISABLED"):
            assert s["family"] == "rdma.port_down", key
    assert all(s["family"] == "rdma.vf_no_guid" for (p, f, v), s in states.items() if "GUID" in f.upper())


def test_resolved_by_reads_every_healthy_state_the_tools_print():
    e = next(e for e in load_knowledge().entries if e["id"] == "rdma.port_down")
    healthy = [s for s in _sites() if s.get("healthy") and s["field"] in ("state", "State")]
    assert {s["program"] for s in healthy} == {"ibv_devinfo", "ibstat", "ibstatus"}
    for s in healthy:
        line = "\t\t\t" + s["text"].replace("\t", "\t\t\t") if s["program"] == "ibv_devinfo" else "\t\t" + s["text"]
        assert re.search(s["re"], line) and re.search(e["resolved_by"], line), s["text"]
    for s in _sites():
        if s.get("family") == "rdma.port_down" and s["field"] in ("state", "State"):
            assert not re.search(e["resolved_by"], "\t\t" + s["text"].replace("\t", "\t\t\t")), s["text"]


# ibv_devinfo of Debian's ibverbs-utils 44.0-2 (rdma-core 44.0), run here on a host without RDMA devices:
# ibv_get_device_list fails with ENOSYS (libibverbs/device.c)
MADE_HERE_NO_DEVICE = "Failed to get IB devices list: Function not implemented\n"

# dsx-ai-factory/infra-controller PR 5251 (ibv_devinfo in an image without ibverbs-providers)
# https://github.com/dsx-ai-factory/infra-controller/pull/5251
NO_PROVIDER = ("root@scout:~# ibv_devinfo\nlibibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'.\n"
               "No IB devices found\n")

# Azure/azhpc-diagnostics issue 76: an ibstat port that is down (https://github.com/Azure/azhpc-diagnostics/issues/76)
IBSTAT_DOWN = "Port 1:\n                State: Down\n                Physical state: Polling\n"

# Mellanox/network-operator issue 249: an SR-IOV InfiniBand VF in a pod, Down with its link up
# (https://github.com/Mellanox/network-operator/issues/249)
VF_IN_POD = ("root@test-sriov-ib-pod:~# ibstat mlx5_7\nCA 'mlx5_7'\n        CA type: MT4124\n        Number of ports: 1\n"
             "        Port 1:\n                State: Down\n                Physical state: LinkUp\n"
             "                Rate: 200\n                Base lid: 65535\n                SM lid: 1\n"
             "                Link layer: InfiniBand\n")

# ibstatus' lines (infiniband-diags/scripts/ibstatus: the kernel's sysfs values) of a port with no link
IBSTATUS_DOWN = ("Infiniband device 'mlx5_0' port 1 status:\n\tdefault gid:\t fe80:0000:0000:0000:b8ce:f603:00f2:4a5c\n"
                 "\tbase lid:\t 0x0\n\tsm lid:\t\t 0x0\n\tstate:\t\t 1: DOWN\n\tphys state:\t 2: Polling\n"
                 "\trate:\t\t 40 Gb/sec (4X QDR)\n\tlink_layer:\t InfiniBand\n")

# openshift/sriov-network-device-plugin issue 20: VFs without a GUID
# (https://github.com/openshift/sriov-network-device-plugin/issues/20)
VF_NO_GUID = ("ibv_devices\ndevice node GUID\n------ ----------------\nmlx5_2 0000000000000000\n"
              "mlx5_0 506b4b0300285028\nmlx5_3 0000000000000000\nmlx5_1 506b4b0300285034\n")

# ibv_devinfo's shape (libibverbs/examples/devinfo.c printf formats): a dual-port listing whose second HCA is
# unplugged while the first is Active (a common healthy node)
_DEVINFO = """hca_id:\tmlx5_{n}
\ttransport:\t\t\tInfiniBand (0)
\tnode_guid:\t\t\tb8ce:f603:00f2:4a5{n}
\tphys_port_cnt:\t\t\t1
\t\tport:\t1
\t\t\tstate:\t\t\t{state}
\t\t\tmax_mtu:\t\t4096 (5)
\t\t\tsm_lid:\t\t\t1
\t\t\tlink_layer:\t\tInfiniBand
"""
HEALTHY_DUAL = _DEVINFO.format(n=0, state="PORT_ACTIVE (4)") + "\n" + _DEVINFO.format(n=1, state="PORT_DOWN (1)")
ALL_INIT = _DEVINFO.format(n=0, state="PORT_INIT (2)") + "\n" + _DEVINFO.format(n=1, state="PORT_INIT (2)")


@pytest.mark.parametrize("text,entry,fix", [
    (MADE_HERE_NO_DEVICE, "rdma.no_device", r"modprobe mlx5_ib"),
    (NO_PROVIDER, "rdma.no_provider", r"ibverbs-providers"),
    (IBSTAT_DOWN, "rdma.port_down", r"cable"),
    (VF_NO_GUID, "rdma.vf_no_guid", r"node_guid .* port_guid"),
    (ALL_INIT, "rdma.port_down", r"opensm"),
    (IBSTATUS_DOWN, "rdma.port_down", r"cable"),
], ids=["made-here-enosys", "no-provider", "ibstat-down", "vf-guid-zero", "no-subnet-manager", "ibstatus-down"])
def test_rdma_states_and_messages_get_their_family_and_fix(cli, tmp_path, text, entry, fix):
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == entry, doc["findings"]
    assert re.search(fix, root["causes"][0]["text"] + "\n" + "\n".join(root["causes"][0]["fix"])), fixes(root)


def test_a_vf_in_a_pod_names_its_link_state(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, VF_IN_POD, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "rdma.port_down", doc["findings"]
    assert "linkState: enable" in fixes(root) and "vf <n> state enable" in fixes(root)


def test_a_listing_with_an_active_port_stays_healthy(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, HEALTHY_DUAL, "--file", rcs=(0, 1))
    assert doc["verdict"] == "no_error" and not [f for f in doc["findings"] if f.get("role") == "root"], doc["findings"]


# ------------------------------------------------------------------ CDI hooks and DCGM's packaged configuration

# NVIDIA/nvidia-container-toolkit issue 143 (the spec's chmod /dev/dri hook with the host /dev mounted in):
# https://github.com/NVIDIA/nvidia-container-toolkit/issues/143
CDI_CHMOD = ('podman run --rm --device=nvidia.com/gpu=all --privileged --volume /dev:/dev:rslave ubuntu:latest '
             'nvidia-smi -L\nError: OCI runtime error: crun: {"msg":"error executing hook `/usr/bin/nvidia-ctk` '
             '(exit code: 1)","level":"error","time":"2023-11-05T12:05:27.216981Z"}\n')
# void-linux/void-packages issue 55062 (a package without nvidia-cdi-hook):
# https://github.com/void-linux/void-packages/issues/55062
CDI_MISSING = ("Error: runc: runc create failed: unable to start container process: error during container init: "
               "error running hook #0: fork/exec /usr/bin/nvidia-cdi-hook: no such file or directory: OCI runtime "
               "attempted to invoke a command that was not found\n")
# NVIDIA/DCGM issue 121 (https://github.com/NVIDIA/DCGM/issues/121)
DCGM_SKUS = ("2023-10-26 14:44:40.652 ERROR [12179:12179] Could not read package diag config. Please ensure the "
             "datacanter-gpu-manager-config package is installed [/workspaces/dcgm/nvvs/src/ConfigFileParser_v2.cpp:218]"
             "\n2023-10-26 14:44:40.652 ERROR [12179:12179] Exception: bad file: "
             "/usr/share/nvidia-validation-suite/diag-skus.yaml [/workspaces/dcgm/nvvs/src/ConfigFileParser_v2.cpp:220]\n")


@pytest.mark.parametrize("text,entry,fix", [
    (CDI_CHMOD, "container.oci_runtime", r"all of /dev"),
    (CDI_MISSING, "container.oci_runtime", r"nvidia-ctk cdi generate"),
    (DCGM_SKUS, "dcgm.diag_config", r"--reinstall datacenter-gpu-manager"),
], ids=["cdi-chmod", "cdi-hook-missing", "dcgm-skus"])
def test_cdi_hooks_and_dcgm_config_name_their_fix(cli, tmp_path, text, entry, fix):
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == entry, doc["findings"]
    assert re.search(fix, fixes(root)), fixes(root)


def _seen(case_id):
    return seen_text(case_id, "2026-11-27ab")


@pytest.mark.parametrize("case_id", ["ab-amzndrivers114-healthy-ibstat-efa0",
                                     "ab-libfabric11256-healthy-fi-info-efa-ibv-devinfo"])
def test_an_efa_devices_zero_guid_is_no_vf_without_one(cli, tmp_path, case_id):
    # EFA has no GUID: ibstat 'Link layer: Unknown', ibv_devinfo 'transport: unspecified (4)' and vendor 0x1d0f
    # (https://github.com/amzn/amzn-drivers/issues/114, https://github.com/ofiwg/libfabric/issues/11256)
    text = _seen(case_id)
    assert re.search(r"(?m)^\s*(?:Node GUID: 0x0{16}|node_guid:\s+0000:0000:0000:0000)", text)
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0,))
    assert doc["verdict"] == "no_error" and root_of(doc) is None, doc["findings"]
    # the same listing of an InfiniBand device (transport InfiniBand, link layer InfiniBand) is still the VF's
    ib = text.replace("unspecified (4)", "InfiniBand (0)").replace("Link layer: Unknown", "Link layer: InfiniBand") \
        .replace("0x1d0f", "0x15b3")
    rc, doc = explain_paste(cli, tmp_path, ib, "--file", rcs=(0, 1))
    assert root_of(doc) and root_of(doc)["id"] == "rdma.vf_no_guid", doc["findings"]
