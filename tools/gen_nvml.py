#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/nvml.json: the NVML return codes (NVML_ERROR_*),
their numbers, pynvml's exception class names and texts, each with a knowledge family
(FAMILIES below).

Usage:
    python tools/gen_nvml.py [-o OUT]                                 (the installed nvidia-ml-py)
    python tools/gen_nvml.py --slice tools/data/nvml_slice.tsv -o OUT   (the test)

Source: nvidia-ml-py's pynvml.py (https://pypi.org/project/nvidia-ml-py/): the NVML_ERROR_*
constants, NVMLError._errcode_to_string, and the NVMLError_<Name> classes it derives from them.
A slice is `NAME<TAB>NUMBER<TAB>TEXT` lines.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_nvml.py"

FAMILIES = {
    "NVML_ERROR_LIB_RM_VERSION_MISMATCH": "nvml.mismatch",
    "NVML_ERROR_DRIVER_NOT_LOADED": "gpu.driver_not_loaded",
    "NVML_ERROR_LIBRARY_NOT_FOUND": "container.nvml_driver",
    # the GPU stopped answering on PCIe (gpu_hardware.toml; NVIDIA's Xid catalog, Xid 79)
    "NVML_ERROR_GPU_IS_LOST": "gpu.xid.fallen_off_bus",
    "NVML_ERROR_RESET_REQUIRED": "cuda.gpu_hardware",
    "NVML_ERROR_CORRUPTED_INFOROM": "cuda.gpu_hardware",
    "NVML_ERROR_NO_PERMISSION": "nvml.error",
    "NVML_ERROR_UNKNOWN": "nvml.error",
    "NVML_ERROR_UNINITIALIZED": "nvml.error",
    "NVML_ERROR_TIMEOUT": "nvml.error",
    "NVML_ERROR_OPERATING_SYSTEM": "nvml.error",
    "NVML_ERROR_FUNCTION_NOT_FOUND": "nvml.error",  # a tool newer than the driver: not a reload (MEANS)
}

# code -> (what it means, [fixes]) where the code says more than its family's first cause
# (hand-written; the codes' descriptions: NVML API reference, nvmlReturn_t)
MEANS = {
    "NVML_ERROR_FUNCTION_NOT_FOUND": (
        "the driver's libnvidia-ml has no such function: the tool (nvidia-ml-py, DCGM, a monitoring agent) is "
        "newer than the installed driver, or a container's own libnvidia-ml is older than the tool",
        ["upgrade the NVIDIA driver, or use a tool / nvidia-ml-py release from the driver's branch; in containers "
         "let the runtime mount the host's libnvidia-ml (docker run --gpus all) instead of one baked into the "
         "image"]),
    "NVML_ERROR_NO_PERMISSION": (
        "the NVML call needs root (clocks, power limits, persistence mode, reset) or the process may not open the "
        "GPU's device file (a container's device cgroup, a group the user is not in)",
        ["run the setting as root (sudo nvidia-smi ...) or from the host; in containers pass the GPU with --gpus"]),
    "NVML_ERROR_LIBRARY_NOT_FOUND": (
        "libnvidia-ml.so.1 is not on the loader's path: no NVIDIA driver on this machine, or a container started "
        "without the NVIDIA runtime (--gpus) that mounts it",
        ["docker run --gpus all ... (nvidia-container-toolkit); on a host install the NVIDIA driver; "
         "ldconfig -p | grep libnvidia-ml"]),
    "NVML_ERROR_UNKNOWN": (
        "NVML gave no reason: in a container that worked before, its access to /dev/nvidia* was dropped (the "
        "systemd cgroup driver reapplied the device rules); on a host, the driver or the GPU is in a bad state",
        ["container: restart it, and inject GPUs through CDI (nvidia-ctk cdi generate) so a daemon-reload keeps "
         "them; host: sudo dmesg -T | grep -iE 'xid|nvrm', reboot after a driver upgrade"]),
}


# The other codes are NVML errors too (nvml.error, whose pattern already matches every NVML_ERROR_* name); each
# has its own meaning below.
for _name in ("NVML_ERROR_INVALID_ARGUMENT", "NVML_ERROR_NOT_SUPPORTED", "NVML_ERROR_ALREADY_INITIALIZED",
              "NVML_ERROR_NOT_FOUND", "NVML_ERROR_INSUFFICIENT_SIZE", "NVML_ERROR_INSUFFICIENT_POWER",
              "NVML_ERROR_IRQ_ISSUE", "NVML_ERROR_IN_USE", "NVML_ERROR_MEMORY", "NVML_ERROR_NO_DATA",
              "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED", "NVML_ERROR_INSUFFICIENT_RESOURCES", "NVML_ERROR_FREQ_NOT_SUPPORTED",
              "NVML_ERROR_ARGUMENT_VERSION_MISMATCH", "NVML_ERROR_DEPRECATED", "NVML_ERROR_NOT_READY",
              "NVML_ERROR_GPU_NOT_FOUND", "NVML_ERROR_INVALID_STATE", "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED"):
    FAMILIES.setdefault(_name, "nvml.error")

# Every code's own meaning: NVIDIA's description of the nvmlReturn_t value (NVML API reference, "Device
# Enums", https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceEnumvs.html), turned into where a training
# job meets it (nvidia-smi, DCGM, pynvml in torch.cuda's memory and utilization queries, accelerate, W&B and
# Lightning's GPU monitors, the container runtime) and what is changed. The codes with a family of their own
# (NVML_ERROR_DRIVER_NOT_LOADED gpu.driver_not_loaded, NVML_ERROR_GPU_IS_LOST gpu.xid.fallen_off_bus,
# NVML_ERROR_LIB_RM_VERSION_MISMATCH nvml.mismatch) keep its causes, which the log's other lines order.
MEANS.update({
    "NVML_ERROR_UNINITIALIZED": (
        "NVML was called before nvmlInit() (or after nvmlShutdown()): a monitoring call in a process that never "
        "initialised NVML, often a forked child, or an nvmlInit that failed earlier",
        ["read the first NVML error of the log (that is the failed init); call pynvml.nvmlInit() in each process "
         "before its queries, also after a fork"]),
    "NVML_ERROR_INVALID_ARGUMENT": (
        "an NVML call got an invalid argument: usually a device index or handle that does not exist here (an index "
        "counted from CUDA_VISIBLE_DEVICES used as an NVML index, which counts every GPU of the node)",
        ["map CUDA indexes to NVML ones by UUID or PCI bus id (torch.cuda.get_device_properties(i).uuid, nvidia-smi "
         "-L), not by position; update the tool that makes the call"]),
    "NVML_ERROR_NOT_SUPPORTED": (
        "the query or setting is not available on this GPU or in this mode (a GeForce or a vGPU lacking the "
        "counter, per-process queries with MIG on, a clock or power setting the board does not allow): the tool "
        "asked for something this GPU does not report, not a fault",
        ["nothing is broken: make the monitoring tolerate it: catch pynvml.NVMLError_NotSupported (pynvml's class "
         "for this code) around that query and report N/A, or skip that metric; nvidia-smi -q shows 'N/A' or "
         "'Not Supported' for it on this GPU (nvmlDeviceGetFanSpeed, for one, serves only boards with their own "
         "fan: data-center GPUs cooled by the chassis return this code)"]),
    "NVML_ERROR_ALREADY_INITIALIZED": (
        "a deprecated code (NVML counts initialisations since CUDA 5): an old tool or pynvml",
        ["upgrade nvidia-ml-py (pip install -U nvidia-ml-py) and the tool that prints it"]),
    "NVML_ERROR_NOT_FOUND": (
        "NVML found no such object: a GPU looked up by UUID, PCI bus id or serial that this node does not have (a "
        "UUID of another node, a MIG UUID where a GPU one was expected), or a process or entry that no longer "
        "exists",
        ["nvidia-smi -L on this node lists the UUIDs (GPU and MIG) it has; set CUDA_VISIBLE_DEVICES / "
         "NVIDIA_VISIBLE_DEVICES from that list on the node itself"]),
    "NVML_ERROR_INSUFFICIENT_SIZE": (
        "the buffer a tool gave NVML was too small for the answer (many processes on a GPU, a long list): a tool bug",
        ["upgrade the tool or nvidia-ml-py that makes the call"]),
    "NVML_ERROR_INSUFFICIENT_POWER": (
        "the GPU's external power cables are not properly attached: the board runs without its auxiliary power",
        ["the admin reseats the GPU's power connectors and checks the PSU; nvidia-smi -q -d POWER; drain the node "
         "until then"]),
    "NVML_ERROR_TIMEOUT": (
        "the NVML call did not finish in time: the driver is busy or stuck on that GPU (a GPU in recovery, a hung "
        "process)",
        ["sudo dmesg -T | grep -iE 'xid|nvrm' on the node; nvidia-smi again after the job ends; drain the node when "
         "it repeats"]),
    "NVML_ERROR_IRQ_ISSUE": (
        "the NVIDIA kernel driver detected an interrupt problem with the GPU: interrupts not delivered (an MSI/MSI-X "
        "or platform/virtualisation problem)",
        ["sudo dmesg -T | grep -iE 'nvrm|irq' on the node; the admin checks the BIOS/hypervisor interrupt settings "
         "(MSI enabled, IOMMU) and the driver version"]),
    "NVML_ERROR_CORRUPTED_INFOROM": (
        "the GPU's infoROM (its on-board configuration and ECC record store) is corrupted",
        ["nvidia-smi -q | grep -i inforom on the node; drain it and have the admin reflash the infoROM with NVIDIA "
         "support or replace the GPU"]),
    "NVML_ERROR_RESET_REQUIRED": (
        "the GPU must be reset before it can be used again (after an uncontained error or a row-remapping pending)",
        ["with no process on it: sudo nvidia-smi -r -i <gpu>, or reboot the node; drain it in the scheduler first"]),
    "NVML_ERROR_OPERATING_SYSTEM": (
        "the operating system or a cgroup blocked access to the GPU's control device: in a container, the device "
        "cgroup no longer allows /dev/nvidia* (systemd re-applied the rules after a daemon-reload), or the device "
        "files are not there",
        ["containers: restart it, and inject GPUs with CDI (nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml) "
         "so a systemctl daemon-reload keeps them; hosts: ls -l /dev/nvidia*"]),
    "NVML_ERROR_IN_USE": (
        "the operation needs the GPU idle and a process is using it (a reset, a MIG or ECC mode change)",
        ["nvidia-smi --query-compute-apps=pid,name --format=csv; stop those processes (and nvidia-persistenced / "
         "DCGM when the reset needs it), then retry"]),
    "NVML_ERROR_MEMORY": (
        "NVML or the driver ran out of memory for the request",
        ["check free host memory on the node (free -g) and for processes leaking; retry after the job ends"]),
    "NVML_ERROR_NO_DATA": (
        "NVML has no data for the query yet (no samples in the interval asked for, a counter never collected)",
        ["not a fault: query again later or widen the interval; the tool should treat it as empty"]),
    "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED": (
        "the vGPU operation is not available because ECC is enabled on the GPU",
        ["the admin disables ECC for vGPU use (nvidia-smi -e 0, then a reset) or uses a vGPU profile that "
         "supports ECC"]),
    "NVML_ERROR_INSUFFICIENT_RESOURCES": (
        "the driver ran out of a critical resource other than memory for the request (e.g. MIG instances or "
        "profiles already in use)",
        ["free the resource (destroy unused MIG instances: nvidia-smi mig -dci / -dgi) or ask for a smaller "
         "profile"]),
    "NVML_ERROR_FREQ_NOT_SUPPORTED": (
        "the clock frequency asked for is not one this GPU supports",
        ["pick a supported pair from nvidia-smi -q -d SUPPORTED_CLOCKS (nvidia-smi -ac <mem,graphics> / -lgc)"]),
    "NVML_ERROR_ARGUMENT_VERSION_MISMATCH": (
        "the tool passed a structure version this driver's NVML does not know: the tool or nvidia-ml-py is newer "
        "(or older) than the driver",
        ["use an nvidia-ml-py / DCGM / tool release of the driver's branch, or upgrade the driver"]),
    "NVML_ERROR_DEPRECATED": (
        "the NVML function the tool used is deprecated and no longer works with this driver",
        ["upgrade the tool (or nvidia-ml-py) to a release that uses the current API"]),
    "NVML_ERROR_NOT_READY": (
        "the system is not ready for the request yet: the driver or a service it needs (nvidia-fabricmanager on "
        "NVSwitch systems, persistence) is still starting",
        ["retry after start-up; systemctl status nvidia-fabricmanager nvidia-persistenced on the node"]),
    "NVML_ERROR_GPU_NOT_FOUND": (
        "NVML found no GPU: none visible to this process (a container without --gpus, NVIDIA_VISIBLE_DEVICES=void) "
        "or the driver enumerated none",
        ["nvidia-smi -L on the host and in the container; docker run --gpus all; lspci | grep -i nvidia on the "
         "host"]),
    "NVML_ERROR_INVALID_STATE": (
        "the GPU or resource is not in a state that allows the operation (e.g. a MIG change with MIG mode pending, "
        "a setting while the GPU resets)",
        ["nvidia-smi -q shows the pending modes; reset the GPU (nvidia-smi -r) or reboot so the pending change "
         "applies, then retry"]),
    "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED": (
        "the kind of GPU reset asked for is not supported on this GPU or platform",
        ["use a reset the platform supports (nvidia-smi -r without options), or reboot the node"]),
})

def class_name(const):
    # pynvml._extractNVMLErrorsAsClasses: NVML_ERROR_ALREADY_INITIALIZED -> NVMLError_AlreadyInitialized
    return "NVMLError_" + "".join(w.capitalize() for w in const[len("NVML_ERROR_"):].split("_"))


def build(rows, version):
    sites = []
    for name, num, text in rows:
        alts = [r"\b%s\b" % name, r"\b%s\b" % class_name(name)]
        if text:
            alts.append(r"NVML[^\n]{0,40}?%s" % re.escape(text))
        site = {"id": "nvml.%s" % name.lower(), "name": name, "code": num, "text": text,
                "class": class_name(name), "re": "(?:%s)" % "|".join(alts), "family": FAMILIES.get(name),
                "rule": "FAMILIES[%s]" % name if name in FAMILIES else None}
        if name in MEANS and name in FAMILIES:
            site["means"], site["fix"] = MEANS[name][0], list(MEANS[name][1])
        sites.append(site)
    return {"header": knowgen.header("nvidia-ml-py pynvml.py (https://pypi.org/project/nvidia-ml-py/)", version,
                                     GENERATOR), "sites": sites}


def rows_here():
    import importlib.metadata

    import pynvml

    texts = pynvml.NVMLError._errcode_to_string
    rows = sorted(((k, getattr(pynvml, k), texts.get(getattr(pynvml, k), "")) for k in dir(pynvml)
                   if k.startswith("NVML_ERROR_") and isinstance(getattr(pynvml, k), int)), key=lambda r: r[1])
    return rows, "nvidia-ml-py %s" % importlib.metadata.version("nvidia-ml-py")


def main(argv):
    a = knowgen.arguments(__doc__, argv, source=None)
    rows, version = knowgen.read_rows(a.slice) if a.slice else rows_here()
    return knowgen.emit("nvml", build(rows, version), a.out, "codes")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
