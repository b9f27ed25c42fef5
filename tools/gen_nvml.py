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
