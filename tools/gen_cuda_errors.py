#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/cuda_errors.json: every cudaError_t (CUDA runtime)
and CUresult (CUDA driver API) code: its name, number, NVIDIA's description (the doc comment of
the enum in driver_types.h / cuda.h) and the text cudaGetErrorString prints for it, each with a
matcher and the knowledge family that says what a training user should do (FAMILIES below).

Usage:
    pip download --no-deps nvidia-cuda-runtime-cu12 -d /tmp/w && unzip -q /tmp/w/*.whl -d /tmp/w/rt
    python tools/gen_cuda_errors.py --root /tmp/w/rt/nvidia/cuda_runtime [--version 12.9.79] [-o OUT]
    python tools/gen_cuda_errors.py --slice tools/data/cuda_errors_slice.txt -o OUT   (the test)

Source: the nvidia-cuda-runtime-cu12 wheel (https://pypi.org/project/nvidia-cuda-runtime-cu12/):
include/driver_types.h (enum cudaError), include/cuda.h (enum cudaError_enum), and
lib/libcudart.so.12's cudaGetErrorString (a table lookup: it needs no GPU or driver). The wheel is
never committed. A slice file holds a part of each header after `=== driver_types.h` /
`=== cuda.h` and the recorded strings as `#! string CODE TEXT` lines.
"""

import ctypes
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_cuda_errors.py"

# code -> knowledge entry (hand-written; what the code means for a training job). Codes not
# listed go to the generic cuda.api_error family (a CUDA call failed: find the first one).
FAMILIES = {
    710: "cuda.device_assert",
    700: "cuda.illegal_access", 716: "cuda.illegal_access", 717: "cuda.illegal_access",
    718: "cuda.illegal_access", 719: "cuda.illegal_access", 715: "cuda.illegal_access",
    53: "cuda.illegal_access",  # "unspecified launch failure in prior launch": 719 of an earlier launch
    714: "cuda.gpu_hardware", 214: "cuda.gpu_hardware", 220: "cuda.gpu_hardware",
    226: "cuda.gpu_hardware",  # cudaErrorContained: a contained hardware error (Xid 94/95 family)
    2: "cuda.oom",
    35: "cuda.driver_insufficient", 36: "cuda.driver_insufficient", 804: "cuda.driver_insufficient",
    # 803: libcuda (user space) and the kernel module are not a supported pair: a version
    # combination, not the NVSwitch fabric (cuda_runtime_api doc: "mismatch between the versions
    # of the display driver and the CUDA driver")
    803: "cuda.driver_insufficient",
    222: "cuda.ptx_toolchain", 218: "cuda.ptx_toolchain",
    221: "cuda.ptx_toolchain",  # the PTX JIT library (libnvidia-ptxjitcompiler) is missing: not the GPU
    34: "cuda.libs",  # the toolkit's stub libcuda.so was loaded instead of the driver's
    209: "cuda.no_kernel_image", 98: "cuda.no_kernel_image", 200: "cuda.no_kernel_image",
    500: "cuda.no_kernel_image",  # "named symbol not found": the kernel is not in the binary loaded
    100: "cuda.not_available",
    101: "cuda.invalid_device_ordinal",
    46: "cuda.busy_unavailable", 216: "cuda.busy_unavailable",
    802: "cuda.system_not_ready",
    3: "cuda.init_failed", 999: "cuda.init_failed",
    704: "gpu.p2p", 705: "gpu.p2p", 217: "gpu.p2p",
}

# code -> (what it means in a training job, [fixes]): the code's own nuance, shown as the first
# cause when the code is in the log (hand-written; the description NVIDIA gives each code in
# driver_types.h is the "doc" of its site). Only codes whose family's causes do not already say it.
MEANS = {
    719: ("a kernel faulted (an out-of-bounds access in a kernel, an illegal instruction) or the GPU reset under it "
          "(an Xid in the kernel log at the same time); the context is lost and every later call fails",
          ["rerun with CUDA_LAUNCH_BLOCKING=1 (the traceback then names the op) and under compute-sanitizer; "
           "sudo dmesg -T | grep -i xid on the node: Xid 13/31/43 point at the kernel, 48/63/64/79/94/95 at the GPU"]),
    53: ("an earlier kernel launch faulted (unspecified launch failure); this call only reports it",
         ["read the first CUDA error of the log; rerun with CUDA_LAUNCH_BLOCKING=1 to see the launch that faulted"]),
    999: ("CUDA gave no reason: at start-up the driver state is wrong (nvidia-uvm not loaded, a driver upgraded "
          "without a reboot, a laptop resumed from suspend); in the middle of a run the GPU usually faulted (an "
          "Xid in the kernel log)",
          ["at start-up: nvidia-smi; sudo modprobe nvidia-uvm; reboot after a driver upgrade. "
           "In a running job: sudo dmesg -T | grep -i xid, and drain the node if the GPU faulted"]),
    803: ("the user-space CUDA driver (libcuda.so) and the loaded kernel module are not a supported pair: the driver "
          "packages were upgraded without a reboot, or a forward-compatibility libcuda (cuda-compat, an image's "
          "/usr/local/cuda/compat) is older than, or not for, the host's driver",
          ["compare cat /proc/driver/nvidia/version with the libcuda.so.<version> the process loads (ldconfig -p | "
           "grep libcuda); reboot after a driver upgrade, or reinstall one driver version (module and libraries "
           "together); in containers drop /usr/local/cuda*/compat from LD_LIBRARY_PATH when the host driver is "
           "new enough for the image's CUDA"]),
    34: ("the process loaded the CUDA toolkit's stub libcuda.so (lib64/stubs, for linking only) instead of the "
         "driver's: a stubs directory on LD_LIBRARY_PATH, or a container started without the GPU runtime",
         ["remove /usr/local/cuda*/lib64/stubs (and any .../stubs) from LD_LIBRARY_PATH; containers: docker run "
          "--gpus all (the NVIDIA runtime mounts the host's libcuda.so.1)"]),
    221: ("the driver's PTX JIT library (libnvidia-ptxjitcompiler.so.1) is missing: a container started without "
          "the compute driver capability, or an incomplete driver install",
          ["docker run --gpus all -e NVIDIA_DRIVER_CAPABILITIES=compute,utility ...; on a host reinstall the "
           "driver's user-space libraries"]),
    500: ("a kernel the code launches is not in the binary that was loaded: a compiled extension (or torch) "
          "built without this GPU's architecture, or built against another CUDA or torch than the one running",
          ["rebuild the extension on this GPU's node (TORCH_CUDA_ARCH_LIST=\"<its capability, e.g. 9.0>\" pip install "
           "--no-build-isolation --force-reinstall <package>), or install the wheel built for this torch and CUDA"]),
    702: ("a kernel ran longer than the display watchdog allows: the GPU also drives a display (X, a desktop) or "
          "Windows/WSL reset it (TDR)",
          ["run on a GPU with no display attached (or stop X on it); on Windows/WSL raise TdrDelay or use a GPU in "
           "TCC mode; shorter kernels (smaller batches) only hide it"]),
    304: ("an operating-system call under CUDA failed: CUDA IPC or pinned-memory features that WSL does not "
          "support, or a container without the IPC namespace sharing that CUDA IPC between processes needs",
          ["on WSL avoid CUDA IPC (DataLoader workers pass CPU tensors; torch.multiprocessing with 'spawn'); "
           "in containers: docker run --ipc=host"]),
}
for _code in range(805, 811):  # the MPS client/server codes
    MEANS[_code] = ("the CUDA MPS (Multi-Process Service) control daemon or server is not running, not reachable "
                    "(CUDA_MPS_PIPE_DIRECTORY) or out of clients",
                    ["start it (nvidia-cuda-mps-control -d) with the same CUDA_MPS_PIPE_DIRECTORY as the job, or "
                     "unset the MPS variables to run without MPS; check nvidia-smi -q | grep -i 'compute mode'"])
NOT_ERRORS = {0, 600}  # cudaSuccess, cudaErrorNotReady ("not actually an error")
# texts too common outside CUDA to match without a CUDA context ("CUDA error: ", "Cuda failure ")
_DISTINCT_MIN = 24
_CONTEXT = r"(?:CUDA error|Cuda failure|CUDA failure|cuda runtime error|CUDA Error|cudaError)[^\n]{0,24}?"

_ENUM_ITEM = re.compile(r"(/\*\*(?:(?!\*/).)*\*/)?\s*(\w+)\s*=\s*(\d+)\s*,?", re.S)


def parse_enum(text, start_re):
    """[(name, number, doc)] of the enum whose opening matches start_re."""
    m = re.search(start_re, text)
    if not m:
        return []
    body = text[m.end():text.index("}", m.end())]
    out = []
    for it in _ENUM_ITEM.finditer(body):
        doc = it.group(1) or ""
        doc = re.sub(r"^\s*/?\*+/?", "", doc, flags=re.M)
        doc = " ".join(doc.split()).replace("::", "")
        doc = re.sub(r"\\deprecated\s*", "Deprecated: ", doc)
        out.append((it.group(2), int(it.group(3)), doc.strip()))
    return out


def matcher(names, text):
    alts = [r"\b%s\b" % re.escape(n) for n in names]
    if text and text != "unrecognized error code":
        if len(text) >= _DISTINCT_MIN:
            alts.append(re.escape(text))
        else:
            alts.append(_CONTEXT + re.escape(text) + r"\b")
    return "(?:%s)" % "|".join(alts)


def build(runtime, driver, strings, version):
    sites = []
    driver_by_code = {}
    for name, code, doc in driver:
        driver_by_code.setdefault(code, []).append((name, doc))
    for name, code, doc in runtime:
        if code in NOT_ERRORS:
            continue
        text = strings.get(code, "")
        dnames = [n for n, _ in driver_by_code.get(code, [])]
        site = {"id": "cuda.%s" % name, "api": "runtime", "name": name, "code": code, "text": text,
                "doc": doc[:600], "driver_names": dnames, "re": matcher([name] + dnames, text),
                "family": FAMILIES.get(code, "cuda.api_error"),
                "rule": "FAMILIES[%d]" % code if code in FAMILIES else "default"}
        if code in MEANS:
            site["means"], site["fix"] = MEANS[code][0], list(MEANS[code][1])
        sites.append(site)
    runtime_codes = {s["code"] for s in sites} | NOT_ERRORS
    for name, code, doc in driver:  # driver-only codes
        if code in runtime_codes or code in NOT_ERRORS:
            continue
        sites.append({"id": "cuda.%s" % name, "api": "driver", "name": name, "code": code, "text": "",
                      "doc": doc[:600], "driver_names": [], "re": matcher([name], ""),
                      "family": FAMILIES.get(code, "cuda.api_error"),
                      "rule": "FAMILIES[%d]" % code if code in FAMILIES else "default"})
    return {"header": knowgen.header("nvidia-cuda-runtime-cu12 wheel (https://pypi.org/project/nvidia-cuda-runtime-cu12/)"
                                     ": include/driver_types.h, include/cuda.h, cudaGetErrorString of libcudart",
                                     version, GENERATOR),
            "sites": sites}


def from_root(root):
    with open(os.path.join(root, "include", "driver_types.h"), errors="replace") as f:
        dt = f.read()
    with open(os.path.join(root, "include", "cuda.h"), errors="replace") as f:
        ch = f.read()
    runtime = parse_enum(dt, r"enum __device_builtin__ cudaError\s*\{")
    driver = parse_enum(ch, r"typedef enum cudaError_enum\s*\{")
    lib = ctypes.CDLL(sorted(glob.glob(os.path.join(root, "lib", "libcudart.so*")))[0])
    lib.cudaGetErrorString.restype = ctypes.c_char_p
    strings = {code: lib.cudaGetErrorString(code).decode() for _, code, _ in runtime}
    return runtime, driver, strings


def from_slice(path):
    parts, strings, cur, version = {}, {}, None, "slice"
    with open(path) as f:
        for line in f:
            if line.startswith("#! string "):
                code, _, text = line[len("#! string "):].rstrip("\n").partition(" ")
                strings[int(code)] = text
            elif line.startswith("#! version "):
                version = line[len("#! version "):].strip()
            elif line.startswith("=== "):
                cur = line[4:].strip()
                parts[cur] = []
            elif cur:
                parts[cur].append(line)
    runtime = parse_enum("".join(parts.get("driver_types.h", [])), r"enum __device_builtin__ cudaError\s*\{")
    driver = parse_enum("".join(parts.get("cuda.h", [])), r"typedef enum cudaError_enum\s*\{")
    return runtime, driver, strings, version


def main(argv):
    a = knowgen.arguments(__doc__, argv, "root", source_opts={"help": "the wheel's nvidia/cuda_runtime folder"},
                          extra=[("--version", {"default": "", "help": "the wheel's version"})])
    if a.root:
        runtime, driver, strings = from_root(a.root)
        version = "nvidia-cuda-runtime-cu12 %s" % a.version
    else:
        runtime, driver, strings, version = from_slice(a.slice)
    return knowgen.emit("cuda_errors", build(runtime, driver, strings, version), a.out, "codes")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
